# Exercise stub of efficient.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
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


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    """Scaled dot-product attention computed over key blocks, never holding an (L_q, L_k) array.

    Shapes: q (..., L_q, d_k), k (..., L_k, d_k), v (..., L_k, d_v), block_size >= 1,
    mask None or broadcastable to (..., L_q, L_k), True = may attend
    -> out (..., L_q, d_v), equal to scaled_dot_product_attention(q, k, v, mask)[0].
    With ``causal=True`` (L_q == L_k) query i sees keys 0..i, and the mask hides more. A query
    that may see no key gets a zero output (its running sum stays 0), never nan.
    """
    # YOUR CODE HERE
    # Hint: keep per query a running max m, a running sum l and an output accumulator; when a block raises m to m', multiply l and the accumulator by exp(m - m') before adding the block. Slice the mask per block (np.broadcast_to it to (..., L_q, L_k) first: a view, no memory). While a query has seen no visible key its m is -inf: shift by 0 instead of m', since -inf - (-inf) is nan; at the end a query whose l is still 0 saw no key: its output is 0, not 0 / 0.
    raise NotImplementedError("online_softmax_attention is not implemented yet")


def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    """Grouped-query attention: h_q query heads share h_kv key/value heads.

    Shapes: q (B, h_q, T, d), k and v (B, h_kv, T, d), h_q % h_kv == 0,
    key_padding_mask (B, T) bool, True at real tokens
    -> (out (B, h_q, T, d), weights (B, h_q, T, T)).
    Query head h reads key/value head h // (h_q / h_kv). A query that may see no key (left
    padding under ``causal=True``) gets zero weights and a zero output in every head.
    """
    # YOUR CODE HERE
    # Hint: with group = h_q // h_kv, np.repeat(k, group, axis=1) lines up kv head h // group with query head h; a (B, T) padding mask becomes (B, 1, 1, T), combined with the causal mask by &.
    raise NotImplementedError("grouped_query_attention is not implemented yet")


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    """One decoding step with a key/value cache.

    Shapes: x_t (B, 1, d_model), cache None or {"k": (B, t, d_k), "v": (B, t, d_v)},
    w_q, w_k (d_model, d_k), w_v (d_model, d_v),
    key_padding_mask None or (B, t+1) bool, True at real tokens among the cached ones and the new one
    -> (out_t (B, 1, d_v), new_cache {"k": (B, t+1, d_k), "v": (B, t+1, d_v)}).
    The cache passed in is left unchanged. Running the steps over a sequence
    gives the same outputs as causal self_attention over it. With left padding, a step whose
    token and every earlier one are padding may see no key: its output is 0.
    """
    # YOUR CODE HERE
    # Hint: append the new key and value along the token axis (-2); the newest query may see every cached key, so no causal mask is needed, only the padding mask as (B, 1, t+1).
    raise NotImplementedError("kv_cache_step is not implemented yet")


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    """FlashAttention's forward pass: attention over tiles of queries and keys, with the log-sum-exp it stores.

    Shapes: q (..., L_q, d_k), k (..., L_k, d_k), v (..., L_k, d_v), block_q >= 1, block_k >= 1,
    mask None or broadcastable to (..., L_q, L_k), True = may attend
    -> (out (..., L_q, d_v), lse (..., L_q)).
    out equals scaled_dot_product_attention(q, k, v, mask)[0] (with the causal mask too when
    ``causal=True``, L_q == L_k). lse[i] = log Σ_j exp(s_ij) over the keys query i may see, with
    s = q kᵀ / √d_k: what the backward pass needs to rebuild the weights, exp(s_ij − lse[i]).
    Each tile of block_q queries runs an online softmax over tiles of block_k keys, so no
    (L_q, L_k) array is ever held, not even a mask of that shape, nor a whole row of keys. A
    query that may see no key gets a zero output and lse = -inf (the log of an empty sum), never nan.
    """
    # YOUR CODE HERE
    # Hint: for each tile of queries, keep a running max m, a running sum l and an accumulator over the key tiles, exactly as online_softmax_attention does for all queries at once (rescale l and the accumulator by exp(m - m') when the max grows; shift by 0 while m is -inf). Mask each tile: the causal test compares the tile's query and key positions in the whole sequence, and a given mask is sliced per tile (np.broadcast_to it first: a view); with mask=None build no mask at all. At the end out = acc / l and lse = m + log(l): the max must be added back, since l was summed against it. Where l is 0 the query saw no key: out 0, lse -inf.
    raise NotImplementedError("flash_attention is not implemented yet")


def flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    """FlashAttention's backward pass: the gradients of attention from the stored lse, the weights recomputed tile by tile.

    Shapes: q (..., L_q, d_k), k (..., L_k, d_k), v (..., L_k, d_v), out (..., L_q, d_v) and
    lse (..., L_q) as flash_attention returned them, grad_out dL/dout (..., L_q, d_v),
    block_q >= 1, block_k >= 1, mask None or broadcastable to (..., L_q, L_k), True = may attend
    -> (dq (..., L_q, d_k), dk (..., L_k, d_k), dv (..., L_k, d_v)), equal to attention_backward's.
    The leading axes broadcast; v carries none that the other inputs lack.
    The forward stored no weights: each (block_q, block_k) tile of them is rebuilt as
    exp(q kᵀ / √d_k − lse), so no (L_q, L_k) array, nor a whole row of keys, is ever held. The
    softmax's backward needs rowsum(dA ⊙ A), which equals D = rowsum(grad_out ⊙ out): one number
    per query. A query that may see no key (lse = -inf) has zero weights, so its row of dq is 0
    and it adds nothing to dk or dv.
    """
    # YOUR CODE HERE
    # Hint: D = (grad_out * out).sum(-1). For each tile of keys j and each tile of queries i: P = exp(S_ij - lse_i) is that tile of the weights (mask it as the forward does; shift by 0 where lse is -inf: every score of such a query is masked, so P is 0); dv_j += Pᵀ dO_i; dP = dO_i v_jᵀ; dS = P (dP - D_i) / √d_k; dq_i += dS k_j and dk_j += dSᵀ q_i.
    raise NotImplementedError("flash_attention_backward is not implemented yet")
