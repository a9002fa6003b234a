"""Starts from the state passed in and adds into it with +=: the caller's S and z are changed.

file: linear_attention.py
breaks: linear_attention_recurrent
"""

import numpy as np

def linear_attention_recurrent(q, k, v, state=None):
    L, d_k, d_v = q.shape[-2], q.shape[-1], v.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if state is None:
        S = np.zeros(lead + (d_k, d_v))
        z = np.zeros(lead + (d_k,))
    else:
        S, z = state
    out = np.zeros(lead + (L, d_v))
    for i in range(L):
        fk = elu_feature_map(k[..., i, :])
        fq = elu_feature_map(q[..., i, :])
        S += fk[..., :, None] * v[..., i, None, :]
        z += fk
        out[..., i, :] = np.einsum("...d,...de->...e", fq, S) / np.sum(fq * z, axis=-1, keepdims=True)
    return out, (S, z)
