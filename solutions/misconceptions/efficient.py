"""Known wrong versions of online_softmax_attention, grouped_query_attention, kv_cache_step and FlashAttention's two passes."""

import numpy as np
from attention import scaled_dot_product_attention
from efficient import flash_attention, flash_attention_backward, kv_cache_step
from masks import causal_mask

from attnlab.misconceptions import Alternatives, Raised, misconception, probe


def _online(q, k, v, block_size, causal=False, mask=None, *, normalise=True, rescale_sum=True, rescale_acc=True, global_positions=True, first_max=-np.inf, scale=None, last_block=True, inverted_rescale=False, see_own_key=True, use_mask=True, use_causal=True):
    """The reference's loop, with the one step a mistake changes as a switch; two ways to end it:
    a query that saw no key gets 0 (the guard the contract asks for) or 0 / 0 (no guard)."""
    n_q, n_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    if mask is not None and use_mask:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    else:
        mask = None
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    endings = []
    for guarded in (True, False):
        running_max = np.full(lead + (n_q, 1), first_max)
        running_sum = np.zeros(lead + (n_q, 1))
        acc = np.zeros(lead + (n_q, v.shape[-1]))
        stops = range(0, n_k, block_size) if last_block else range(0, n_k - block_size + 1, block_size)
        with np.errstate(all="ignore"):
            for start in stops:
                stop = min(start + block_size, n_k)
                s = q @ np.swapaxes(k[..., start:stop, :], -1, -2) / (np.sqrt(d_k) if scale is None else scale)
                if causal and use_causal:
                    keys = np.arange(start, stop) if global_positions else np.arange(stop - start)
                    queries = np.arange(n_q)[:, None]
                    s = np.where(queries >= keys[None, :] if see_own_key else queries > keys[None, :], s, -np.inf)
                if mask is not None:
                    s = np.where(mask[..., start:stop], s, -np.inf)
                new_max = np.maximum(running_max, s.max(axis=-1, keepdims=True))
                shift = np.where(new_max > -np.inf, new_max, 0.0) if guarded else new_max
                rescale = np.exp(shift - running_max) if inverted_rescale else np.exp(running_max - shift)
                p = np.exp(s - shift)
                running_sum = (running_sum * rescale if rescale_sum else running_sum) + p.sum(axis=-1, keepdims=True)
                acc = (acc * rescale if rescale_acc else acc) + p @ v[..., start:stop, :]
                running_max = new_max
            if not normalise:
                endings.append(acc)
            else:
                endings.append(np.divide(acc, running_sum, out=np.zeros_like(acc), where=running_sum > 0) if guarded else acc / running_sum)
    return Alternatives(endings)


@misconception(
    "online_softmax_attention",
    "the running sums are never rescaled when the maximum grows",
    explanation="Each block's exponentials are taken against the running maximum at that time. When a later block raises the maximum, what was accumulated before must be multiplied by exp(m_old − m_new), or old and new terms are on different scales.",
    hint="Before adding a block: running_sum *= exp(m_old - m_new) and accumulator *= exp(m_old - m_new).",
)
def online_never_rescales(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, rescale_sum=False, rescale_acc=False)


@misconception(
    "online_softmax_attention",
    "the running sum is rescaled when the maximum grows, the accumulated output is not",
    explanation="When a block raises the running maximum from m to m', everything accumulated so far was weighted by exp(s - m): both the running sum and the output accumulator must be multiplied by exp(m - m'), or the old blocks count too much in the output.",
    hint="acc = acc * exp(m_old - m_new) + p @ v_block, just as for the running sum.",
)
def online_output_not_rescaled(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, rescale_acc=False)


@misconception(
    "online_softmax_attention",
    "the accumulated output is rescaled when the maximum grows, the running sum is not",
    explanation="The running sum and the output accumulator were both summed against the old maximum m: when a block raises it to m', both must be multiplied by exp(m - m'). Rescaling only the output leaves the old blocks counting too much in the denominator, so the output comes out too small.",
    hint="running_sum = running_sum * exp(m_old - m_new) + p.sum(-1, keepdims=True), just as for the accumulator.",
)
def online_sum_not_rescaled(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, rescale_sum=False)


@misconception(
    "online_softmax_attention",
    "the causal mask compares the query with the key's index inside its block",
    explanation="Key j of the block that starts at `start` is key start + j of the sequence. Comparing query i with j alone lets early queries see keys of later blocks (and hides nothing after the first block).",
    hint="Compare the query index with np.arange(start, stop), the keys' positions in the whole sequence.",
)
def online_causal_block_positions(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, global_positions=False)


@misconception(
    "online_softmax_attention",
    "the causal test is query > key: each query is hidden from its own key",
    explanation="Causal attention lets query i see keys 0..i, its own position included (the lower triangle with its diagonal). Testing i > j hides the diagonal: query 0 then sees no key at all, and every other query misses itself.",
    hint="Keep the keys with j <= i: np.arange(n_q)[:, None] >= np.arange(start, stop)[None, :].",
)
def online_causal_hides_the_diagonal(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, see_own_key=False)


@misconception(
    "online_softmax_attention",
    "the mask argument is never applied",
    explanation="A mask (True = may attend) hides keys from a query: padding, another document, a window. The online softmax applies it block by block, slicing the same keys out of the mask as out of k; ignoring it lets every query read the hidden keys.",
    hint="Broadcast the mask to (..., L_q, L_k) with np.broadcast_to (a view), and in each block set the scores where mask[..., start:stop] is False to -inf.",
)
def online_ignores_mask(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, use_mask=False)


@misconception(
    "online_softmax_attention",
    "the running maximum starts at 0 instead of -inf",
    explanation="The running maximum must start below every score, at -inf, so that the first block sets it. Starting at 0 changes nothing mathematically while some score is positive, but a query whose scores are all far below 0 gets exp(s − 0) that underflows to 0, and 0 / 0 = nan.",
    hint="running_max = np.full(..., -np.inf).",
)
def online_max_starts_at_zero(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, first_max=0.0)


@misconception(
    "online_softmax_attention",
    "the rescale factor upside down: exp(m_new − m_old)",
    explanation="What was accumulated against m_old must be brought to the new maximum: multiplied by exp(m_old − m_new) ≤ 1. exp(m_new − m_old) grows instead, and on the first block (m_old = −inf) it is inf.",
    hint="rescale = np.exp(running_max - new_max).",
)
def online_rescale_inverted(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, inverted_rescale=True)


@misconception(
    "online_softmax_attention",
    "a last, shorter block is never read",
    explanation="range(0, L_k - block_size + 1, block_size) stops at the last full block: when block_size does not divide L_k, the remaining keys are never attended to.",
    hint="range(0, L_k, block_size), and slice k[..., start:start + block_size] (the last slice is simply shorter).",
)
def online_last_block_dropped(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, last_block=False)


@misconception(
    "online_softmax_attention",
    "no 1/√d_k scale on the block scores",
    explanation="Online softmax computes the same attention as scaled_dot_product_attention, scores q kᵀ / √d_k; leaving the scale out changes every weight.",
    hint="Divide each block's scores by np.sqrt(d_k).",
)
def online_unscaled(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, scale=1.0)


@misconception(
    "online_softmax_attention",
    "a softmax within each block, and the blocks' outputs averaged",
    explanation="One softmax runs over all the keys: a block whose scores are higher must get more of the weight. Normalising each block on its own and averaging the blocks gives every block the same total weight, whatever its scores.",
    hint="Keep one running maximum and one running sum across the blocks, and divide once, at the end.",
)
def online_blocks_averaged(q, k, v, block_size, causal=False, mask=None):
    n_q, n_k = q.shape[-2], k.shape[-2]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    outputs = []
    for start in range(0, n_k, block_size):
        stop = min(start + block_size, n_k)
        visible = np.arange(n_q)[:, None] >= np.arange(start, stop)[None, :] if causal else None
        if mask is not None:
            visible = mask[..., start:stop] if visible is None else visible & mask[..., start:stop]
        out, _ = scaled_dot_product_attention(q, k[..., start:stop, :], v[..., start:stop, :], visible)
        outputs.append(out)
    return sum(outputs) / len(outputs)



@misconception(
    "online_softmax_attention",
    "a query whose first blocks are all masked gets nan: no guard while its maximum is -inf",
    explanation="A query that has seen no visible key yet has a running maximum of -inf, and shifting by it computes -inf - (-inf) = nan, in the rescale factor and in the block's weights: the nan stays in its sums for good, so a query whose first keys are masked (left padding, a causal mask over blocks) ends as nan, and one that may see no key at all as 0 / 0. The shift must be 0 while the maximum is -inf, and a query whose sum stays 0 gets a zero output.",
    hint="shift = np.where(m_new > -np.inf, m_new, 0.0); rescale by np.exp(m - shift) and weigh the block by np.exp(s - shift); at the end divide only where l > 0 and give 0 elsewhere.",
)
def online_blind_rows_nan(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask)[1]  # the ending without the guard


_RNG = np.random.default_rng(70)
_Q, _K, _V = _RNG.normal(size=(3, 2)), _RNG.normal(size=(7, 2)), _RNG.normal(size=(7, 3))
probe("online_softmax_attention", "scores that grow block after block, L_q != L_k", _Q, _K * np.arange(1, 8)[:, None] * 3.0, _V, 2)
probe("online_softmax_attention", "causal over three blocks", _RNG.normal(size=(5, 2)), _RNG.normal(size=(5, 2)), _RNG.normal(size=(5, 3)), 2, causal=True)
probe("online_softmax_attention", "every score far below zero, blocks of 3 that do not divide L_k", np.abs(_RNG.normal(size=(2, 4))) + 0.5, _RNG.normal(size=(7, 4)) - np.array([600.0, 600.0, 0.0, 0.0]), _RNG.normal(size=(7, 2)), 3)
probe("online_softmax_attention", "a mask of the keys over two blocks, every query sees a key", _RNG.normal(size=(3, 2)), _RNG.normal(size=(4, 2)) * 2.0, _RNG.normal(size=(4, 2)), 2, mask=np.array([[True, False, False, True]]))
_BLIND = np.random.default_rng(71)  # its own generator: the probes after it keep their inputs
probe("online_softmax_attention", "a mask whose first block hides every key of one query and every key of another", _BLIND.normal(size=(3, 2)), _BLIND.normal(size=(4, 2)), _BLIND.normal(size=(4, 2)), 2, mask=np.array([[True, True, False, True], [False, False, True, False], [False, False, False, False]]))


def _gqa(q, k, v, causal=False, key_padding_mask=None, *, heads=None, use_causal=True, use_padding=True, padding_axes=(slice(None), None, None, slice(None))):
    """The reference with the key/value head each query head reads as a switch (``heads``: an
    index per query head; None reads h // group)."""
    group = q.shape[1] // k.shape[1]
    index = np.arange(q.shape[1]) // group if heads is None else heads
    mask = causal_mask(q.shape[-2]) if causal and use_causal else None
    if key_padding_mask is not None and use_padding:
        keys_visible = key_padding_mask[padding_axes]
        mask = keys_visible if mask is None else mask & keys_visible
    try:
        return scaled_dot_product_attention(q, k[:, index], v[:, index], mask)
    except ValueError as error:
        return Raised(type(error).__name__)


@misconception(
    "grouped_query_attention",
    "query head h reads kv head h % h_kv instead of h // group",
    explanation="Query heads are grouped in consecutive runs: with 8 query heads and 2 kv heads, heads 0–3 read kv head 0 and heads 4–7 kv head 1. np.tile (h % h_kv) deals them out round-robin instead.",
    hint="Use np.repeat(k, group, axis=1), not np.tile.",
)
def gqa_modulo_mapping(q, k, v, causal=False, key_padding_mask=None):
    return _gqa(q, k, v, causal, key_padding_mask, heads=np.arange(q.shape[1]) % k.shape[1])


@misconception(
    "grouped_query_attention",
    "query head h reads kv head h // h_kv instead of h // (h_q / h_kv)",
    explanation="The group size is h_q / h_kv query heads per kv head, and head h belongs to group h // group. Dividing by h_kv gives the same answer only when h_kv equals the group size; with 8 query and 2 kv heads it asks for kv heads 0 to 3.",
    hint="group = h_q // h_kv; kv head = h // group (np.repeat(k, group, axis=1) does it for every head).",
)
def gqa_divides_by_h_kv(q, k, v, causal=False, key_padding_mask=None):
    return _gqa(q, k, v, causal, key_padding_mask, heads=np.arange(q.shape[1]) // k.shape[1])


@misconception(
    "grouped_query_attention",
    "the key/value heads repeated along the tokens (axis 2), not the heads",
    explanation="np.repeat(k, group, axis=1) makes one key/value head per query head. Along axis 2 it repeats each token group times instead: the head axes no longer line up (h_kv against h_q) and the tokens are duplicated.",
    hint="np.repeat(k, group, axis=1) and np.repeat(v, group, axis=1).",
)
def gqa_repeat_on_tokens(q, k, v, causal=False, key_padding_mask=None):
    group = q.shape[1] // k.shape[1]
    mask = causal_mask(q.shape[-2]) if causal else None
    if key_padding_mask is not None:
        keys_visible = key_padding_mask[:, None, None, :]
        mask = keys_visible if mask is None else mask & keys_visible
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
def gqa_ignores_causal(q, k, v, causal=False, key_padding_mask=None):
    return _gqa(q, k, v, causal, key_padding_mask, use_causal=False)


@misconception(
    "grouped_query_attention",
    "key_padding_mask is never applied",
    explanation="The padding mask (B, T), True at real tokens, hides the padded keys from every query of every head. Left unused, the queries read padding as if it were text.",
    hint="keys_visible = key_padding_mask[:, None, None, :] (B, 1, 1, T), combined with the causal mask by &.",
)
def gqa_ignores_key_padding(q, k, v, causal=False, key_padding_mask=None):
    return _gqa(q, k, v, causal, key_padding_mask, use_padding=False)


_MQ = _RNG.normal(size=(2, 4, 3, 2))
probe("grouped_query_attention", "8 query heads on 2 kv heads: h // group, h // h_kv and h % h_kv all differ", _RNG.normal(size=(1, 8, 3, 2)), _RNG.normal(size=(1, 2, 3, 2)), _RNG.normal(size=(1, 2, 3, 2)), causal=True)
probe("grouped_query_attention", "6 query heads on 2 kv heads, not causal", _RNG.normal(size=(2, 6, 2, 2)), _RNG.normal(size=(2, 2, 2, 2)), _RNG.normal(size=(2, 2, 2, 2)))
probe("grouped_query_attention", "4 query heads on one kv head (multi-query attention), a padding mask", _MQ, _RNG.normal(size=(2, 1, 3, 2)), _RNG.normal(size=(2, 1, 3, 2)), key_padding_mask=np.array([[True, True, False], [True, True, True]]))
probe("grouped_query_attention", "6 query heads on 3 kv heads: h // h_kv stays in range", _RNG.normal(size=(1, 6, 2, 2)), _RNG.normal(size=(1, 3, 2, 2)), _RNG.normal(size=(1, 3, 2, 2)))
probe("grouped_query_attention", "4 query heads on one kv head (multi-query attention), no mask", _RNG.normal(size=(1, 4, 3, 2)), _RNG.normal(size=(1, 1, 3, 2)), _RNG.normal(size=(1, 1, 3, 2)))
probe("grouped_query_attention", "as many sequences as query heads (2), one kv head, a padding mask: a mask on the wrong axis still fits", _RNG.normal(size=(2, 2, 3, 2)), _RNG.normal(size=(2, 1, 3, 2)), _RNG.normal(size=(2, 1, 3, 2)), key_padding_mask=np.array([[True, True, False], [True, True, True]]))


def _step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None, *, axis=-2, new_first=False, keep_old=True, attend_all=True, query_weight=None, scale_by_input=False, use_padding=True, causal=False, padding_as_given=False):
    """The reference's step with the one thing a mistake changes as a switch."""
    q_t, k_t, v_t = x_t @ (w_q if query_weight is None else query_weight), x_t @ w_k, x_t @ w_v
    k_all, v_all = k_t, v_t
    if cache is not None:
        pair = ((k_t, cache["k"]), (v_t, cache["v"])) if new_first else ((cache["k"], k_t), (cache["v"], v_t))
        k_all, v_all = (np.concatenate(p, axis=axis) for p in pair)
    mask = None if key_padding_mask is None or not use_padding else (key_padding_mask if padding_as_given else key_padding_mask[:, None, :])
    if causal:
        mask = causal_mask(k_all.shape[-2]) if mask is None else causal_mask(k_all.shape[-2]) & mask
    new_cache = {"k": k_all, "v": v_all} if keep_old else {"k": k_t, "v": v_t}
    if scale_by_input:
        q_t = q_t * np.sqrt(q_t.shape[-1] / x_t.shape[-1])
        # Written by hand, the step often fills with -inf and no guard: a step that sees no key is nan.
        scores = np.where(True if mask is None else mask, q_t @ np.swapaxes(k_all, -1, -2) / np.sqrt(q_t.shape[-1]), -np.inf)
        with np.errstate(all="ignore"):
            weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
            by_hand = (weights / weights.sum(axis=-1, keepdims=True)) @ v_all
        return Alternatives([(scaled_dot_product_attention(q_t, k_all, v_all, mask)[0], new_cache), (by_hand, new_cache)])
    out_t, _ = scaled_dot_product_attention(q_t, k_all if attend_all else k_t, v_all if attend_all else v_t, mask if attend_all else None)
    return out_t, new_cache


def _shapes_fail(step):
    """A mistake that breaks the shapes on some calls: what the student's code raises there."""

    def wrong(*args, **kwargs):
        try:
            return step(*args, **kwargs)
        except ValueError as error:
            return Raised(type(error).__name__)

    wrong.__name__ = step.__name__
    return wrong


@misconception(
    "kv_cache_step",
    "the new cache forgets the old tokens",
    explanation="The cache must grow by one key and one value per step; returning only the newest token's makes every later step attend to itself alone.",
    hint="Return {'k': concatenate([cache['k'], k_t]), 'v': ...} along the token axis.",
)
def kv_cache_forgets_old_tokens(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    return _step(x_t, cache, w_q, w_k, w_v, key_padding_mask, keep_old=False)


@misconception(
    "kv_cache_step",
    "the new token attends to itself only",
    explanation="The cache is there so the newest query can read every earlier key and value: causal attention lets token t see tokens 0..t. Attending to the new key and value alone ignores the whole context, even with the cache kept right.",
    hint="Attend with the concatenated keys and values (cache plus the new token), not with k_t and v_t alone.",
)
def kv_cache_attends_to_new_token_only(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    return _step(x_t, cache, w_q, w_k, w_v, key_padding_mask, attend_all=False)


@misconception(
    "kv_cache_step",
    "the new key and value are put in front of the cache",
    explanation="The output does not depend on the order of the keys, but the cache is a record of the sequence: position t's key must come after positions 0..t-1, or anything that reads positions from it (a causal mask, RoPE, the next file's tests) goes wrong.",
    hint="np.concatenate([cache['k'], k_t], axis=-2): old tokens first.",
)
def kv_cache_new_token_first(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    if key_padding_mask is not None:  # the mask's last column is the new token: it moves with it
        key_padding_mask = np.concatenate([key_padding_mask[:, -1:], key_padding_mask[:, :-1]], axis=-1)
    return _step(x_t, cache, w_q, w_k, w_v, key_padding_mask, new_first=True)


@misconception(
    "kv_cache_step",
    "the new key and value appended along the batch axis (0)",
    explanation="The cache grows by one token per step: k is (B, t, d_k) and the new key (B, 1, d_k) goes after it along the token axis, -2. Along axis 0 the cache gains a sequence instead of a token: with one sequence and one token cached, the step then answers for two sequences.",
    hint="np.concatenate([cache['k'], k_t], axis=-2) (axis=1 for these 3-D arrays).",
)
@_shapes_fail
def kv_cache_appended_on_the_batch_axis(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    return _step(x_t, cache, w_q, w_k, w_v, key_padding_mask, axis=0)


@misconception(
    "kv_cache_step",
    "a (t+1) × (t+1) causal mask applied to the single new query",
    explanation="At a decoding step there is one query, the newest token, and it may see every cached key: its row of the causal mask is all True. A full causal mask broadcasts the one query row into t + 1 rows, so the output has t + 1 rows instead of 1.",
    hint="No mask is needed: attend with q_t against every cached key.",
)
def kv_cache_causal_mask(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    return _step(x_t, cache, w_q, w_k, w_v, key_padding_mask, causal=True)


@misconception(
    "kv_cache_step",
    "scaled by √d_model (the width of x_t) instead of √d_k",
    explanation="The scale belongs to the width of the vectors dotted, the projected queries and keys (d_k = w_q.shape[1]), not to the input width d_model.",
    hint="Use scaled_dot_product_attention(q_t, k, v), which scales by the queries' own width.",
)
def kv_cache_scaled_by_d_model(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    return _step(x_t, cache, w_q, w_k, w_v, key_padding_mask, scale_by_input=True)


@misconception(
    "kv_cache_step",
    "key_padding_mask is never applied",
    explanation="Decoding a left-padded batch, the mask (B, t+1) says which of the cached tokens and the new one are real. Left unused, the new query reads the padding's keys and values as if they were text.",
    hint="Pass key_padding_mask[:, None, :] (B, 1, t+1) as the mask of the step's attention.",
)
def kv_cache_ignores_padding(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    return _step(x_t, cache, w_q, w_k, w_v, key_padding_mask, use_padding=False)


_WQ, _WK, _WV = _RNG.normal(size=(3, 2)), _RNG.normal(size=(3, 2)), _RNG.normal(size=(3, 4))


@misconception(
    "kv_cache_step",
    "the new token attends to the cache before its own key and value are appended",
    explanation="The newest query may see every earlier token and itself: under the causal mask, query t sees keys 0..t. Attending to the old cache and appending k_t, v_t afterwards leaves the token out of its own attention, so the steps no longer give causal self-attention's outputs.",
    hint="First k_all = np.concatenate([cache['k'], k_t], axis=-2) (and v), then attend q_t to k_all and v_all.",
)
def kv_cache_attends_before_appending(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    out_t, new_cache = kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask)
    if cache is None:
        return out_t, new_cache
    answers = []
    # The (B, t+1) mask passed as it is to t keys, or cut to the cached tokens.
    masks = (None, None) if key_padding_mask is None else (key_padding_mask[:, None, :], key_padding_mask[:, None, :-1])
    for mask in masks:
        try:
            answers.append((scaled_dot_product_attention(x_t @ w_q, cache["k"], cache["v"], mask)[0], new_cache))
        except ValueError as error:
            answers.append(Raised(type(error).__name__))
    return Alternatives(answers)


probe("kv_cache_step", "the first step, no cache", _RNG.normal(size=(2, 1, 3)), None, _WQ, _WK, _WV)
probe("kv_cache_step", "a step with two tokens cached", _RNG.normal(size=(2, 1, 3)), {"k": _RNG.normal(size=(2, 2, 2)), "v": _RNG.normal(size=(2, 2, 4))}, _WQ, _WK, _WV)
probe("kv_cache_step", "one sequence, one token cached", _RNG.normal(size=(1, 1, 3)), {"k": _RNG.normal(size=(1, 1, 2)), "v": _RNG.normal(size=(1, 1, 4))}, _WQ, _WK, _WV)
probe("kv_cache_step", "two tokens cached, the first sequence's first one padding", _RNG.normal(size=(2, 1, 3)), {"k": _RNG.normal(size=(2, 2, 2)) * 3.0, "v": _RNG.normal(size=(2, 2, 4))}, _WQ, _WK, _WV, key_padding_mask=np.array([[False, True, True], [True, True, True]]))


def _flash(q, k, v, block_q, block_k, causal=False, mask=None, *, normalise=True, rescale_acc=True, lse_with_max=True, lse_with_sum=True, use_mask=True, global_positions=True, use_causal=True, scale=None):
    """The reference's tiles, with the one step a mistake changes as a switch."""
    n_q, n_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    mask = np.ones((n_q, n_k), dtype=bool) if mask is None or not use_mask else mask
    mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2], mask.shape[:-2])
    out, lse = np.zeros(lead + (n_q, v.shape[-1])), np.full(lead + (n_q,), -np.inf)
    for qs in range(0, n_q, block_q):
        qe = min(qs + block_q, n_q)
        m, l, acc = np.full(lead + (qe - qs, 1), -np.inf), np.zeros(lead + (qe - qs, 1)), np.zeros(lead + (qe - qs, v.shape[-1]))
        for ks in range(0, n_k, block_k):
            ke = min(ks + block_k, n_k)
            visible = mask[..., qs:qe, ks:ke]
            if causal and use_causal:
                rows, keys = (np.arange(qs, qe), np.arange(ks, ke)) if global_positions else (np.arange(qe - qs), np.arange(ke - ks))
                visible = visible & (rows[:, None] >= keys[None, :])
            s = np.where(visible, q[..., qs:qe, :] @ np.swapaxes(k[..., ks:ke, :], -1, -2) / (np.sqrt(d_k) if scale is None else scale), -np.inf)
            new = np.maximum(m, s.max(axis=-1, keepdims=True))
            shift = np.where(new > -np.inf, new, 0.0)
            rescale, p = np.exp(m - shift), np.exp(s - shift)
            l = l * rescale + p.sum(axis=-1, keepdims=True)
            acc = (acc * rescale if rescale_acc else acc) + p @ v[..., ks:ke, :]
            m = new
        seen = l > 0
        out[..., qs:qe, :] = np.divide(acc, l, out=np.zeros_like(acc), where=seen) if normalise else acc
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


@misconception(
    "flash_attention",
    "the mask argument is never applied",
    explanation="A mask (True = may attend) hides keys from out and from lse alike: FlashAttention slices each (block_q, block_k) tile of it as it slices q and k. Ignoring it lets every query read the hidden keys, and its lse sums their scores too.",
    hint="Broadcast the mask to (..., L_q, L_k) with np.broadcast_to (a view) and set each tile's scores to -inf where mask[..., q_start:q_stop, k_start:k_stop] is False.",
)
def flash_ignores_mask(q, k, v, block_q, block_k, causal=False, mask=None):
    out, lse = _flash(q, k, v, block_q, block_k, causal, mask, use_mask=False)
    if mask is None:
        return out, lse
    # The answer's leading axes with the mask's or without them, as the code sized its arrays.
    lead = np.broadcast_shapes(out.shape[:-2], np.shape(mask)[:-2])
    return Alternatives([(out, lse), (np.broadcast_to(out, lead + out.shape[-2:]), np.broadcast_to(lse, lead + lse.shape[-1:]))])


@misconception(
    "flash_attention",
    "the causal mask compares positions inside the two tiles, not in the sequence",
    explanation="Query i of the tile that starts at q_start is query q_start + i of the sequence, and key j of a key tile is key k_start + j. Comparing i with j alone repeats the first tile's triangle in every tile: later queries lose keys they may see, and early ones see keys of later tiles.",
    hint="Compare np.arange(q_start, q_stop)[:, None] with np.arange(k_start, k_stop)[None, :].",
)
def flash_causal_tile_positions(q, k, v, block_q, block_k, causal=False, mask=None):
    return _flash(q, k, v, block_q, block_k, causal, mask, global_positions=False)


def _flash_backward(q, k, v, out, lse, grad_out, causal=False, mask=None, *, with_lse=True, with_d=True, scale=True, use_mask=True, use_causal=True):
    """The reference's recomputation, with the one step a mistake changes as a switch (vectorised: same values)."""
    n_q, n_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    mask = np.ones((n_q, n_k), dtype=bool) if mask is None or not use_mask else mask
    mask = mask & causal_mask(n_q) if causal and use_causal else mask
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
def flash_backward_without_d(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    return _flash_backward(q, k, v, out, lse, grad_out, causal, mask, with_d=False)


@misconception(
    "flash_attention_backward",
    "the weights rebuilt as exp(scores), the stored lse not subtracted",
    explanation="The weights are A = exp(s − lse): the stored log-sum-exp is what normalises them, so each row sums to 1. exp(s) alone is unnormalised (and overflows for large scores); every gradient is then off by each query's sum of exponentials.",
    hint="A = np.exp(scores - lse[..., None]), with the scores masked to -inf first.",
)
def flash_backward_unnormalised(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    return _flash_backward(q, k, v, out, lse, grad_out, causal, mask, with_lse=False)


@misconception(
    "flash_attention_backward",
    "no 1/√d_k on dS",
    explanation="The scores are q kᵀ / √d_k, so the chain rule brings the same 1/√d_k into dq = dS k and dk = dSᵀ q. Without it dq and dk are √d_k times too large (dv is right).",
    hint="Divide dS by np.sqrt(d_k) before dq = dS @ k and dk = dSᵀ @ q.",
)
def flash_backward_no_scale(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    return _flash_backward(q, k, v, out, lse, grad_out, causal, mask, scale=False)


@misconception(
    "flash_attention_backward",
    "the mask argument is never applied when the weights are rebuilt",
    explanation="The weights rebuilt from lse must be the forward's: exp(s − lse) on the keys the query may see, and 0 on the hidden ones. Without the mask, a hidden key's tile gets exp(s − lse) > 0: its weight, and so dv, dk and dq, take keys the forward never read.",
    hint="Set the tile's scores to -inf where the mask (sliced per tile) is False before exp(s - lse), as the forward did.",
)
def flash_backward_ignores_mask(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    return _flash_backward(q, k, v, out, lse, grad_out, causal, mask, use_mask=False)


_FQ, _FK, _FV = _RNG.normal(size=(2, 5, 3)), _RNG.normal(size=(2, 7, 3)) * np.arange(1, 8)[:, None] * 2.0, _RNG.normal(size=(2, 7, 2))
probe("flash_attention", "tiles of 2 queries x 3 keys, scores that grow tile after tile, L_q != L_k", _FQ, _FK, _FV, 2, 3)
probe("flash_attention", "causal, tiles of 3 x 2", _RNG.normal(size=(5, 2)), _RNG.normal(size=(5, 2)), _RNG.normal(size=(5, 3)), 3, 2, causal=True)
probe("flash_attention", "a mask of the keys, tiles of 2 x 2", _RNG.normal(size=(3, 2)), _RNG.normal(size=(4, 2)) * 2.0, _RNG.normal(size=(4, 2)), 2, 2, mask=np.array([[True, False, True, False]]))


def _flash_probe(q, k, v, grad_out, causal=False, mask=None):
    """A backward probe's arguments: the reference's own out and lse for q, k, v."""
    out, lse = flash_attention(q, k, v, 2, 2, causal, mask)
    return q, k, v, out, lse, grad_out


probe("flash_attention_backward", "L_q != L_k, d_k != d_v, tiles of 2 x 3", *_flash_probe(_RNG.normal(size=(3, 4)), _RNG.normal(size=(5, 4)), _RNG.normal(size=(5, 2)), _RNG.normal(size=(3, 2))), 2, 3)
probe("flash_attention_backward", "causal, batched, scores of a few units, tiles of 3 x 2", *_flash_probe(_RNG.normal(size=(2, 4, 2)) * 2.0, _RNG.normal(size=(2, 4, 2)) * 2.0, _RNG.normal(size=(2, 4, 3)), _RNG.normal(size=(2, 4, 3)), causal=True), 3, 2, causal=True)
_MASK_OF_KEYS = np.array([[True, False, True, True]])
probe("flash_attention_backward", "a mask of the keys, tiles of 2 x 2", *_flash_probe(_RNG.normal(size=(3, 2)), _RNG.normal(size=(4, 2)) * 2.0, _RNG.normal(size=(4, 3)), _RNG.normal(size=(3, 3)), mask=_MASK_OF_KEYS), 2, 2, mask=_MASK_OF_KEYS)


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


# ---------------------------------------------------------------- the algorithm, not its values
# Plain softmax over whole key rows gives the right values: only a memory-measured call (the
# memory tests on long keys) tells it from the online algorithm, and these entries predict that it
# holds too much there, the reference that it does not.


@misconception(
    "online_softmax_attention",
    "plain softmax over whole key rows (a chunk of queries at a time), not the online algorithm over key blocks",
    explanation="The values are right, but the point of the online softmax is never holding a whole row of scores: it walks over blocks of block_size keys with a running maximum and a running sum, rescaling what it has when the maximum grows, so its memory does not grow with the number of keys. Scoring every key of a query at once, even one query at a time, holds a row of L_k scores: at 2^20 keys that is 8 MiB per query, where the blocks need a few KiB.",
    hint="Loop over the keys in blocks of block_size: scores of (L_q, block_size), a running max m and sum l per query, and acc = acc * exp(m - m_new) + exp(s - m_new) @ v_block. Never slice all the keys of a query at once, and build no (L_q, L_k) mask.",
    holds_too_much=True,
)
def online_holds_the_full_matrix(q, k, v, block_size, causal=False, mask=None):
    full = causal_mask(q.shape[-2]) if causal else None
    full = mask if full is None else (full if mask is None else full & mask)
    return scaled_dot_product_attention(q, k, v, full)[0]


@misconception(
    "flash_attention",
    "each query tile scores every key at once, not key tile by key tile",
    explanation="The values are right, but FlashAttention never holds a whole row of scores: within a tile of block_q queries it walks over tiles of block_k keys with a running maximum and sum, so its memory is a (block_q, block_k) tile whatever L_k is. A tile of queries against all the keys holds block_q rows of L_k scores: at 2^20 keys, 8 MiB per query.",
    hint="Inside the loop over query tiles, loop over key tiles of block_k: scores of (block_q, block_k), with the running max, sum and accumulator of online_softmax_attention.",
    holds_too_much=True,
)
def flash_whole_key_rows(q, k, v, block_q, block_k, causal=False, mask=None):
    return flash_attention(q, k, v, block_q, block_k, causal, mask)


@misconception(
    "flash_attention_backward",
    "the weights rebuilt a whole row of keys (or the whole matrix) at a time, not tile by tile",
    explanation="The gradients are right, but FlashAttention's backward pass rebuilds the weights from lse one (block_q, block_k) tile at a time: that is why it stored lse instead of the weights. Rebuilding whole rows of L_k weights, or the (L_q, L_k) matrix, holds what the forward pass was written to avoid: at 2^20 keys, 8 MiB per query and per array.",
    hint="Loop over key tiles, and inside over query tiles: P = exp(S_tile - lse_tile), then add this tile's share to dv, dk and dq.",
    holds_too_much=True,
)
def flash_backward_whole_key_rows(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    return flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, causal, mask)


@misconception(
    "online_softmax_attention",
    "causal=True is ignored",
    explanation="With causal=True query i may see keys 0..i only: each block's scores must be hidden where the key's position in the sequence is after the query's. Ignored, every query reads the future.",
    hint="In each block, np.where(np.arange(L_q)[:, None] >= np.arange(start, stop)[None, :], scores, -np.inf) when causal.",
)
def online_ignores_causal(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, use_causal=False)


@misconception(
    "online_softmax_attention",
    "the block scores divided by d_k instead of √d_k",
    explanation="Online softmax computes the same attention as scaled_dot_product_attention: scores q kᵀ / √d_k. Dividing by d_k shrinks them √d_k times too much and flattens the weights.",
    hint="Divide each block's scores by np.sqrt(d_k).",
)
def online_scaled_by_d_k(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, scale=q.shape[-1])


@misconception(
    "flash_attention",
    "causal=True is ignored",
    explanation="With causal=True query i may see keys 0..i: in each tile, the keys whose position in the sequence is after the query's are hidden. Ignored, every query reads the future, in out and in lse.",
    hint="In each tile, np.where(np.arange(q_start, q_stop)[:, None] >= np.arange(k_start, k_stop)[None, :], scores, -np.inf) when causal.",
)
def flash_ignores_causal(q, k, v, block_q, block_k, causal=False, mask=None):
    return _flash(q, k, v, block_q, block_k, causal, mask, use_causal=False)


@misconception(
    "flash_attention",
    "no 1/√d_k scale on the tile scores",
    explanation="FlashAttention computes scaled dot-product attention, scores q kᵀ / √d_k, tile by tile; without the scale every weight, out and lse are those of other scores.",
    hint="Divide each tile's scores by np.sqrt(d_k).",
)
def flash_unscaled(q, k, v, block_q, block_k, causal=False, mask=None):
    return _flash(q, k, v, block_q, block_k, causal, mask, scale=1.0)


@misconception(
    "flash_attention_backward",
    "causal=True is ignored when the weights are rebuilt",
    explanation="The weights rebuilt from lse must be the forward's, which hid the future under causal=True: exp(s − lse) on later keys is not 0 without the mask, so dv, dk and dq take keys the forward never read.",
    hint="Hide the keys after each query (causal) before exp(s - lse), as the forward did.",
)
def flash_backward_ignores_causal(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    return _flash_backward(q, k, v, out, lse, grad_out, causal, mask, use_causal=False)


@misconception(
    "grouped_query_attention",
    "the (B, T) padding mask given one axis, (B, 1, T): the batch lines up with the heads",
    explanation="The scores are (B, h_q, T, T): a key padding mask must be (B, 1, 1, T) to reach every head and every query. (B, 1, T) broadcasts as (1, B, 1, T), so sequence b's mask lands on head b: it raises unless B equals the number of heads (or 1), and is silently wrong when it does.",
    hint="key_padding_mask[:, None, None, :].",
)
def gqa_padding_mask_missing_an_axis(q, k, v, causal=False, key_padding_mask=None):
    return _gqa(q, k, v, causal, key_padding_mask, padding_axes=(slice(None), None, slice(None)))


@misconception(
    "kv_cache_step",
    "the (B, t+1) padding mask passed as it is, without the query axis",
    explanation="The step's scores are (B, 1, t+1): one query per sequence. A (B, t+1) mask broadcasts against them as (1, B, t+1), so every sequence is masked with every sequence's row: the output grows a batch axis (or, with one sequence, happens to fit).",
    hint="key_padding_mask[:, None, :], (B, 1, t+1).",
)
@_shapes_fail
def kv_cache_padding_mask_as_given(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    return _step(x_t, cache, w_q, w_k, w_v, key_padding_mask, padding_as_given=True)


@misconception(
    "kv_cache_step",
    "one of q, k, v is made with another's weights (a copy-paste slip among w_q, w_k, w_v)",
    explanation="A decoding step makes three views of the new token, each with its own matrix: q = x_t W_Q, k = x_t W_K, v = x_t W_V. Using one matrix twice runs whenever the widths agree and gives other numbers, in the output or in the cache.",
    hint="q_t = x_t @ w_q, k_t = x_t @ w_k, v_t = x_t @ w_v.",
)
def kv_cache_projection_slip(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    answers = []
    for q_w, k_w, v_w in ((w_k, w_k, w_v), (w_q, w_q, w_v), (w_q, w_k, w_k), (w_v, w_k, w_v), (w_q, w_v, w_v), (w_q, w_k, w_q)):
        try:
            answers.append(kv_cache_step(x_t, cache, q_w, k_w, v_w, key_padding_mask))
        except ValueError as error:
            answers.append(Raised(type(error).__name__))
    # A slip in the cached keys or values shows in the cache the step returns: the slipped step's
    # own cache, against the cache passed in, is what the student's gives back.
    return Alternatives(answers)


@misconception(
    "kv_cache_step",
    "the softmax runs over the one query (axis 1), not over the keys",
    explanation="The step's scores are (B, 1, t+1): one query against t + 1 keys. A softmax over axis 1, the single query, makes every weight 1, so the output is the sum of every cached value instead of a blend.",
    hint="Normalise over the last axis, the keys (or call scaled_dot_product_attention).",
)
def kv_cache_softmax_over_queries(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    q, k, v = x_t @ w_q, x_t @ w_k, x_t @ w_v
    if cache is not None:
        k, v = np.concatenate([cache["k"], k], axis=-2), np.concatenate([cache["v"], v], axis=-2)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if key_padding_mask is not None:
        scores = np.where(key_padding_mask[:, None, :], scores, -np.inf)
    with np.errstate(all="ignore"):
        weights = np.exp(scores - scores.max(axis=-2, keepdims=True))
        weights = weights / weights.sum(axis=-2, keepdims=True)
        cleaned = np.nan_to_num(weights, nan=0.0)
    return Alternatives([(weights @ v, {"k": k, "v": v}), (cleaned @ v, {"k": k, "v": v})])


# ---------------------------------------------------------------- FlashAttention's backward, tile by tile


def _flash_backward_tiled(
    q,
    k,
    v,
    out,
    lse,
    grad_out,
    block_q,
    block_k,
    causal=False,
    mask=None,
    *,
    d_of="whole rows",
    scaled_scores=True,
    sign=1.0,
):
    """The reference's loops over tiles, with the step a mistake changes as a switch: D from the whole
    rows (dO ⊙ O) or from each tile's own weights; the scores rebuilt with or without their 1/√d_k;
    dS with its sign."""
    if block_q < 1 or block_k < 1:
        raise ValueError(f"block_q and block_k must be at least 1, got {block_q} and {block_k}")
    n_q, n_k, d_k = q.shape[-2], k.shape[-2], q.shape[-1]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    lead = np.broadcast_shapes(
        q.shape[:-2], k.shape[:-2], v.shape[:-2], () if mask is None else mask.shape[:-2], grad_out.shape[:-2]
    )
    shift = np.where(lse > -np.inf, lse, 0.0)[..., None]
    row_dot = np.sum(grad_out * out, axis=-1, keepdims=True)
    dq, dk, dv = np.zeros(lead + q.shape[-2:]), np.zeros(lead + k.shape[-2:]), np.zeros(lead + v.shape[-2:])
    with np.errstate(all="ignore"):
        for ks in range(0, n_k, block_k):
            ke = min(ks + block_k, n_k)
            k_tile, v_tile = k[..., ks:ke, :], v[..., ks:ke, :]
            for qs in range(0, n_q, block_q):
                qe = min(qs + block_q, n_q)
                q_tile, g_tile = q[..., qs:qe, :], grad_out[..., qs:qe, :]
                s = q_tile @ np.swapaxes(k_tile, -1, -2)
                s = s / np.sqrt(d_k) if scaled_scores else s
                if causal:
                    s = np.where(np.arange(qs, qe)[:, None] >= np.arange(ks, ke)[None, :], s, -np.inf)
                if mask is not None:
                    s = np.where(mask[..., qs:qe, ks:ke], s, -np.inf)
                p = np.exp(s - shift[..., qs:qe, :])
                dv[..., ks:ke, :] += np.swapaxes(p, -1, -2) @ g_tile
                dp = g_tile @ np.swapaxes(v_tile, -1, -2)
                if d_of == "tile":
                    d_rows = np.sum(p * dp, axis=-1, keepdims=True)
                else:
                    d_rows = row_dot[..., qs:qe, :]
                ds = sign * p * (dp - d_rows) / np.sqrt(d_k)
                dq[..., qs:qe, :] += ds @ k_tile
                dk[..., ks:ke, :] += np.swapaxes(ds, -1, -2) @ q_tile
    return dq, dk, dv


@misconception(
    "flash_attention_backward",
    "D computed inside the loop from each tile's own weights: rowsum(P ⊙ dP) of one key tile, not of the whole row",
    explanation="D = rowsum(dA ⊙ A) runs over every key of the row, which is why FlashAttention takes it once, before the loops, as rowsum(dO ⊙ O). Summing P ⊙ dP over one key tile gives only that tile's share: the gradients are right only when a single tile holds all the keys.",
    hint="Before the loops: D = (grad_out * out).sum(-1, keepdims=True); in each tile dS = P * (dP - D[rows of the tile]) / √d_k.",
)
def flash_backward_d_per_tile(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    return _flash_backward_tiled(q, k, v, out, lse, grad_out, block_q, block_k, causal, mask, d_of="tile")


@misconception(
    "flash_attention_backward",
    "the scores rebuilt without their 1/√d_k before exp(s − lse)",
    explanation="lse was stored by the forward pass for the scaled scores q kᵀ / √d_k: the weights are exp(q kᵀ / √d_k − lse). Rebuilding the tile from q kᵀ alone gives weights that no longer sum to 1 (they are not the forward's), and every gradient that uses them is off.",
    hint="S = q_tile @ k_tileᵀ / np.sqrt(d_k), then P = np.exp(S - lse).",
)
def flash_backward_unscaled_recompute(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    return _flash_backward_tiled(q, k, v, out, lse, grad_out, block_q, block_k, causal, mask, scaled_scores=False)


@misconception(
    "flash_attention_backward",
    "the sign of dS flipped: P ⊙ (D − dP)",
    explanation="The softmax's backward is dS = P ⊙ (dP − D): a weight's gradient grows with its own dP and shrinks by the row's average D. Written the other way round, dq and dk point the opposite way (dv, which does not go through the softmax, is right).",
    hint="dS = P * (dP - D) / √d_k.",
)
def flash_backward_sign_flipped(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    return _flash_backward_tiled(q, k, v, out, lse, grad_out, block_q, block_k, causal, mask, sign=-1.0)


@misconception(
    "online_softmax_attention",
    "the accumulated output is never divided by the running sum",
    explanation="The blocks add exp(s − m) @ v, unnormalised weights: the softmax's denominator is the running sum l, known only once every block is read. Without the final acc / l each output is a sum of values weighted by numbers that do not add up to 1.",
    hint="After the loop: out = acc / l (0 where l is 0: a query that saw no key).",
)
def online_never_normalised(q, k, v, block_size, causal=False, mask=None):
    return _online(q, k, v, block_size, causal, mask, normalise=False)


@misconception(
    "flash_attention",
    "a query tile's output is never divided by its running sum",
    explanation="Each key tile adds exp(s − m) @ v, unnormalised weights: the softmax's denominator is the running sum l, known only after the last key tile. Without out = acc / l each output is a sum of values weighted by numbers that do not add up to 1 (lse, which uses l, can still be right).",
    hint="After the key tiles of a query tile: out = acc / l (0 where l is 0), and lse = m + log(l).",
)
def flash_never_normalised(q, k, v, block_q, block_k, causal=False, mask=None):
    return _flash(q, k, v, block_q, block_k, causal, mask, normalise=False)
