"""Known wrong versions of online_softmax_attention, grouped_query_attention and kv_cache_step."""

import numpy as np
from attention import scaled_dot_product_attention
from efficient import kv_cache_step
from masks import causal_mask

from attnlab.misconceptions import Raised, misconception, probe


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


def _online(q, k, v, block_size, causal=False, *, rescale_sum=True, rescale_acc=True, global_positions=True, first_max=-np.inf, scale=None, last_block=True, inverted_rescale=False):
    """The reference's loop, with the one step a mistake changes as a switch."""
    n_q, n_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    running_max = np.full(lead + (n_q, 1), first_max)
    running_sum = np.zeros(lead + (n_q, 1))
    acc = np.zeros(lead + (n_q, v.shape[-1]))
    stops = range(0, n_k, block_size) if last_block else range(0, n_k - block_size + 1, block_size)
    for start in stops:
        stop = min(start + block_size, n_k)
        s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / (np.sqrt(d_k) if scale is None else scale)
        if causal:
            keys = np.arange(start, stop) if global_positions else np.arange(stop - start)
            s = np.where(np.arange(n_q)[:, None] >= keys[None, :], s, -np.inf)
        new_max = np.maximum(running_max, s.max(axis=-1, keepdims=True))
        rescale = np.exp(new_max - running_max) if inverted_rescale else np.exp(running_max - new_max)
        p = np.exp(s - new_max)
        running_sum = (running_sum * rescale if rescale_sum else running_sum) + p.sum(axis=-1, keepdims=True)
        acc = (acc * rescale if rescale_acc else acc) + p @ v[..., start:stop, :]
        running_max = new_max
    return acc / running_sum


@misconception(
    "online_softmax_attention",
    "the running sum is rescaled when the maximum grows, the accumulated output is not",
    explanation="When a block raises the running maximum from m to m', everything accumulated so far was weighted by exp(s - m): both the running sum and the output accumulator must be multiplied by exp(m - m'), or the old blocks count too much in the output.",
    hint="acc = acc * exp(m_old - m_new) + p @ v_block, just as for the running sum.",
)
def online_output_not_rescaled(q, k, v, block_size, causal=False):
    return _online(q, k, v, block_size, causal, rescale_acc=False)


@misconception(
    "online_softmax_attention",
    "the causal mask compares the query with the key's index inside its block",
    explanation="Key j of the block that starts at `start` is key start + j of the sequence. Comparing query i with j alone lets early queries see keys of later blocks (and hides nothing after the first block).",
    hint="Compare the query index with np.arange(start, stop), the keys' positions in the whole sequence.",
)
def online_causal_block_positions(q, k, v, block_size, causal=False):
    return _online(q, k, v, block_size, causal, global_positions=False)


@misconception(
    "grouped_query_attention",
    "query head h reads kv head h // h_kv instead of h // (h_q / h_kv)",
    explanation="The group size is h_q / h_kv query heads per kv head, and head h belongs to group h // group. Dividing by h_kv gives the same answer only when h_kv equals the group size; with 8 query and 2 kv heads it asks for kv heads 0 to 3.",
    hint="group = h_q // h_kv; kv head = h // group (np.repeat(k, group, axis=1) does it for every head).",
)
def gqa_divides_by_h_kv(q, k, v, causal=False):
    h_q, h_kv = q.shape[1], k.shape[1]
    index = np.arange(h_q) // h_kv
    mask = causal_mask(q.shape[-2]) if causal else None
    return scaled_dot_product_attention(q, k[:, index], v[:, index], mask)


@misconception(
    "kv_cache_step",
    "the new token attends to itself only",
    explanation="The cache is there so the newest query can read every earlier key and value: causal attention lets token t see tokens 0..t. Attending to the new key and value alone ignores the whole context, even with the cache kept right.",
    hint="Attend with the concatenated keys and values (cache plus the new token), not with k_t and v_t alone.",
)
def kv_cache_attends_to_new_token_only(x_t, cache, w_q, w_k, w_v):
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v
    out_t, _ = scaled_dot_product_attention(q_t, k_t, v_t)
    k_all = k_t if cache is None else np.concatenate([cache["k"], k_t], axis=-2)
    v_all = v_t if cache is None else np.concatenate([cache["v"], v_t], axis=-2)
    return out_t, {"k": k_all, "v": v_all}


@misconception(
    "kv_cache_step",
    "the new key and value are put in front of the cache",
    explanation="The output does not depend on the order of the keys, but the cache is a record of the sequence: position t's key must come after positions 0..t-1, or anything that reads positions from it (a causal mask, RoPE, the next file's tests) goes wrong.",
    hint="np.concatenate([cache['k'], k_t], axis=-2): old tokens first.",
)
def kv_cache_new_token_first(x_t, cache, w_q, w_k, w_v):
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k_t = np.concatenate([k_t, cache["k"]], axis=-2)
        v_t = np.concatenate([v_t, cache["v"]], axis=-2)
    out_t, _ = scaled_dot_product_attention(q_t, k_t, v_t)
    return out_t, {"k": k_t, "v": v_t}


@misconception(
    "online_softmax_attention",
    "the running maximum starts at 0 instead of -inf",
    explanation="The running maximum must start below every score, at -inf, so that the first block sets it. Starting at 0 changes nothing mathematically while some score is positive, but a query whose scores are all far below 0 gets exp(s − 0) that underflows to 0, and 0 / 0 = nan.",
    hint="running_max = np.full(..., -np.inf).",
)
def online_max_starts_at_zero(q, k, v, block_size, causal=False):
    return _online(q, k, v, block_size, causal, first_max=0.0)


@misconception(
    "online_softmax_attention",
    "the rescale factor upside down: exp(m_new − m_old)",
    explanation="What was accumulated against m_old must be brought to the new maximum: multiplied by exp(m_old − m_new) ≤ 1. exp(m_new − m_old) grows instead, and on the first block (m_old = −inf) it is inf.",
    hint="rescale = np.exp(running_max - new_max).",
)
def online_rescale_inverted(q, k, v, block_size, causal=False):
    with np.errstate(all="ignore"):
        return _online(q, k, v, block_size, causal, inverted_rescale=True)


@misconception(
    "online_softmax_attention",
    "a last, shorter block is never read",
    explanation="range(0, L_k - block_size + 1, block_size) stops at the last full block: when block_size does not divide L_k, the remaining keys are never attended to.",
    hint="range(0, L_k, block_size), and slice k[..., start:start + block_size] (the last slice is simply shorter).",
)
def online_last_block_dropped(q, k, v, block_size, causal=False):
    return _online(q, k, v, block_size, causal, last_block=False)


@misconception(
    "online_softmax_attention",
    "no 1/√d_k scale on the block scores",
    explanation="Online softmax computes the same attention as scaled_dot_product_attention, scores q kᵀ / √d_k; leaving the scale out changes every weight.",
    hint="Divide each block's scores by np.sqrt(d_k).",
)
def online_unscaled(q, k, v, block_size, causal=False):
    return _online(q, k, v, block_size, causal, scale=1.0)


@misconception(
    "online_softmax_attention",
    "a softmax within each block, and the blocks' outputs averaged",
    explanation="One softmax runs over all the keys: a block whose scores are higher must get more of the weight. Normalising each block on its own and averaging the blocks gives every block the same total weight, whatever its scores.",
    hint="Keep one running maximum and one running sum across the blocks, and divide once, at the end.",
)
def online_blocks_averaged(q, k, v, block_size, causal=False):
    n_q, n_k = q.shape[-2], k.shape[-2]
    outputs = []
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        mask = np.arange(n_q)[:, None] >= np.arange(start, stop)[None, :] if causal else None
        with np.errstate(all="ignore"):
            out, _ = scaled_dot_product_attention(q, k[..., start:stop, :], v[..., start:stop, :], mask)
        outputs.append(np.nan_to_num(out))
    return sum(outputs) / len(outputs)


@misconception(
    "grouped_query_attention",
    "the key/value heads repeated along the tokens (axis 2), not the heads",
    explanation="np.repeat(k, group, axis=1) makes one key/value head per query head. Along axis 2 it repeats each token group times instead: the head axes no longer line up (h_kv against h_q) and the tokens are duplicated.",
    hint="np.repeat(k, group, axis=1) and np.repeat(v, group, axis=1).",
)
def gqa_repeat_on_tokens(q, k, v, causal=False):
    group = q.shape[1] // k.shape[1]
    mask = causal_mask(q.shape[-2]) if causal else None
    try:
        return scaled_dot_product_attention(q, np.repeat(k, group, axis=2), np.repeat(v, group, axis=2), mask)
    except ValueError as error:
        return Raised(type(error).__name__)


@misconception(
    "grouped_query_attention",
    "causal=True is ignored",
    explanation="Grouped-query attention is used in decoders: with causal=True query i sees keys 0..i only. Without the mask every head reads the future.",
    hint="Pass causal_mask(T) when causal is True.",
)
def gqa_ignores_causal(q, k, v, causal=False):
    group = q.shape[1] // k.shape[1]
    return scaled_dot_product_attention(q, np.repeat(k, group, axis=1), np.repeat(v, group, axis=1))


@misconception(
    "kv_cache_step",
    "the new key and value appended along the feature axis",
    explanation="The cache grows by one token per step: k is (B, t, d_k) and the new key (B, 1, d_k) goes after it along the token axis, -2. Along -1 it makes a wider key, which fails against the query (or against the cache once it holds more than one token).",
    hint="np.concatenate([cache['k'], k_t], axis=-2).",
)
def kv_cache_concat_features(x_t, cache, w_q, w_k, w_v):
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v
    try:
        if cache is not None:
            k_t = np.concatenate([cache["k"], k_t], axis=-1)
            v_t = np.concatenate([cache["v"], v_t], axis=-1)
        out_t, _ = scaled_dot_product_attention(q_t, k_t, v_t)
    except ValueError as error:
        return Raised(type(error).__name__)
    return out_t, {"k": k_t, "v": v_t}


@misconception(
    "kv_cache_step",
    "a (t+1) × (t+1) causal mask applied to the single new query",
    explanation="At a decoding step there is one query, the newest token, and it may see every cached key: its row of the causal mask is all True. A full causal mask broadcasts the one query row into t + 1 rows, so the output has t + 1 rows instead of 1.",
    hint="No mask is needed: attend with q_t against every cached key.",
)
def kv_cache_causal_mask(x_t, cache, w_q, w_k, w_v):
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k_t = np.concatenate([cache["k"], k_t], axis=-2)
        v_t = np.concatenate([cache["v"], v_t], axis=-2)
    out_t, _ = scaled_dot_product_attention(q_t, k_t, v_t, causal_mask(k_t.shape[-2]))
    return out_t, {"k": k_t, "v": v_t}


@misconception(
    "kv_cache_step",
    "scaled by √d_model (the width of x_t) instead of √d_k",
    explanation="The scale belongs to the width of the vectors dotted, the projected queries and keys (d_k = w_q.shape[1]), not to the input width d_model.",
    hint="Use scaled_dot_product_attention(q_t, k, v), which scales by the queries' own width.",
)
def kv_cache_scaled_by_d_model(x_t, cache, w_q, w_k, w_v):
    q_t, k_t, v_t = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k_t = np.concatenate([cache["k"], k_t], axis=-2)
        v_t = np.concatenate([cache["v"], v_t], axis=-2)
    width_fix = np.sqrt(q_t.shape[-1] / x_t.shape[-1])  # √d_k / √d_model: the reference's scale swapped for √d_model
    out_t, _ = scaled_dot_product_attention(q_t * width_fix, k_t, v_t)
    return out_t, {"k": k_t, "v": v_t}


_RNG = np.random.default_rng(70)
_Q, _K, _V = _RNG.normal(size=(3, 2)), _RNG.normal(size=(7, 2)), _RNG.normal(size=(7, 3))
probe("online_softmax_attention", "scores that grow block after block, L_q != L_k", _Q, _K * np.arange(1, 8)[:, None] * 3.0, _V, 2)
probe("online_softmax_attention", "causal over three blocks", _RNG.normal(size=(5, 2)), _RNG.normal(size=(5, 2)), _RNG.normal(size=(5, 3)), 2, causal=True)
probe("online_softmax_attention", "every score far below zero, blocks of 3 that do not divide L_k", np.abs(_RNG.normal(size=(2, 4))) + 0.5, _RNG.normal(size=(7, 4)) - np.array([600.0, 600.0, 0.0, 0.0]), _RNG.normal(size=(7, 2)), 3)
probe("grouped_query_attention", "8 query heads on 2 kv heads: h // group, h // h_kv and h % h_kv all differ", _RNG.normal(size=(1, 8, 3, 2)), _RNG.normal(size=(1, 2, 3, 2)), _RNG.normal(size=(1, 2, 3, 2)), causal=True)
probe("grouped_query_attention", "6 query heads on 2 kv heads, not causal", _RNG.normal(size=(2, 6, 2, 2)), _RNG.normal(size=(2, 2, 2, 2)), _RNG.normal(size=(2, 2, 2, 2)))
_WQ, _WK, _WV = _RNG.normal(size=(3, 2)), _RNG.normal(size=(3, 2)), _RNG.normal(size=(3, 4))
probe("kv_cache_step", "the first step, no cache", _RNG.normal(size=(2, 1, 3)), None, _WQ, _WK, _WV)
probe("kv_cache_step", "a step with two tokens cached", _RNG.normal(size=(2, 1, 3)), {"k": _RNG.normal(size=(2, 2, 2)), "v": _RNG.normal(size=(2, 2, 4))}, _WQ, _WK, _WV)


def _flash(q, k, v, block_q, block_k, causal=False, mask=None, *, rescale_acc=True, lse_with_max=True, lse_with_sum=True):
    """The reference's tiles, with the one step a mistake changes as a switch."""
    n_q, n_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    mask = np.ones((n_q, n_k), dtype=bool) if mask is None else mask
    mask = mask & causal_mask(n_q) if causal else mask
    mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], mask.shape[:-2])
    out, lse = np.zeros(lead + (n_q, v.shape[-1])), np.full(lead + (n_q,), -np.inf)
    for qs in range(0, n_q, block_q):
        qe = min(qs + block_q, n_q)
        m, l, acc = np.full(lead + (qe - qs, 1), -np.inf), np.zeros(lead + (qe - qs, 1)), np.zeros(lead + (qe - qs, v.shape[-1]))
        for ks in range(0, n_k, block_k):
            ke = min(ks + block_k, n_k)
            s = np.where(mask[..., qs:qe, ks:ke], q[..., qs:qe, :] @ np.swapaxes(k[..., ks:ke, :], -1, -2) / np.sqrt(d_k), -np.inf)
            new = np.maximum(m, s.max(axis=-1, keepdims=True))
            shift = np.where(new > -np.inf, new, 0.0)
            rescale, p = np.exp(m - shift), np.exp(s - shift)
            l = l * rescale + p.sum(axis=-1, keepdims=True)
            acc = (acc * rescale if rescale_acc else acc) + p @ v[..., ks:ke, :]
            m = new
        seen = l > 0
        out[..., qs:qe, :] = np.divide(acc, l, out=np.zeros_like(acc), where=seen)
        log_l = np.log(l, out=np.full_like(l, -np.inf), where=seen) if lse_with_sum else np.where(seen, 0.0, -np.inf)
        lse[..., qs:qe] = ((np.where(seen, m, 0.0) if lse_with_max else 0.0) + log_l)[..., 0]
    return out, lse


@misconception(
    "flash_attention",
    "lse = log(running sum), the running max forgotten",
    explanation="The running sum was accumulated against the running maximum: l = Σ exp(s − m). So log Σ exp(s) = m + log l; without m the stored lse is off by each query's maximum, and the backward pass rebuilds weights that do not sum to 1.",
    hint="lse = running_max + np.log(running_sum), with -inf where the sum is 0.",
)
def flash_lse_without_max(q, k, v, block_q, block_k, causal=False, mask=None):
    return _flash(q, k, v, block_q, block_k, causal, mask, lse_with_max=False)


@misconception(
    "flash_attention",
    "lse = the running max alone, the log of the sum forgotten",
    explanation="The maximum is only the largest term of the log-sum-exp: log Σ exp(s) = m + log Σ exp(s − m), and the sum is at least 1. Storing m alone makes every rebuilt weight exp(s − m) too large: they sum to l, not 1.",
    hint="lse = running_max + np.log(running_sum).",
)
def flash_lse_is_the_max(q, k, v, block_q, block_k, causal=False, mask=None):
    return _flash(q, k, v, block_q, block_k, causal, mask, lse_with_sum=False)


@misconception(
    "flash_attention",
    "a key tile that raises the maximum does not rescale the output accumulated so far",
    explanation="Within a tile of queries, each key tile's exponentials are taken against the running maximum at that time. When a later tile raises it from m to m', the running sum and the output accumulator must both be multiplied by exp(m − m'); rescaling the sum alone leaves the earlier tiles' values counting too much.",
    hint="acc = acc * np.exp(m_old - m_new) + p @ v_tile, as for the running sum.",
)
def flash_output_not_rescaled(q, k, v, block_q, block_k, causal=False, mask=None):
    return _flash(q, k, v, block_q, block_k, causal, mask, rescale_acc=False)


def _flash_backward(q, k, v, out, lse, grad_out, causal=False, mask=None, *, with_lse=True, with_d=True, scale=True):
    """The reference's recomputation, with the one step a mistake changes as a switch (vectorised: same values)."""
    n_q, n_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    mask = np.ones((n_q, n_k), dtype=bool) if mask is None else mask
    mask = mask & causal_mask(n_q) if causal else mask
    s = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k), -np.inf)
    shift = np.where(lse > -np.inf, lse, 0.0)[..., None] if with_lse else 0.0
    with np.errstate(all="ignore"):
        p = np.exp(s - shift)
        dv = np.swapaxes(p, -1, -2) @ grad_out
        dp = grad_out @ np.swapaxes(v, -1, -2)
        ds = p * (dp - np.sum(grad_out * out, axis=-1, keepdims=True)) if with_d else p * dp
        ds = ds / np.sqrt(d_k) if scale else ds
        return ds @ k, np.swapaxes(ds, -1, -2) @ q, dv


@misconception(
    "flash_attention_backward",
    "the softmax's backward without the D term: dS = A ⊙ dA",
    explanation="The softmax's vector-Jacobian product is dS = A ⊙ (dA − D), where D = rowsum(dA ⊙ A) is one number per query; FlashAttention computes it as rowsum(dO ⊙ O), which is the same. Leaving D out gives gradients whose rows no longer account for the weights summing to 1.",
    hint="D = (grad_out * out).sum(-1, keepdims=True); dS = A * (dA - D) / √d_k.",
)
def flash_backward_without_d(q, k, v, out, lse, grad_out, causal=False, mask=None):
    return _flash_backward(q, k, v, out, lse, grad_out, causal, mask, with_d=False)


@misconception(
    "flash_attention_backward",
    "the weights rebuilt as exp(scores), the stored lse not subtracted",
    explanation="The weights are A = exp(s − lse): the stored log-sum-exp is what normalises them, so each row sums to 1. exp(s) alone is unnormalised (and overflows for large scores); every gradient is then off by each query's sum of exponentials.",
    hint="A = np.exp(scores - lse[..., None]), with the scores masked to -inf first.",
)
def flash_backward_unnormalised(q, k, v, out, lse, grad_out, causal=False, mask=None):
    return _flash_backward(q, k, v, out, lse, grad_out, causal, mask, with_lse=False)


@misconception(
    "flash_attention_backward",
    "no 1/√d_k on dS",
    explanation="The scores are q kᵀ / √d_k, so the chain rule brings the same 1/√d_k into dq = dS k and dk = dSᵀ q. Without it dq and dk are √d_k times too large (dv is right).",
    hint="Divide dS by np.sqrt(d_k) before dq = dS @ k and dk = dSᵀ @ q.",
)
def flash_backward_no_scale(q, k, v, out, lse, grad_out, causal=False, mask=None):
    return _flash_backward(q, k, v, out, lse, grad_out, causal, mask, scale=False)


_FQ, _FK, _FV = _RNG.normal(size=(2, 5, 3)), _RNG.normal(size=(2, 7, 3)) * np.arange(1, 8)[:, None] * 2.0, _RNG.normal(size=(2, 7, 2))
probe("flash_attention", "tiles of 2 queries x 3 keys, scores that grow tile after tile, L_q != L_k", _FQ, _FK, _FV, 2, 3)
probe("flash_attention", "causal, tiles of 3 x 2", _RNG.normal(size=(5, 2)), _RNG.normal(size=(5, 2)), _RNG.normal(size=(5, 3)), 3, 2, causal=True)


def _flash_probe(q, k, v, grad_out, causal=False):
    """A backward probe's arguments: the reference's own out and lse for q, k, v."""
    full = causal_mask(q.shape[-2]) if causal else None
    out, weights = scaled_dot_product_attention(q, k, v, full)
    with np.errstate(divide="ignore"):
        scores = np.where(full if full is not None else True, q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), -np.inf)
        lse = np.log(np.sum(np.exp(scores - scores.max(-1, keepdims=True)), axis=-1)) + scores.max(-1)
    return q, k, v, out, lse, grad_out


probe("flash_attention_backward", "L_q != L_k, d_k != d_v", *_flash_probe(_RNG.normal(size=(3, 4)), _RNG.normal(size=(5, 4)), _RNG.normal(size=(5, 2)), _RNG.normal(size=(3, 2))))
probe("flash_attention_backward", "causal, batched, scores of a few units", *_flash_probe(_RNG.normal(size=(2, 4, 2)) * 2.0, _RNG.normal(size=(2, 4, 2)) * 2.0, _RNG.normal(size=(2, 4, 3)), _RNG.normal(size=(2, 4, 3)), causal=True), causal=True)


@misconception(
    "kv_cache_step",
    "the cache it is given is updated in place",
    explanation="Writing the new keys and values into the dict passed in (cache[\"k\"] = ...) changes the caller's cache: a caller that keeps the old cache (beam search, a retried step, a second sequence sharing a prefix) finds it grown under it. The step's own output is right, which is why this goes unnoticed.",
    hint="Return a new dict: {\"k\": np.concatenate([cache[\"k\"], k_t], axis=-2), \"v\": ...}, and leave the one passed in as it was.",
    changes_its_arguments=True,
)
def kv_cache_updates_its_input(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    out_t, new_cache = kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask)
    if cache is None:
        return out_t, new_cache
    cache.update(new_cache)
    return out_t, cache
