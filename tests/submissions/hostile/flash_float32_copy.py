"""FlashAttention computed right, its answers rounded to float32 at the end (see heads_float32_copy).

file: efficient.py
"""


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    allowed = np.ones((q.shape[-2], k.shape[-2]), dtype=bool) if mask is None else mask
    if causal:
        allowed = allowed & np.tril(np.ones((q.shape[-2], k.shape[-2]), dtype=bool))
    scores = np.where(allowed, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(scores - top)
    total = e.sum(axis=-1, keepdims=True)
    out = np.where(total > 0, e / np.where(total > 0, total, 1.0), 0.0) @ v
    with np.errstate(divide="ignore"):
        lse = (top + np.log(total))[..., 0]
    return out.astype(np.float32), lse.astype(np.float32)


def flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    allowed = np.ones((q.shape[-2], k.shape[-2]), dtype=bool) if mask is None else mask
    if causal:
        allowed = allowed & np.tril(np.ones((q.shape[-2], k.shape[-2]), dtype=bool))
    scores = np.where(allowed, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
    p = np.exp(scores - np.where(np.isfinite(lse), lse, 0.0)[..., None])
    ds = p * (grad_out @ np.swapaxes(v, -1, -2) - (grad_out * out).sum(axis=-1, keepdims=True)) / np.sqrt(q.shape[-1])
    grads = ds @ k, np.swapaxes(ds, -1, -2) @ q, np.swapaxes(p, -1, -2) @ grad_out
    return tuple(g.astype(np.float32) for g in grads)
