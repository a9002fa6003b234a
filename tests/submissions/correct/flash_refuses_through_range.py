"""Refuses negative blocks itself, and a block of 0 through range(), whose ValueError is the one the contract asks for.

file: efficient.py
"""

import numpy as np

from masks import causal_mask


def flash_attention(q, k, v, block_q, block_k, causal=False, mask=None):
    if block_q < 0 or block_k < 0:  # a block of 0: range() refuses its step with ValueError itself
        raise ValueError(f"block sizes cannot be negative, got {block_q} and {block_k}")
    n_queries, n_keys, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    if mask is None:
        mask = np.ones((n_queries, n_keys), dtype=bool)
    if causal:
        mask = mask & causal_mask(n_queries)  # (..., L_q, L_k)
    mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_queries, n_keys)))  # (..., L_q, L_k), a view
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], mask.shape[:-2])
    out = np.zeros(lead + (n_queries, v.shape[-1]))  # (..., L_q, d_v)
    lse = np.full(lead + (n_queries,), -np.inf)  # (..., L_q)
    for q_start in range(0, n_queries, block_q):
        q_stop = min(q_start + block_q, n_queries)
        q_tile = q[..., q_start:q_stop, :]  # (..., b_q, d_k)
        running_max = np.full(lead + (q_stop - q_start, 1), -np.inf)  # (..., b_q, 1)
        running_sum = np.zeros(lead + (q_stop - q_start, 1))  # (..., b_q, 1)
        accumulated = np.zeros(lead + (q_stop - q_start, v.shape[-1]))  # (..., b_q, d_v)
        for k_start in range(0, n_keys, block_k):
            k_stop = min(k_start + block_k, n_keys)
            tile_scores = q_tile @ np.swapaxes(k[..., k_start:k_stop, :], -1, -2) / np.sqrt(d_k)  # (..., b_q, b_k)
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
