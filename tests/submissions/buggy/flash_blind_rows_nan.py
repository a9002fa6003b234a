"""Tiles and lse right, but out = acc / l with no guard: a query that may see no key has l = 0, and 0 / 0 = nan.

file: efficient.py
breaks: flash_attention
"""


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("tiles hold at least one query and one key")
    L_q, L_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    allowed = np.ones((L_q, L_k), dtype=bool) if mask is None else mask
    if causal:
        allowed = allowed & np.tril(np.ones((L_q, L_k), dtype=bool))
    allowed = np.broadcast_to(allowed, np.broadcast_shapes(allowed.shape, (L_q, L_k)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], allowed.shape[:-2])
    out = np.zeros(lead + (L_q, v.shape[-1]))
    lse = np.full(lead + (L_q,), -np.inf)
    for i in range(0, L_q, block_q):
        qi = q[..., i:i + block_q, :]
        m = np.full(lead + (qi.shape[-2], 1), -np.inf)
        l = np.zeros(lead + (qi.shape[-2], 1))
        acc = np.zeros(lead + (qi.shape[-2], v.shape[-1]))
        for j in range(0, L_k, block_k):
            s = qi @ np.swapaxes(k[..., j:j + block_k, :], -1, -2) / np.sqrt(d)
            s = np.where(allowed[..., i:i + block_q, j:j + block_k], s, -np.inf)
            m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
            safe = np.where(np.isinf(m_new), 0.0, m_new)
            p = np.exp(s - safe)
            alpha = np.exp(m - safe)
            l = l * alpha + p.sum(axis=-1, keepdims=True)
            acc = acc * alpha + p @ v[..., j:j + block_k, :]
            m = m_new
        seen = l > 0
        with np.errstate(invalid="ignore"):
            out[..., i:i + block_q, :] = acc / l
        lse[..., i:i + block_q] = np.where(seen, np.where(seen, m, 0.0) + np.log(np.where(seen, l, 1.0)), -np.inf)[..., 0]
    return out, lse
