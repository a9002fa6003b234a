"""Right gradients, wrong method: one query at a time, its whole row of weights rebuilt from lse over every key, the tiles ignored.

file: efficient.py
breaks: flash_attention_backward
"""


def flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("tiles need at least one query and one key")
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], grad_out.shape[:-2], () if mask is None else mask.shape[:-2])
    dq, dk, dv = np.zeros(lead + q.shape[-2:]), np.zeros(lead + k.shape[-2:]), np.zeros(lead + v.shape[-2:])
    kt, vt = np.swapaxes(k, -1, -2), np.swapaxes(v, -1, -2)
    for i in range(n_q):
        row = q[..., i:i + 1, :] @ kt / np.sqrt(d)  # (..., 1, L_k): every key of query i
        if causal:
            row[..., i + 1:] = -np.inf
        if mask is not None:
            row = np.where(mask[..., i:i + 1, :], row, -np.inf)
        row -= np.where(np.isneginf(lse[..., i:i + 1]), 0.0, lse[..., i:i + 1])[..., None]
        np.exp(row, out=row)
        g = grad_out[..., i:i + 1, :]
        dv += np.swapaxes(row, -1, -2) @ g
        ds = row * ((g @ vt) - np.sum(g * out[..., i:i + 1, :], axis=-1, keepdims=True)) / np.sqrt(d)
        dq[..., i:i + 1, :] += ds @ k
        dk += np.swapaxes(ds, -1, -2) @ q[..., i:i + 1, :]
    return dq, dk, dv
