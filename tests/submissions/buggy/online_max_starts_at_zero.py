"""Starts the running maximum at 0 instead of -inf: exact while some score of a row is above
about -700, but when every score of a row is far below zero, exp(score - 0) underflows to 0 and
the row becomes 0 / 0.

file: efficient.py
breaks: online_softmax_attention
"""


def online_softmax_attention(q, k, v, block_size, causal=False):
    n_q, n_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    running_max = np.zeros(lead + (n_q, 1))
    running_sum = np.zeros(lead + (n_q, 1))
    acc = np.zeros(lead + (n_q, v.shape[-1]))
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.sqrt(d_k)
        if causal:
            s = np.where(np.arange(n_q)[:, None] >= np.arange(start, stop)[None, :], s, -np.inf)
        new_max = np.maximum(running_max, s.max(axis=-1, keepdims=True))
        scale = np.exp(running_max - new_max)
        p = np.exp(s - new_max)
        running_sum = running_sum * scale + p.sum(axis=-1, keepdims=True)
        acc = acc * scale + p @ v[..., start:stop, :]
        running_max = new_max
    return acc / running_sum
