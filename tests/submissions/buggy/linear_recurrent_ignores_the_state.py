"""Returns the state after its positions, but always starts from zeros: the state passed in is never read.

file: linear_attention.py
breaks: linear_attention_recurrent
"""

import numpy as np


def linear_attention_recurrent(q, k, v, state=None):
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    s = np.zeros(lead + (q.shape[-1], v.shape[-1]))
    z = np.zeros(lead + (q.shape[-1],))
    out = np.empty(lead + (q.shape[-2], v.shape[-1]))
    for i in range(q.shape[-2]):
        key, query = elu_feature_map(k[..., i, :]), elu_feature_map(q[..., i, :])
        s = s + key[..., :, None] * v[..., i, None, :]
        z = z + key
        out[..., i, :] = (query[..., None, :] @ s)[..., 0, :] / np.sum(query * z, axis=-1, keepdims=True)
    return out, (s, z)
