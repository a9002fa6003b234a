"""Scales the scores by sqrt(d_model), the width of x_t, instead of sqrt(d_k).

file: efficient.py
breaks: kv_cache_step
"""


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q = x_t @ w_q
    k = x_t @ w_k
    v = x_t @ w_v
    if cache is not None:
        keys = np.concatenate([cache["k"], k], axis=1)
        values = np.concatenate([cache["v"], v], axis=1)
    else:
        keys, values = k, v
    mask = None if key_padding_mask is None else key_padding_mask[:, None, :]
    scores = q @ np.swapaxes(keys, -1, -2) / np.sqrt(x_t.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    out = weights @ values
    return out, {"k": keys, "v": values}
