"""Online softmax that takes the mask but shifts by a running max of -inf: a query that may see no key computes exp(-inf - (-inf)) = nan.

file: efficient.py
breaks: online_softmax_attention
"""


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    n_queries, n_keys, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    running_max = np.full(lead + (n_queries, 1), -np.inf)
    running_sum = np.zeros(lead + (n_queries, 1))
    accumulated = np.zeros(lead + (n_queries, v.shape[-1]))
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_queries, n_keys)))
    for start in range(0, n_keys, block_size):
        stop = min(start + block_size, n_keys)
        block_scores = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.sqrt(d_k)
        if causal:
            block_scores = np.where(np.arange(n_queries)[:, None] >= np.arange(start, stop)[None, :], block_scores, -np.inf)
        if mask is not None:
            block_scores = np.where(mask[..., start:stop], block_scores, -np.inf)
        new_max = np.maximum(running_max, block_scores.max(axis=-1, keepdims=True))
        rescale = np.exp(running_max - new_max)
        block_weights = np.exp(block_scores - new_max)
        running_sum = running_sum * rescale + block_weights.sum(axis=-1, keepdims=True)
        accumulated = accumulated * rescale + block_weights @ v[..., start:stop, :]
        running_max = new_max
    return accumulated / running_sum
