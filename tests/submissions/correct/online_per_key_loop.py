"""Online softmax written one block at a time with explicit rescaling factors named as in the FlashAttention paper; the mask is applied per block, and a query that has seen no visible key keeps m = -inf and is shifted by 0, its l clamped to 1 at the end.

file: efficient.py
"""


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    n_q, n_k = q.shape[-2], k.shape[-2]
    scale = 1.0 / np.sqrt(q.shape[-1])
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    m = np.full(lead + (n_q, 1), -np.inf)
    l = np.zeros(lead + (n_q, 1))
    o = np.zeros(lead + (n_q, v.shape[-1]))
    if mask is not None:  # a mask broadcast over the keys gets its key axis, so that blocks can be cut from it
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (1, n_k)))
    for j in range(0, n_k, block_size):
        s = (q @ np.swapaxes(k[..., j : j + block_size, :], -1, -2)) * scale
        if causal:
            s = np.where(np.arange(n_q)[:, None] >= np.arange(j, j + s.shape[-1])[None, :], s, -np.inf)
        if mask is not None:
            s = np.where(mask[..., j : j + block_size], s, -np.inf)
        m_new = np.maximum(m, s.max(axis=-1, keepdims=True))
        m_safe = np.where(np.isneginf(m_new), 0.0, m_new)
        alpha = np.exp(m - m_safe)
        p = np.exp(s - m_safe)
        l = alpha * l + p.sum(axis=-1, keepdims=True)
        o = alpha * o + p @ v[..., j : j + block_size, :]
        m = m_new
    return o / np.maximum(l, 1.0)  # l >= 1 once a query has seen a key (its max gives exp(0)); 0 if none
