"""One zero for every output.

file: latent_attention.py
"""


def mla_attention(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    return np.zeros(1)


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    return np.zeros(1)


def mla_rope_attention(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    return np.zeros(1)


def mla_rope_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    return np.zeros(1)
