"""Keeps the running state but never divides by the normaliser.

file: linear_attention.py
breaks: linear_attention_recurrent
"""

import numpy as np


def linear_attention_recurrent(q, k, v, state=None):
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    s, z = (0.0, 0.0) if state is None else state
    s = np.zeros(lead + (q.shape[-1], v.shape[-1])) + s
    z = np.zeros(lead + (q.shape[-1],)) + z
    out = np.zeros(lead + (q.shape[-2], v.shape[-1]))
    for i in range(q.shape[-2]):
        key = elu_feature_map(k[..., i, :])
        s = s + key[..., :, None] * v[..., i, None, :]
        z = z + key
        out[..., i, :] = (elu_feature_map(q[..., i, :])[..., None, :] @ s)[..., 0, :]
    return out, (s, z)
