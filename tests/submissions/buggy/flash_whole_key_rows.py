"""Right out and lse, wrong method: each tile of queries scores every key at once (no key tiles).

file: efficient.py
breaks: flash_attention
"""


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("a tile holds at least one query and one key")
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], () if mask is None else mask.shape[:-2])
    out = np.zeros(lead + (n_q, v.shape[-1]))
    lse = np.full(lead + (n_q,), -np.inf)
    for i in range(0, n_q, block_q):
        qi = q[..., i:i + block_q, :]
        s = qi @ np.swapaxes(k, -1, -2) / np.sqrt(d)
        if causal:
            s = np.where(np.arange(i, i + qi.shape[-2])[:, None] >= np.arange(n_k)[None, :], s, -np.inf)
        if mask is not None:
            s = np.where(mask[..., i:i + block_q, :], s, -np.inf)
        m = s.max(axis=-1, keepdims=True)
        safe = np.where(np.isneginf(m), 0.0, m)
        p = np.exp(s - safe)
        l = p.sum(axis=-1, keepdims=True)
        seen = l > 0
        out[..., i:i + block_q, :] = np.where(seen, (p @ v) / np.where(seen, l, 1.0), 0.0)
        lse[..., i:i + block_q] = np.where(seen, safe + np.log(np.where(seen, l, 1.0)), -np.inf)[..., 0]
    return out, lse
