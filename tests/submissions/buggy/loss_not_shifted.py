"""Scores each position's logits against its own token: nothing shifted.

file: induction.py
breaks: next_token_loss
"""

import numpy as np


def next_token_loss(logits, tokens, where=None):
    z = logits - logits.max(axis=-1, keepdims=True)
    log_probs = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    nll = -np.take_along_axis(log_probs, tokens[..., None], axis=-1)[..., 0][:, :-1]
    if where is None:
        return float(nll.mean())
    return float(nll[np.broadcast_to(where, nll.shape)].mean())
