"""Takes the mask argument and never applies it; causal works.

file: efficient.py
breaks: online_softmax_attention
"""


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if mask is not None:
        pass
    m = np.full(lead + (n_q, 1), -np.inf)
    l = np.zeros(lead + (n_q, 1))
    acc = np.zeros(lead + (n_q, v.shape[-1]))
    rows = np.arange(n_q)[:, None]
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.sqrt(d)
        if causal:
            s = np.where(rows >= np.arange(start, stop)[None, :], s, -np.inf)
        if mask is not None:
            pass
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        base = np.where(np.isneginf(m_new), 0.0, m_new)
        alpha = np.exp(m - base)
        p = np.exp(s - base)
        l = l * alpha + p.sum(axis=-1, keepdims=True)
        acc = acc * alpha + p @ v[..., start:stop, :]
        m = m_new
    return np.where(l > 0, acc / np.where(l > 0, l, 1.0), 0.0)
