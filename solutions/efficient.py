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
    ### BEGIN SOLUTION
    ### HINT: keep per query a running max m, a running sum l and an output accumulator; when a block raises m to m', multiply l and the accumulator by exp(m - m') before adding the block. Slice the mask per block (np.broadcast_to it to (..., L_q, L_k) first: a view, no memory). While a query has seen no visible key its m is -inf: shift by 0 instead of m', since -inf - (-inf) is nan; at the end a query whose l is still 0 saw no key: its output is 0, not 0 / 0.
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")
    n_queries, n_keys, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_queries, n_keys)))  # (..., L_q, L_k), a view
    running_max = np.full(lead + (n_queries, 1), -np.inf)  # (..., L_q, 1)
    running_sum = np.zeros(lead + (n_queries, 1))  # (..., L_q, 1)
    accumulated = np.zeros(lead + (n_queries, v.shape[-1]))  # (..., L_q, d_v)
    query_index = np.arange(n_queries)[:, None]  # (L_q, 1)
    for start in range(0, n_keys, block_size):
        stop = min(start + block_size, n_keys)
        block_scores = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.sqrt(d_k)  # (..., L_q, b)
        if causal:
            visible = query_index >= np.arange(start, stop)[None, :]  # (L_q, b)
            block_scores = np.where(visible, block_scores, -np.inf)
        if mask is not None:
            block_scores = np.where(mask[..., start:stop], block_scores, -np.inf)
        new_max = np.maximum(running_max, block_scores.max(axis=-1, keepdims=True))
        # A query that has seen no visible key yet has a max of -inf: it shifts by 0 instead, so
        # that -inf - (-inf) = nan is never computed and its sums stay exactly 0.
        shift = np.where(new_max > -np.inf, new_max, 0.0)  # (..., L_q, 1)
        rescale = np.exp(running_max - shift)  # (..., L_q, 1)
        block_weights = np.exp(block_scores - shift)  # (..., L_q, b), unnormalised
        running_sum = running_sum * rescale + block_weights.sum(axis=-1, keepdims=True)
        accumulated = accumulated * rescale + block_weights @ v[..., start:stop, :]
        running_max = new_max
    # A query that may see no key has a running sum of 0 and gets a zero output, not 0 / 0.
    return np.divide(accumulated, running_sum, out=np.zeros_like(accumulated), where=running_sum > 0)  # (..., L_q, d_v)
    ### END SOLUTION


def grouped_query_attention(q, k, v, causal=False, key_padding_mask=None):
    """Grouped-query attention: h_q query heads share h_kv key/value heads.

    Shapes: q (B, h_q, T, d), k and v (B, h_kv, T, d), h_q % h_kv == 0,
    key_padding_mask (B, T) bool, True at real tokens
    -> (out (B, h_q, T, d), weights (B, h_q, T, T)).
    Query head h reads key/value head h // (h_q / h_kv). A query that may see no key (left
    padding under ``causal=True``) gets zero weights and a zero output in every head.
    """
    ### BEGIN SOLUTION
    ### HINT: with group = h_q // h_kv, np.repeat(k, group, axis=1) lines up kv head h // group with query head h; a (B, T) padding mask becomes (B, 1, 1, T), combined with the causal mask by &.
    h_q, h_kv = q.shape[1], k.shape[1]
    if h_q % h_kv:
        raise ValueError(f"h_q={h_q} query heads cannot share h_kv={h_kv} key/value heads evenly")
    group = h_q // h_kv
    k = np.repeat(k, group, axis=1)  # (B, h_q, T, d): head h gets kv head h // group
    v = np.repeat(v, group, axis=1)  # (B, h_q, T, d)
    mask = causal_mask(q.shape[-2]) if causal else None  # (T, T)
    if key_padding_mask is not None:
        keys_visible = key_padding_mask[:, None, None, :]  # (B, 1, 1, T)
        mask = keys_visible if mask is None else mask & keys_visible  # (B, 1, T, T)
    return scaled_dot_product_attention(q, k, v, mask)
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    ### HINT: append the new key and value along the token axis (-2); the newest query may see every cached key, so no causal mask is needed, only the padding mask as (B, 1, t+1).
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v  # (B, 1, d_k), (B, 1, d_k), (B, 1, d_v)
    if cache is not None:
        k_t = np.concatenate([cache["k"], k_t], axis=-2)  # (B, t+1, d_k)
        v_t = np.concatenate([cache["v"], v_t], axis=-2)  # (B, t+1, d_v)
    mask = None if key_padding_mask is None else key_padding_mask[:, None, :]  # (B, 1, t+1)
    out_t, _ = scaled_dot_product_attention(q_t, k_t, v_t, mask)  # (B, 1, d_v)
    return out_t, {"k": k_t, "v": v_t}
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    ### HINT: for each tile of queries, keep a running max m, a running sum l and an accumulator over the key tiles, exactly as online_softmax_attention does for all queries at once (rescale l and the accumulator by exp(m - m') when the max grows; shift by 0 while m is -inf). Mask each tile: the causal test compares the tile's query and key positions in the whole sequence, and a given mask is sliced per tile (np.broadcast_to it first: a view); with mask=None build no mask at all. At the end out = acc / l and lse = m + log(l): the max must be added back, since l was summed against it. Where l is 0 the query saw no key: out 0, lse -inf.
    if block_q < 1 or block_k < 1:
        raise ValueError(f"block_q and block_k must be at least 1, got {block_q} and {block_k}")
    n_queries, n_keys, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_queries, n_keys)))  # (..., L_q, L_k), a view
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], () if mask is None else mask.shape[:-2])
    out = np.zeros(lead + (n_queries, v.shape[-1]))  # (..., L_q, d_v)
    lse = np.full(lead + (n_queries,), -np.inf)  # (..., L_q)
    for q_start in range(0, n_queries, block_q):
        q_stop = min(q_start + block_q, n_queries)
        q_tile = q[..., q_start:q_stop, :]  # (..., b_q, d_k)
        query_index = np.arange(q_start, q_stop)[:, None]  # (b_q, 1): positions in the sequence
        running_max = np.full(lead + (q_stop - q_start, 1), -np.inf)  # (..., b_q, 1)
        running_sum = np.zeros(lead + (q_stop - q_start, 1))  # (..., b_q, 1)
        accumulated = np.zeros(lead + (q_stop - q_start, v.shape[-1]))  # (..., b_q, d_v)
        for k_start in range(0, n_keys, block_k):
            k_stop = min(k_start + block_k, n_keys)
            tile_scores = q_tile @ np.swapaxes(k[..., k_start:k_stop, :], -1, -2) / np.sqrt(d_k)  # (..., b_q, b_k)
            if causal:
                tile_scores = np.where(query_index >= np.arange(k_start, k_stop)[None, :], tile_scores, -np.inf)
            if mask is not None:
                tile_scores = np.where(mask[..., q_start:q_stop, k_start:k_stop], tile_scores, -np.inf)
            new_max = np.maximum(running_max, tile_scores.max(axis=-1, keepdims=True))
            shift = np.where(new_max > -np.inf, new_max, 0.0)  # 0 while the query has seen no key: no -inf - (-inf)
            rescale = np.exp(running_max - shift)  # (..., b_q, 1)
            tile_weights = np.exp(tile_scores - shift)  # (..., b_q, b_k), unnormalised
            running_sum = running_sum * rescale + tile_weights.sum(axis=-1, keepdims=True)
            accumulated = accumulated * rescale + tile_weights @ v[..., k_start:k_stop, :]
            running_max = new_max
        seen = running_sum > 0  # (..., b_q, 1): False for a query that may see no key
        out[..., q_start:q_stop, :] = np.divide(accumulated, running_sum, out=np.zeros_like(accumulated), where=seen)
        log_sum = np.log(running_sum, out=np.full_like(running_sum, -np.inf), where=seen)  # -inf where nothing was seen
        lse[..., q_start:q_stop] = (np.where(seen, running_max, 0.0) + log_sum)[..., 0]
    return out, lse
    ### END SOLUTION


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
    ### BEGIN SOLUTION
    ### HINT: D = (grad_out * out).sum(-1). For each tile of keys j and each tile of queries i: P = exp(S_ij - lse_i) is that tile of the weights (mask it as the forward does; shift by 0 where lse is -inf: every score of such a query is masked, so P is 0); dv_j += Pᵀ dO_i; dP = dO_i v_jᵀ; dS = P (dP - D_i) / √d_k; dq_i += dS k_j and dk_j += dSᵀ q_i.
    if block_q < 1 or block_k < 1:
        raise ValueError(f"block_q and block_k must be at least 1, got {block_q} and {block_k}")
    n_queries, n_keys, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_queries, n_keys)))  # (..., L_q, L_k), a view
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], () if mask is None else mask.shape[:-2], grad_out.shape[:-2])
    shift = np.where(lse > -np.inf, lse, 0.0)[..., None]  # (..., L_q, 1): 0 for a query that saw no key
    row_dot = np.sum(grad_out * out, axis=-1, keepdims=True)  # (..., L_q, 1): D = rowsum(dO ⊙ O) = rowsum(dA ⊙ A)
    grad_q = np.zeros(lead + q.shape[-2:])  # (..., L_q, d_k)
    grad_k = np.zeros(lead + k.shape[-2:])  # (..., L_k, d_k)
    grad_v = np.zeros(lead + v.shape[-2:])  # (..., L_k, d_v)
    for k_start in range(0, n_keys, block_k):
        k_stop = min(k_start + block_k, n_keys)
        k_tile, v_tile = k[..., k_start:k_stop, :], v[..., k_start:k_stop, :]  # (..., b_k, d_k), (..., b_k, d_v)
        for q_start in range(0, n_queries, block_q):
            q_stop = min(q_start + block_q, n_queries)
            q_tile, grad_out_tile = q[..., q_start:q_stop, :], grad_out[..., q_start:q_stop, :]
            tile_scores = q_tile @ np.swapaxes(k_tile, -1, -2) / np.sqrt(d_k)  # (..., b_q, b_k)
            if causal:
                visible = np.arange(q_start, q_stop)[:, None] >= np.arange(k_start, k_stop)[None, :]
                tile_scores = np.where(visible, tile_scores, -np.inf)
            if mask is not None:
                tile_scores = np.where(mask[..., q_start:q_stop, k_start:k_stop], tile_scores, -np.inf)
            weights = np.exp(tile_scores - shift[..., q_start:q_stop, :])  # (..., b_q, b_k): this tile of A
            grad_v[..., k_start:k_stop, :] += np.swapaxes(weights, -1, -2) @ grad_out_tile  # Σ_i A_ij dO_i
            grad_weights = grad_out_tile @ np.swapaxes(v_tile, -1, -2)  # (..., b_q, b_k): dA = dO vᵀ
            grad_scores = weights * (grad_weights - row_dot[..., q_start:q_stop, :]) / np.sqrt(d_k)  # through the 1/√d_k
            grad_q[..., q_start:q_stop, :] += grad_scores @ k_tile  # (..., b_q, d_k)
            grad_k[..., k_start:k_stop, :] += np.swapaxes(grad_scores, -1, -2) @ q_tile  # (..., b_k, d_k)
    return grad_q, grad_k, grad_v
    ### END SOLUTION
