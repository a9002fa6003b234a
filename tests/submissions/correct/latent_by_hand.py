"""MLA written another way: heads by an explicit loop over column slices, and the absorbed step with einsum.

file: latent_attention.py
"""


def mla_attention(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    latent = x @ w_dkv
    d_head = w_q.shape[1] // n_heads
    t = x.shape[1]
    heads = []
    for h in range(n_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        q, k, v = x @ w_q[:, cols], latent @ w_uk[:, cols], latent @ w_uv[:, cols]
        scores = np.einsum("btd,bsd->bts", q, k) / np.sqrt(d_head)
        if causal:
            scores = np.where(np.arange(t)[None, :] <= np.arange(t)[:, None], scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        heads.append((weights / weights.sum(axis=-1, keepdims=True)) @ v)
    return np.concatenate(heads, axis=-1), latent


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    latent = x_t @ w_dkv
    cache = latent if latent_cache is None else np.concatenate([latent_cache, latent], axis=1)
    d_c, d_head = w_dkv.shape[1], w_q.shape[1] // n_heads
    q = (x_t @ w_q).reshape(x_t.shape[0], n_heads, d_head)  # (B, h, d_head): one token
    absorbed = np.einsum("bhd,chd->bhc", q, w_uk.reshape(d_c, n_heads, d_head))  # (B, h, d_c)
    scores = np.einsum("bhc,btc->bht", absorbed, cache) / np.sqrt(d_head)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    mixed = np.einsum("bht,btc->bhc", weights, cache)  # (B, h, d_c)
    out = np.einsum("bhc,chd->bhd", mixed, w_uv.reshape(d_c, n_heads, d_head))
    return out.reshape(x_t.shape[0], 1, n_heads * d_head), cache
