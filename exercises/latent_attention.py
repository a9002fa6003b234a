# Exercise stub of latent_attention.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
"""Exercise 8d: multi-head latent attention (MLA, DeepSeek-V2): cache one small latent, not every head's keys and values.

Each token is compressed to a latent c = x W_DKV of width d_c, far smaller than the h · d_head
of every head's key and value. The keys and values are up-projections of it, k = c W_UK and
v = c W_UV, so the KV cache holds the latents alone: d_c numbers per token and layer instead of
2 · h · d_head.

At decode time the up-projections need not be made at all. Head h's score of a cached token is
q_h · (c W_UK_h) = (q_h W_UK_hᵀ) · c: W_UK is absorbed into the query, which then attends over
the latents directly; and Σ_j w_j (c_j W_UV_h) = (Σ_j w_j c_j) W_UV_h, so the weighted latent is
up-projected once per head, not every cached token. Every query head then reads one shared
(t, d_c) array: at decode, MLA is multi-query attention with a key/value width of d_c. (DeepSeek
adds a small decoupled RoPE key beside the latent, since a rotation that depends on the position
cannot be absorbed; this exercise leaves positions out.)
"""

import numpy as np
from multihead import merge_heads, split_heads
from softmax import softmax


def mla_attention(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    """Multi-head latent attention over a whole sequence: keys and values up-projected from the latents.

    Shapes: x (B, T, d_model), w_dkv (d_model, d_c), w_uk, w_uv (d_c, n_heads * d_head),
    w_q (d_model, n_heads * d_head) -> (out (B, T, n_heads * d_head), latent (B, T, d_c)).
    latent = x @ w_dkv is what a cache keeps; the keys latent @ w_uk, the values latent @ w_uv and
    the queries x @ w_q are split into heads as split_heads does (head h takes the columns
    h·d_head:(h+1)·d_head); each head is scaled dot-product attention, scaled by 1/√d_head, causal
    when ``causal``; the heads are merged as merge_heads does (no output projection).
    """
    # YOUR CODE HERE
    # Hint: latent = x @ w_dkv; k, v = split_heads(latent @ w_uk, n_heads), split_heads(latent @ w_uv, n_heads); q = split_heads(x @ w_q, n_heads); scores over d_head (q's last axis), np.tril for the causal mask, softmax over the keys, merge_heads.
    raise NotImplementedError("mla_attention is not implemented yet")


def mla_decode_step(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    """One decoding step of MLA over a cache of latents, W_UK absorbed into the query and W_UV applied after the weights.

    Shapes: x_t (B, 1, d_model), latent_cache None or (B, t, d_c), w_dkv (d_model, d_c),
    w_uk, w_uv (d_c, n_heads * d_head), w_q (d_model, n_heads * d_head)
    -> (out_t (B, 1, n_heads * d_head), new_cache (B, t+1, d_c)).
    The new token's latent x_t @ w_dkv is appended to the cache (the cache passed in is left
    unchanged), and the new token attends over every token so far: the steps over a sequence give
    mla_attention(..., causal=True). Head h's query q_h (d_head) becomes q_h W_UK_hᵀ (d_c), whose
    dot product with a latent is the score q_h · k_j, still scaled by 1/√d_head; the weights
    average the latents, and the average goes through W_UV_h. It never holds the cached tokens'
    keys or values, (B, h, t, d_head): O(h · t) beyond the cache for the scores.
    """
    # YOUR CODE HERE
    # Hint: W_UK_h is w_uk[:, h*d_head:(h+1)*d_head]; w_uk.reshape(d_c, n_heads, d_head) holds them all. Absorbed query (B, h, 1, d_c) = q (B, h, 1, d_head) @ W_UK_hᵀ; its scores against latent (B, 1, t+1, d_c) are divided by √d_head, not √d_c.
    raise NotImplementedError("mla_decode_step is not implemented yet")
