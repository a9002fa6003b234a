"""Adds each position into the S and z it was given (+=): the caller's state changes.

file: linear_attention.py
breaks: linear_attention_recurrent
"""

import numpy as np


def linear_attention_recurrent(q, k, v, state=None):
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if state is None:
        s, z = np.zeros(lead + (q.shape[-1], v.shape[-1])), np.zeros(lead + (q.shape[-1],))
    else:
        s, z = state
    out = np.zeros(lead + (q.shape[-2], v.shape[-1]))
    for i in range(q.shape[-2]):
        phi_k = elu_feature_map(k[..., i, :])
        phi_q = elu_feature_map(q[..., i, :])
        s += np.einsum("...i,...j->...ij", phi_k, v[..., i, :])
        z += phi_k
        out[..., i, :] = np.einsum("...i,...ij->...j", phi_q, s) / np.einsum("...i,...i->...", phi_q, z)[..., None]
    return out, (s, z)
