"""Reads each output from the state before adding its own position: query i sees keys 0..i-1 (the first one 0 / 0).

file: linear_attention.py
breaks: linear_attention_recurrent
"""

import numpy as np


def linear_attention_recurrent(q, k, v, state=None):
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    d_k, d_v = q.shape[-1], v.shape[-1]
    s = np.zeros(lead + (d_k, d_v))
    z = np.zeros(lead + (d_k,))
    if state is not None:
        s, z = s + state[0], z + state[1]
    outputs = []
    for i in range(q.shape[-2]):
        phi_q = elu_feature_map(q[..., i, :])
        phi_k = elu_feature_map(k[..., i, :])
        outputs.append(np.einsum("...d,...de->...e", phi_q, s) / np.sum(phi_q * z, axis=-1)[..., None])
        s = s + phi_k[..., :, None] * v[..., i, None, :]
        z = z + phi_k
    return np.stack(outputs, axis=-2), (s, z)
