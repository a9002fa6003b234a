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
(t, d_c) array: at decode, MLA is multi-query attention with a key/value width of d_c.

Positions cannot go through the latent: with RoPE on the keys, q_h · R_j (c_j W_UK_h) puts a
rotation that depends on the key's position j between the query and W_UK, so no fixed matrix
absorbs it. DeepSeek-V2 decouples them: each head's query gets a small extra part
q_R = RoPE(x W_QR) of width d_rope, and every token ONE extra key k_R = RoPE(x W_KR) of width
d_rope, shared by all heads and cached beside the latent (d_c + d_rope numbers per token). Head h's
score is (q_C · k_C + q_R · k_R) / √(d_head + d_rope): the content part from the latent, absorbed
at decode as before, and the RoPE part read straight off the cache.
"""

import numpy as np
from multihead import merge_heads, split_heads
from positions import rope
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


def mla_rope_attention(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    """MLA with DeepSeek-V2's decoupled RoPE: a rotated part per head on the query, one rotated key per token shared by every head.

    Shapes: x (B, T, d_model), w_dkv (d_model, d_c), w_uk, w_uv (d_c, n_heads * d_head),
    w_q (d_model, n_heads * d_head), w_qr (d_model, n_heads * d_rope), w_kr (d_model, d_rope) with
    d_rope even -> (out (B, T, n_heads * d_head), (latent (B, T, d_c), rope_keys (B, T, d_rope))).
    The content part is mla_attention's: latent = x @ w_dkv, keys latent @ w_uk, values latent @ w_uv
    and queries x @ w_q split into heads as split_heads does. The RoPE part: the queries x @ w_qr split
    into heads (head h takes the columns h·d_rope:(h+1)·d_rope) and the one key x @ w_kr per token,
    both turned by ``rope`` at the positions 0..T-1; every head scores against the same RoPE key.
    Head h's score of token j is (q_C · k_C + q_R · k_R) / √(d_head + d_rope), causal when ``causal``;
    the values are the content values alone, never rotated. What a cache keeps is returned with the
    output: the latents and the rotated RoPE keys.
    """
    # YOUR CODE HERE
    # Hint: positions = np.arange(T); rope_keys = rope(x @ w_kr, positions) is (B, T, d_rope), one per token: add a head axis (rope_keys[:, None]) so every head reads it; q_rope = rope(split_heads(x @ w_qr, n_heads), positions); the scale is √(d_head + d_rope), the width of the whole dot product.
    raise NotImplementedError("mla_rope_attention is not implemented yet")


def mla_rope_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    """One decoding step of MLA with decoupled RoPE: W_UK absorbed for the content score, the RoPE key read from the cache.

    Shapes: x_t (B, 1, d_model), cache None or (latent (B, t, d_c), rope_keys (B, t, d_rope)),
    the weights as in mla_rope_attention
    -> (out_t (B, 1, n_heads * d_head), (latent (B, t+1, d_c), rope_keys (B, t+1, d_rope))).
    The new token is at position t, the number of cached tokens (0 without a cache): its RoPE query
    parts and its RoPE key are turned by ``rope`` at position t, and its latent and rotated RoPE key
    are appended to the cache (the arrays passed in are left unchanged). Head h's score of token j is
    the absorbed content score (q_h W_UK_hᵀ) · c_j plus q_R,h · k_R,j, over √(d_head + d_rope); the
    weights average the latents, and the average goes through W_UV_h. The steps over a sequence give
    mla_rope_attention(..., causal=True). It never holds the cached tokens' keys or values
    (B, h, t, d_head): O(h · t) beyond the cache for the scores.
    """
    # YOUR CODE HERE
    # Hint: t = the cached latents' length along axis -2 (0 without a cache); rotate with rope(..., np.array([t])); the content score is mla_decode_step's absorbed one, the RoPE score q_rope (B, h, 1, d_rope) against rope_keys[:, None] (B, 1, t+1, d_rope); add them, then divide by √(d_head + d_rope).
    raise NotImplementedError("mla_rope_decode_step is not implemented yet")
