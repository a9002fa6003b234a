"""Exercise 4: scaled dot-product attention, self-attention and cross-attention.

softmax(q kᵀ / √d_k) v: every output row is a convex combination of value
rows, weighted by how well the query matches each key. Self- and
cross-attention are the same function with different arguments: in
self-attention q, k, v come from one sequence; in cross-attention the queries
come from the decoder and the keys and values from the encoder.
"""

import numpy as np

from masks import causal_mask
from scores import attention_scores
from softmax import softmax


def scaled_dot_product_attention(q, k, v, mask=None):
    """Attention of every query over every key.

    Shapes: q (..., L_q, d_k), k (..., L_k, d_k), v (..., L_k, d_v),
    mask broadcastable to (..., L_q, L_k), True = may attend
    -> (out (..., L_q, d_v), weights (..., L_q, L_k)); each row of weights sums to 1 over the keys.

    Masked scores become -inf before the softmax, so masked weights are exactly 0. A query that
    may see no key at all (a padding query under a causal mask, with left padding) gets a row of
    zero weights and a zero output: never nan (the softmax of a row of -inf is 0 / 0), and never a
    uniform row (what a finite fill such as -1e9 gives it).
    """
    ### BEGIN SOLUTION
    ### HINT: masked scores must become -inf *before* the softmax; the softmax runs over the last (key) axis. A row with no visible key is all -inf: give it zeros (np.where on the mask after the softmax), not the nan of 0 / 0.
    scores = attention_scores(q, k)  # (..., L_q, L_k)
    if mask is None:
        weights = softmax(scores, axis=-1)  # (..., L_q, L_k), a distribution over keys
        return weights @ v, weights  # (..., L_q, d_v)
    mask, scores = np.broadcast_arrays(mask, scores)
    sees_a_key = mask.any(axis=-1, keepdims=True)  # (..., L_q, 1)
    # exp(-inf) = 0: masked keys get no weight; a row with no visible key is softmaxed as zeros
    # (any finite row would do) and then zeroed, so that no -inf - (-inf) = nan is ever made.
    scores = np.where(mask, scores, np.where(sees_a_key, -np.inf, 0.0))
    weights = np.where(mask, softmax(scores, axis=-1), 0.0)  # (..., L_q, L_k)
    return weights @ v, weights  # (..., L_q, d_v)
    ### END SOLUTION


def self_attention(x, w_q, w_k, w_v, causal=False):
    """Self-attention: queries, keys and values are three projections of the same ``x``.

    Shapes: x (..., T, d_model), w_q and w_k (d_model, d_k), w_v (d_model, d_v)
    -> (out (..., T, d_v), weights (..., T, T)).
    With ``causal=True`` query i sees keys 0..i only.
    """
    ### BEGIN SOLUTION
    ### HINT: Q = x @ w_q (row-major, as in the lessons); use causal_mask from masks.py.
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # (..., T, d_k), (..., T, d_k), (..., T, d_v)
    mask = causal_mask(x.shape[-2]) if causal else None  # (T, T) broadcasts over leading axes
    return scaled_dot_product_attention(q, k, v, mask)
    ### END SOLUTION


def cross_attention(x_q, x_kv, w_q, w_k, w_v, kv_padding_mask=None):
    """Cross-attention: queries from ``x_q`` (decoder), keys and values from ``x_kv`` (encoder).

    Shapes: x_q (B, L_q, d), x_kv (B, L_k, d), w_q and w_k (d, d_k), w_v (d, d_v),
    kv_padding_mask (B, L_k) bool, True at real encoder tokens
    -> (out (B, L_q, d_v), weights (B, L_q, L_k)). A sequence with no real encoder token gives
    each of its queries zero weights and a zero output.
    """
    ### BEGIN SOLUTION
    ### HINT: the padding mask hides keys from every query: give it a query axis, (B, 1, L_k).
    q = x_q @ w_q  # (B, L_q, d_k)
    k, v = x_kv @ w_k, x_kv @ w_v  # (B, L_k, d_k), (B, L_k, d_v)
    mask = None if kv_padding_mask is None else kv_padding_mask[:, None, :]  # (B, 1, L_k)
    return scaled_dot_product_attention(q, k, v, mask)
    ### END SOLUTION
