"""FlashAttention with the query tiles' state in lists, and a backward pass that rebuilds the whole
weight matrix at once from lse, D taken as rowsum(A * dA): the same values.

file: efficient.py
"""


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("tiles need at least one query and one key")
    n_q, n_k = q.shape[-2], k.shape[-2]
    visible = np.ones((n_q, n_k), dtype=bool) if mask is None else np.asarray(mask)
    if causal:
        visible = visible & (np.arange(n_q)[:, None] >= np.arange(n_k)[None, :])
    visible = np.broadcast_to(visible, np.broadcast_shapes(visible.shape, (n_q, n_k)))
    outs, lses = [], []
    for i in range(0, n_q, block_q):
        m = l = acc = None
        for j in range(0, n_k, block_k):
            s = np.einsum("...qd,...kd->...qk", q[..., i:i + block_q, :], k[..., j:j + block_k, :]) / np.sqrt(q.shape[-1])
            s = np.where(visible[..., i:i + block_q, j:j + block_k], s, -np.inf)
            block_max = s.max(axis=-1, keepdims=True)
            new_m = block_max if m is None else np.maximum(m, block_max)
            base = np.where(np.isneginf(new_m), 0.0, new_m)
            p = np.exp(s - base)
            carry = 0.0 if m is None else np.exp(m - base)
            l = p.sum(axis=-1, keepdims=True) + (0.0 if m is None else l * carry)
            acc = p @ v[..., j:j + block_k, :] + (0.0 if m is None else acc * carry)
            m = new_m
        safe = np.where(l > 0, l, 1.0)
        outs.append(np.where(l > 0, acc / safe, 0.0))
        lses.append(np.where(l[..., 0] > 0, np.where(np.isneginf(m), 0.0, m)[..., 0] + np.log(safe[..., 0]), -np.inf))
    return np.concatenate(outs, axis=-2), np.concatenate(lses, axis=-1)


def flash_attention_backward(q, k, v, out, lse, grad_out, causal=False, mask=None):
    n_q, n_k = q.shape[-2], k.shape[-2]
    visible = np.ones((n_q, n_k), dtype=bool) if mask is None else np.asarray(mask)
    if causal:
        visible = visible & np.tril(np.ones((n_q, n_k), dtype=bool))
    s = np.where(visible, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    a = np.exp(s - np.where(np.isneginf(lse), 0.0, lse)[..., None])
    da = grad_out @ np.swapaxes(v, -1, -2)
    ds = a * (da - (a * da).sum(axis=-1, keepdims=True)) / np.sqrt(q.shape[-1])
    return ds @ k, np.swapaxes(ds, -1, -2) @ q, np.swapaxes(a, -1, -2) @ grad_out
