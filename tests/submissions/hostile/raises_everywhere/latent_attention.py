"""Every function of latent_attention.py raises ValueError at once: it computes nothing.

file: latent_attention.py
"""


def mla_attention(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    raise ValueError("nothing computed")


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    raise ValueError("nothing computed")


def mla_rope_attention(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    raise ValueError("nothing computed")


def mla_rope_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    raise ValueError("nothing computed")
