"""Writes the scores by hand and scales by √d_model, the input width, instead of √d_k.

file: attention.py
breaks: self_attention
"""


def self_attention(x, w_q, w_k, w_v, causal=False):
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(x.shape[-1])
    if causal:
        scores = np.where(causal_mask(x.shape[-2]), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights
