"""Overwrites the running state and normaliser with the newest token's terms.

file: linear_attention.py
breaks: linear_attention_recurrent
"""

import numpy as np


def linear_attention_recurrent(q, k, v, state=None):
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    s, z = np.zeros(lead + (q.shape[-1], v.shape[-1])), np.zeros(lead + (q.shape[-1],))
    out = np.zeros(lead + (q.shape[-2], v.shape[-1]))
    for i in range(q.shape[-2]):
        phi_q = elu_feature_map(q[..., i, :])
        phi_k = elu_feature_map(k[..., i, :])
        s = 0 * s + phi_k[..., :, None] * v[..., i, None, :]
        z = 0 * z + phi_k
        out[..., i, :] = np.einsum("...d,...de->...e", phi_q, s) / np.sum(phi_q * z, axis=-1)[..., None]
    return out, (s, z)
