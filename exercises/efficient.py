# Exercise stub generated from solutions/efficient.py: fill in the parts marked YOUR CODE HERE.
"""Exercise 8: attention that scales — online softmax, grouped-query attention, a KV cache.

The score matrix is L_q × L_k per head: O(T²) memory. The online softmax
(FlashAttention's trick) walks over blocks of keys with a running maximum and
a running sum, rescaling what it has accumulated whenever the maximum grows,
and never holds the whole matrix. Grouped-query attention lets several query
heads share one key/value head. A KV cache keeps past keys and values so each
decoding step projects only the newest token.
"""

import numpy as np

from attention import scaled_dot_product_attention
from masks import causal_mask


def online_softmax_attention(q, k, v, block_size, causal=False):
    """Scaled dot-product attention computed over key blocks, never holding an (L_q, L_k) array.

    Shapes: q (..., L_q, d_k), k (..., L_k, d_k), v (..., L_k, d_v), block_size >= 1
    -> out (..., L_q, d_v), equal to scaled_dot_product_attention(q, k, v, mask)[0].
    With ``causal=True`` (L_q == L_k) query i sees keys 0..i.
    """
    # YOUR CODE HERE
    # Hint: keep per query a running max m, a running sum l and an output accumulator; when a block raises m to m', multiply l and the accumulator by exp(m - m') before adding the block.
    raise NotImplementedError("online_softmax_attention is not implemented yet")


def grouped_query_attention(q, k, v, causal=False):
    """Grouped-query attention: h_q query heads share h_kv key/value heads.

    Shapes: q (B, h_q, T, d), k and v (B, h_kv, T, d), h_q % h_kv == 0
    -> (out (B, h_q, T, d), weights (B, h_q, T, T)).
    Query head h reads key/value head h // (h_q / h_kv).
    """
    # YOUR CODE HERE
    # Hint: with group = h_q // h_kv, np.repeat(k, group, axis=1) lines up kv head h // group with query head h.
    raise NotImplementedError("grouped_query_attention is not implemented yet")


def kv_cache_step(x_t, cache, w_q, w_k, w_v):
    """One decoding step with a key/value cache.

    Shapes: x_t (B, 1, d_model), cache None or {"k": (B, t, d_k), "v": (B, t, d_v)},
    w_q, w_k (d_model, d_k), w_v (d_model, d_v)
    -> (out_t (B, 1, d_v), new_cache {"k": (B, t+1, d_k), "v": (B, t+1, d_v)}).
    The cache passed in is left unchanged. Running the steps over a sequence
    gives the same outputs as causal self_attention over it.
    """
    # YOUR CODE HERE
    # Hint: append the new key and value along the token axis (-2); the newest query may see every cached key, so no mask is needed.
    raise NotImplementedError("kv_cache_step is not implemented yet")
