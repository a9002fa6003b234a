"""Keeps the running state but never divides by the normaliser.

file: linear_attention.py
breaks: linear_attention_recurrent
"""

import numpy as np


def linear_attention_recurrent(q, k, v):
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    state = np.zeros(lead + (q.shape[-1], v.shape[-1]))
    out = np.zeros(lead + (q.shape[-2], v.shape[-1]))
    for i in range(q.shape[-2]):
        state = state + elu_feature_map(k[..., i, :])[..., :, None] * v[..., i, None, :]
        out[..., i, :] = (elu_feature_map(q[..., i, :])[..., None, :] @ state)[..., 0, :]
    return out
