"""Multi-head attention with a Python loop over heads and explicit column slices; a query that may see no key gets a row of exp(-inf) = 0 and is divided by 1, not 0.

file: multihead.py
"""


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    batch, n, d_model = x.shape
    d_head = d_model // n_heads
    mask = np.ones((batch, 1, n, n), dtype=bool)
    if causal:
        mask = mask & np.tril(np.ones((n, n), dtype=bool))
    if key_padding_mask is not None:
        mask = mask & key_padding_mask[:, None, None, :]
    outputs, all_weights = [], []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        q, k, v = x @ w_q[:, cols], x @ w_k[:, cols], x @ w_v[:, cols]
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(d_head)
        scores = np.where(mask[:, 0], scores, -np.inf)
        row_max = scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores - np.where(np.isfinite(row_max), row_max, 0.0))
        total = weights.sum(axis=-1, keepdims=True)
        weights = weights / np.where(total > 0, total, 1.0)
        outputs.append(weights @ v)
        all_weights.append(weights)
    return np.concatenate(outputs, axis=-1) @ w_o, np.stack(all_weights, axis=1)
