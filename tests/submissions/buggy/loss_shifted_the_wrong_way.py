"""Pairs logits[:, 1:] with tokens[:, :-1]: each position asked for the token before it.

file: induction.py
breaks: next_token_loss
"""

import numpy as np


def next_token_loss(logits, tokens, where=None):
    z = logits[:, 1:]
    z = z - z.max(axis=-1, keepdims=True)
    log_probs = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    nll = -np.take_along_axis(log_probs, tokens[:, :-1, None], axis=-1)[..., 0]
    if where is None:
        return float(nll.mean())
    return float(nll[np.broadcast_to(where, nll.shape)].mean())
