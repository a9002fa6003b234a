"""softmax - onehot at each counted prediction, never divided by their number.

file: induction.py
breaks: next_token_loss_grad
"""

import numpy as np


def next_token_loss_grad(logits, tokens, where=None):
    grad = np.zeros(logits.shape)
    z = logits[:, :-1] - logits[:, :-1].max(axis=-1, keepdims=True)
    probs = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    batch, steps, vocab = probs.shape
    onehot = np.eye(vocab)[tokens[:, 1:]]
    counted = np.ones((batch, steps)) if where is None else np.broadcast_to(where, (batch, steps))
    grad[:, :-1] = (probs - onehot) * counted[..., None]
    return grad
