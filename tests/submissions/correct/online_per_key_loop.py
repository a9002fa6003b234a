"""Online softmax written one block at a time with explicit rescaling factors named as in the FlashAttention paper.

file: efficient.py
"""


def online_softmax_attention(q, k, v, block_size, causal=False):
    n_q, n_k = q.shape[-2], k.shape[-2]
    scale = 1.0 / np.sqrt(q.shape[-1])
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    m = np.full(lead + (n_q, 1), -np.inf)
    l = np.zeros(lead + (n_q, 1))
    o = np.zeros(lead + (n_q, v.shape[-1]))
    for j in range(0, n_k, block_size):
        s = (q @ np.swapaxes(k[..., j : j + block_size, :], -1, -2)) * scale
        if causal:
            s = np.where(np.arange(n_q)[:, None] >= np.arange(j, j + s.shape[-1])[None, :], s, -np.inf)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        alpha = np.exp(m - m_new)
        p = np.exp(s - m_new)
        l = alpha * l + p.sum(axis=-1, keepdims=True)
        o = alpha * o + p @ v[..., j : j + block_size, :]
        m = m_new
    return o / l
