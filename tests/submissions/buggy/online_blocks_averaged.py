"""Normalises each block with its own softmax and averages the blocks' outputs.

file: efficient.py
breaks: online_softmax_attention
"""


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    n_q, n_k = q.shape[-2], k.shape[-2]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    outs = []
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        visible = np.arange(n_q)[:, None] >= np.arange(start, stop)[None, :] if causal else None
        if mask is not None:
            visible = mask[..., start:stop] if visible is None else visible & mask[..., start:stop]
        out, _ = scaled_dot_product_attention(q, k[..., start:stop, :], v[..., start:stop, :], visible)
        outs.append(out)
    return sum(outs) / len(outs)
