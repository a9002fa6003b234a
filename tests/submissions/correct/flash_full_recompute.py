"""FlashAttention with the query tiles' state in lists, and a backward pass with the query tiles
outside and the key tiles inside, written with einsum: the same values.

file: efficient.py
"""


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("tiles need at least one query and one key")
    n_q, n_k = q.shape[-2], k.shape[-2]
    visible = np.ones((1, 1), dtype=bool) if mask is None else np.asarray(mask)  # broadcast, never built whole
    visible = np.broadcast_to(visible, np.broadcast_shapes(visible.shape, (n_q, n_k)))
    outs, lses = [], []
    for i in range(0, n_q, block_q):
        m = l = acc = None
        for j in range(0, n_k, block_k):
            s = np.einsum("...qd,...kd->...qk", q[..., i:i + block_q, :], k[..., j:j + block_k, :]) / np.sqrt(q.shape[-1])
            tile = visible[..., i:i + block_q, j:j + block_k]
            if causal:
                tile = tile & (np.arange(i, i + s.shape[-2])[:, None] >= np.arange(j, j + s.shape[-1])[None, :])
            s = np.where(tile, s, -np.inf)
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


def flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("tiles need at least one query and one key")
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    visible = None if mask is None else np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], grad_out.shape[:-2], () if visible is None else visible.shape[:-2])
    dq, dk, dv = np.zeros(lead + q.shape[-2:]), np.zeros(lead + k.shape[-2:]), np.zeros(lead + v.shape[-2:])
    for i in range(0, n_q, block_q):  # queries outside, keys inside: each tile of dq is finished at once
        qi, gi, oi = q[..., i:i + block_q, :], grad_out[..., i:i + block_q, :], out[..., i:i + block_q, :]
        li = np.where(np.isneginf(lse[..., i:i + block_q]), 0.0, lse[..., i:i + block_q])[..., None]
        di = np.einsum("...qd,...qd->...q", gi, oi)[..., None]
        for j in range(0, n_k, block_k):
            s = np.einsum("...qd,...kd->...qk", qi, k[..., j:j + block_k, :]) / np.sqrt(d)
            if causal:
                s = np.where(np.arange(i, i + qi.shape[-2])[:, None] >= np.arange(j, j + s.shape[-1])[None, :], s, -np.inf)
            if visible is not None:
                s = np.where(visible[..., i:i + block_q, j:j + block_k], s, -np.inf)
            a = np.exp(s - li)
            da = np.einsum("...qd,...kd->...qk", gi, v[..., j:j + block_k, :])
            ds = a * (da - di) / np.sqrt(d)
            dv[..., j:j + block_k, :] += np.einsum("...qk,...qd->...kd", a, gi)
            dk[..., j:j + block_k, :] += np.einsum("...qk,...qd->...kd", ds, qi)
            dq[..., i:i + block_q, :] += np.einsum("...qk,...kd->...qd", ds, k[..., j:j + block_k, :])
    return dq, dk, dv
