"""Known wrong versions of online_softmax_attention, grouped_query_attention and kv_cache_step."""

import numpy as np
from attention import scaled_dot_product_attention
from masks import causal_mask

from attnlab.misconceptions import misconception


@misconception(
    "online_softmax_attention",
    "the running sums are never rescaled when the maximum grows",
    explanation="Each block's exponentials are taken against the running maximum at that time. When a later block raises the maximum, what was accumulated before must be multiplied by exp(m_old − m_new), or old and new terms are on different scales.",
    hint="Before adding a block: running_sum *= exp(m_old - m_new) and accumulator *= exp(m_old - m_new).",
)
def online_never_rescales(q, k, v, block_size, causal=False):
    n_q, n_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    running_max = np.full(lead + (n_q, 1), -np.inf)
    running_sum = np.zeros(lead + (n_q, 1))
    acc = np.zeros(lead + (n_q, v.shape[-1]))
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / np.sqrt(d_k)
        if causal:
            s = np.where(np.arange(n_q)[:, None] >= np.arange(start, stop)[None, :], s, -np.inf)
        running_max = np.maximum(running_max, s.max(axis=-1, keepdims=True))
        p = np.exp(s - running_max)
        running_sum = running_sum + p.sum(axis=-1, keepdims=True)
        acc = acc + p @ v[..., start:stop, :]
    return acc / running_sum


@misconception(
    "grouped_query_attention",
    "query head h reads kv head h % h_kv instead of h // group",
    explanation="Query heads are grouped in consecutive runs: with 8 query heads and 2 kv heads, heads 0–3 read kv head 0 and heads 4–7 kv head 1. np.tile (h % h_kv) deals them out round-robin instead.",
    hint="Use np.repeat(k, group, axis=1), not np.tile.",
)
def gqa_modulo_mapping(q, k, v, causal=False):
    group = q.shape[1] // k.shape[1]
    k, v = np.tile(k, (1, group, 1, 1)), np.tile(v, (1, group, 1, 1))
    return scaled_dot_product_attention(q, k, v, causal_mask(q.shape[-2]) if causal else None)


@misconception(
    "kv_cache_step",
    "the new cache forgets the old tokens",
    explanation="The cache must grow by one key and one value per step; returning only the newest token's makes every later step attend to itself alone.",
    hint="Return {'k': concatenate([cache['k'], k_t]), 'v': ...} along the token axis.",
)
def kv_cache_forgets_old_tokens(x_t, cache, w_q, w_k, w_v):
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v
    k_all = k_t if cache is None else np.concatenate([cache["k"], k_t], axis=-2)
    v_all = v_t if cache is None else np.concatenate([cache["v"], v_t], axis=-2)
    out_t, _ = scaled_dot_product_attention(q_t, k_all, v_all)
    return out_t, {"k": k_t, "v": v_t}
