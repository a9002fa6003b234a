"""Reads the output before adding position i to the state: each query sees keys 0..i-1 only.

file: linear_attention.py
breaks: linear_attention_recurrent
"""

import numpy as np

def linear_attention_recurrent(q, k, v, state=None):
    L, d_k, d_v = q.shape[-2], q.shape[-1], v.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    S = np.zeros(lead + (d_k, d_v))
    z = np.zeros(lead + (d_k,))
    if state is not None:
        S = S + state[0]
        z = z + state[1]
    out = np.zeros(lead + (L, d_v))
    for i in range(L):
        fq = elu_feature_map(q[..., i, :])
        fk = elu_feature_map(k[..., i, :])
        denom = np.sum(fq * z, axis=-1, keepdims=True)
        out[..., i, :] = (fq[..., None, :] @ S)[..., 0, :] / np.where(denom == 0, 1, denom)
        S = S + fk[..., :, None] * v[..., i, None, :]
        z = z + fk
    return out, (S, z)
