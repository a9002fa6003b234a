"""Always starts from zeros, so a state passed in (the previous chunk) is ignored.

file: linear_attention.py
breaks: linear_attention_recurrent
"""

import numpy as np

def linear_attention_recurrent(q, k, v, state=None):
    L, d_k, d_v = q.shape[-2], q.shape[-1], v.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    S = np.zeros(lead + (d_k, d_v))
    z = np.zeros(lead + (d_k,))
    out = np.zeros(lead + (L, d_v))
    for i in range(L):
        fk = elu_feature_map(k[..., i, :])
        fq = elu_feature_map(q[..., i, :])
        S = S + fk[..., :, None] * v[..., i, None, :]
        z = z + fk
        out[..., i, :] = (fq[..., None, :] @ S)[..., 0, :] / np.sum(fq * z, axis=-1, keepdims=True)
    return out, (S, z)
