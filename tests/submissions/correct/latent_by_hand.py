"""MLA written another way: heads by an explicit loop over column slices, and the absorbed steps with einsum; RoPE by
complex numbers.

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


def turn(x, start):
    """RoPE as a complex product: pair (x[2i], x[2i+1]) is x[2i] + i·x[2i+1], times e^(i·p·θ_i), p = start, start+1, ..."""
    d, t = x.shape[-1], x.shape[-2]
    angles = np.arange(start, start + t)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    z = (x[..., 0::2] + 1j * x[..., 1::2]) * np.exp(1j * angles)
    return np.stack([z.real, z.imag], axis=-1).reshape(x.shape)


def mla_rope_attention(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    latent, t = x @ w_dkv, x.shape[1]
    d_head, d_rope = w_q.shape[1] // n_heads, w_kr.shape[1]
    rope_keys = turn(x @ w_kr, 0)
    heads = []
    for h in range(n_heads):
        cols, rcols = slice(h * d_head, (h + 1) * d_head), slice(h * d_rope, (h + 1) * d_rope)
        q = np.concatenate([x @ w_q[:, cols], turn(x @ w_qr[:, rcols], 0)], axis=-1)
        k = np.concatenate([latent @ w_uk[:, cols], rope_keys], axis=-1)
        scores = np.einsum("btd,bsd->bts", q, k) / np.sqrt(d_head + d_rope)
        if causal:
            scores = np.where(np.arange(t)[None, :] <= np.arange(t)[:, None], scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        heads.append((weights / weights.sum(axis=-1, keepdims=True)) @ (latent @ w_uv[:, cols]))
    return np.concatenate(heads, axis=-1), (latent, rope_keys)


def mla_rope_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    t = 0 if cache is None else cache[0].shape[1]
    latents, keys = x_t @ w_dkv, turn(x_t @ w_kr, t)
    if cache is not None:
        latents, keys = np.concatenate([cache[0], latents], axis=1), np.concatenate([cache[1], keys], axis=1)
    d_c, d_head, d_rope = w_dkv.shape[1], w_q.shape[1] // n_heads, w_kr.shape[1]
    q = (x_t @ w_q).reshape(x_t.shape[0], n_heads, d_head)
    q_rope = turn((x_t @ w_qr).reshape(x_t.shape[0], n_heads, d_rope)[:, :, None], t)[:, :, 0]  # (B, h, d_rope)
    absorbed = np.einsum("bhd,chd->bhc", q, w_uk.reshape(d_c, n_heads, d_head))
    scores = np.einsum("bhc,btc->bht", absorbed, latents) + np.einsum("bhr,btr->bht", q_rope, keys)
    scores /= np.sqrt(d_head + d_rope)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    out = np.einsum("bhc,chd->bhd", np.einsum("bht,btc->bhc", weights, latents), w_uv.reshape(d_c, n_heads, d_head))
    return out.reshape(x_t.shape[0], 1, n_heads * d_head), (latents, keys)
