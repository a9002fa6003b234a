"""log softmax as log(exp(z) / sum(exp(z))): overflows at large logits.

file: induction.py
breaks: next_token_loss
"""

import numpy as np


def next_token_loss(logits, tokens, where=None):
    e = np.exp(logits[:, :-1])
    probs = e / e.sum(axis=-1, keepdims=True)
    nll = -np.log(np.take_along_axis(probs, tokens[:, 1:, None], axis=-1)[..., 0])
    if where is None:
        return float(nll.mean())
    return float(nll[np.broadcast_to(where, nll.shape)].mean())
