"""Known wrong versions of the functions of latent_attention.py (instructor-only: never shipped to students)."""

import numpy as np
from multihead import merge_heads, split_heads
from positions import rope, rope_half_split
from softmax import softmax

from attnlab.misconceptions import Alternatives, misconception, probe


def _mla(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True, *, values_from=None, scale_width=None, split=None, fill=-np.inf, merge=None):
    """The reference's steps, with the one step a mistake changes as a switch."""
    latent = x @ w_dkv
    split = split or split_heads
    q, k = split(x @ w_q, n_heads), split(latent @ w_uk, n_heads)
    v = split(latent @ (values_from if values_from is not None else w_uv), n_heads)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(scale_width or q.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape[-2:], dtype=bool)), scores, fill)
    return (merge or merge_heads)(softmax(scores, axis=-1) @ v), latent


@misconception(
    "mla_attention",
    "the values up-projected with W_UK",
    explanation="The latent is up-projected twice, to two different things: the keys latent W_UK and the values latent W_UV. With W_UK for both, each head's values are its keys: the weights are right, but they average the wrong vectors.",
    hint="k = split_heads(latent @ w_uk, n_heads) and v = split_heads(latent @ w_uv, n_heads).",
)
def mla_values_from_w_uk(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    return _mla(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal, values_from=w_uk)


@misconception(
    "mla_attention",
    "scaled by √(n_heads · d_head), the whole width, not √d_head",
    explanation="Each head is its own attention over d_head features: its scores q_h · k_h are scaled by 1/√d_head. √ of the whole width n_heads · d_head, read off w_q before the heads are split, flattens every head's softmax.",
    hint="Divide by np.sqrt(d_head) with d_head = q.shape[-1] after split_heads.",
)
def mla_scaled_by_the_width(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    return _mla(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal, scale_width=w_q.shape[-1])


@misconception(
    "mla_attention",
    "the causal mask ignored",
    explanation="With causal=True token i attends to tokens 0..i only: the scores of later tokens are set to -inf before the softmax. MLA changes what is cached, not which tokens a query may see.",
    hint="scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf) when causal.",
)
def mla_ignores_causal(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    return _mla(x, w_dkv, w_uk, w_uv, w_q, n_heads, False)


def _reshape_only(x, n_heads):
    *lead, t, width = x.shape
    return x.reshape(*lead, n_heads, t, width // n_heads)


@misconception(
    "mla_attention",
    "heads split by a reshape alone",
    explanation="Head h owns the feature columns h·d_head:(h+1)·d_head of every token. Reshaping (B, T, h·d_head) straight to (B, h, T, d_head) cuts the rows in memory order instead, so one head's 'tokens' are pieces of several tokens.",
    hint="Use split_heads (reshape to (B, T, h, d_head), then swap the T and head axes).",
)
def mla_heads_by_reshape(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    return _mla(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal, split=_reshape_only)



@misconception(
    "mla_attention",
    "the causal mask sets the future's scores to 0 (np.tril of the scores), not -inf",
    explanation="A masked key must get a weight of exactly 0 after the softmax, so its score becomes -inf before it: exp(-inf) = 0. np.tril of the scores (or scores * mask) sets the future's scores to 0, and exp(0) = 1 gives every future token a weight as large as a key scored 0.",
    hint="scores = np.where(np.tril(np.ones((T, T), dtype=bool)), scores, -np.inf) when causal.",
)
def mla_masked_scores_zero(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    return _mla(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal, fill=0.0)


@misconception(
    "mla_attention",
    "scaled by √d_c, the latent's width, not √d_head",
    explanation="The keys are up-projected from the latent, but each head still dots a d_head-wide query with a d_head-wide key: its scores are scaled by 1/√d_head. d_c is the width of what is cached, not of what is dotted.",
    hint="Divide by np.sqrt(q.shape[-1]) after split_heads: d_head, not latent.shape[-1].",
)
def mla_scaled_by_d_c(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    return _mla(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal, scale_width=w_dkv.shape[-1])


def _merge_by_reshape(x):
    *lead, h, t, d_head = x.shape
    return x.reshape(*lead, t, h * d_head)


@misconception(
    "mla_attention",
    "heads merged by a reshape alone, the head axis never moved back",
    explanation="The heads' outputs are (B, h, T, d_head); token t's output is its h slices side by side, so the head axis must move back behind the tokens before the reshape. Reshaping (B, h, T, d_head) straight to (B, T, h·d_head) cuts memory in its order: one 'token' holds pieces of several tokens of one head.",
    hint="Use merge_heads (swap the head and token axes, then reshape).",
)
def mla_heads_merged_by_reshape(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal=True):
    return _mla(x, w_dkv, w_uk, w_uv, w_q, n_heads, causal, merge=_merge_by_reshape)


def _decode(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads, *, scale_width=None, attend_new=True, heads_at_once=False, softmax_axis=-1, new_first=False, rows_per_head=()):
    """The reference's absorbed step, with the one step a mistake changes as a switch."""
    latent = x_t @ w_dkv
    parts = [latent, latent_cache] if new_first else [latent_cache, latent]
    cache = latent if latent_cache is None else np.concatenate(parts, axis=-2)
    seen = cache if attend_new or latent_cache is None else latent_cache
    d_c, d_head = w_dkv.shape[-1], w_q.shape[-1] // n_heads
    up_k = w_uk.reshape(n_heads, d_c, d_head) if "k" in rows_per_head else np.swapaxes(w_uk.reshape(d_c, n_heads, d_head), 0, 1)
    up_v = w_uv.reshape(n_heads, d_c, d_head) if "v" in rows_per_head else np.swapaxes(w_uv.reshape(d_c, n_heads, d_head), 0, 1)
    q = split_heads(x_t @ w_q, n_heads)
    if heads_at_once:
        absorbed = ((x_t @ w_q) @ w_uk.T)[:, None]  # (B, 1, 1, d_c): every head's products summed
    else:
        absorbed = q @ np.swapaxes(up_k, -1, -2)
    scores = absorbed @ np.swapaxes(seen, -1, -2)[:, None] / np.sqrt(scale_width or d_head)
    mixed = softmax(scores, axis=softmax_axis) @ seen[:, None]
    return merge_heads(np.broadcast_to(mixed, q.shape[:2] + mixed.shape[2:]) @ up_v), cache


@misconception(
    "mla_decode_step",
    "the absorbed scores scaled by √d_c",
    explanation="Folding W_UK into the query changes where the product is taken, not what it is: q_h W_UK_hᵀ · c_j is still the score q_h · k_j of a d_head-wide head, scaled by 1/√d_head. The absorbed query is d_c wide, and dividing by √d_c changes every weight.",
    hint="Divide the absorbed scores by the square root of d_head, the width of one head (w_q's columns over n_heads), not of d_c.",
)
def mla_decode_scaled_by_d_c(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    return _decode(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads, scale_width=w_dkv.shape[-1])


@misconception(
    "mla_decode_step",
    "the new token attends over the old cache only",
    explanation="Under the causal mask a token sees every token before it and itself: its own latent is appended to the cache before it attends, so its scores cover t + 1 latents. Attending over the t cached ones leaves its own key and value out.",
    hint="Append x_t @ w_dkv to the cache first, then score the absorbed query against the whole new cache.",
)
def mla_decode_without_itself(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    return _decode(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads, attend_new=False)


@misconception(
    "mla_decode_step",
    "W_UK absorbed across every head at once",
    explanation="Each head absorbs its own slice: q_h W_UK_hᵀ, with W_UK_h = w_uk[:, h·d_head:(h+1)·d_head]. (x_t W_Q) W_UKᵀ over the whole width adds every head's products into one d_c-wide query, so all heads get the same weights, the sum of their scores.",
    hint="Reshape w_uk to (d_c, n_heads, d_head) and absorb per head: (B, h, 1, d_head) @ (h, d_head, d_c).",
)
def mla_decode_heads_at_once(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    return _decode(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads, heads_at_once=True)


@misconception(
    "mla_decode_step",
    "every cached latent up-projected into keys and values at each step",
    explanation="The values are right, but the point of MLA at decode is that it never rebuilds the cached tokens' keys and values: W_UK folds into the query (q_h W_UK_hᵀ scores the latents directly) and W_UV applies once to the weighted latent. Up-projecting the cache makes (B, h, t, d_head) keys and values at every step, the memory and the reads the latent cache was there to save.",
    hint="absorbed = q (B, h, 1, d_head) @ W_UK_hᵀ (h, d_head, d_c); scores = absorbed @ cacheᵀ / √d_head; out_h = (weights @ cache) @ W_UV_h.",
    holds_too_much=True,
)
def mla_decode_up_projects_the_cache(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    latent = x_t @ w_dkv
    cache = latent if latent_cache is None else np.concatenate([latent_cache, latent], axis=-2)
    k, v, q = split_heads(cache @ w_uk, n_heads), split_heads(cache @ w_uv, n_heads), split_heads(x_t @ w_q, n_heads)
    weights = softmax(q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1]), axis=-1)
    return merge_heads(weights @ v), cache



@misconception(
    "mla_decode_step",
    "the softmax over another axis than the cached tokens (the single query's, or the heads')",
    explanation="The scores are (B, h, 1, t+1): one query per head, scored against every cached latent, and its weights are a distribution over those t+1 latents, the last axis. Over axis -2, the one query, every weight is 1 and the latents are summed; over the heads, each latent's weight is shared out among the heads.",
    hint="softmax(scores, axis=-1): the cached tokens run along the last axis.",
)
def mla_decode_softmax_over_another_axis(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    return Alternatives([_decode(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads, softmax_axis=axis) for axis in (-2, 1)])


@misconception(
    "mla_decode_step",
    "the new latent put in front of the cache",
    explanation="The cache keeps the latents in the order of their tokens: the newest comes last, after the t cached ones, so that step t+1 finds them where a whole-sequence pass puts them. Putting it first leaves this step's output right (without positions the order of the keys does not change it) but scrambles the cache: every later step, and any positions added later, read the tokens out of order.",
    hint="np.concatenate([latent_cache, latent], axis=-2): the old tokens first, the new one last.",
)
def mla_decode_new_latent_first(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    return _decode(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads, new_first=True)



@misconception(
    "mla_decode_step",
    "W_UK or W_UV cut into heads by reshape(n_heads, d_c, d_head): rows, not column blocks",
    explanation="Head h's up-projection is the column block w_uk[:, h·d_head:(h+1)·d_head], as split_heads cuts the keys. Reshaping the (d_c, n_heads·d_head) matrix straight to (n_heads, d_c, d_head) cuts it in memory order instead: each 'head' gets pieces of rows of every head, and the step no longer agrees with mla_attention.",
    hint="w_uk.reshape(d_c, n_heads, d_head) keeps each head's columns together; then move the head axis first (np.swapaxes(..., 0, 1)).",
)
def mla_decode_heads_cut_from_rows(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads):
    return Alternatives([_decode(x_t, latent_cache, w_dkv, w_uk, w_uv, w_q, n_heads, rows_per_head=which) for which in ("kv", "k", "v")])


def _mla_rope(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True, *, turn_content=False, scale_width=None, turn=rope, query_across_heads=False):
    """The reference's decoupled-RoPE steps, with the one step a mistake changes as a switch."""
    positions = np.arange(x.shape[-2])
    latent = x @ w_dkv
    rope_keys = turn(x @ w_kr, positions)
    q = split_heads(x @ w_q, n_heads)
    q_rope = split_heads(turn(x @ w_qr, positions), n_heads) if query_across_heads else turn(split_heads(x @ w_qr, n_heads), positions)
    k = split_heads(latent @ w_uk, n_heads)
    if turn_content:
        q, k = rope(q, positions), rope(k, positions)
    v = split_heads(latent @ w_uv, n_heads)
    scores = q @ np.swapaxes(k, -1, -2) + q_rope @ np.swapaxes(rope_keys, -1, -2)[:, None]
    scores = scores / np.sqrt(scale_width or q.shape[-1] + rope_keys.shape[-1])
    if causal:
        scores = np.where(np.tril(np.ones(scores.shape[-2:], dtype=bool)), scores, -np.inf)
    return merge_heads(softmax(scores, axis=-1) @ v), (latent, rope_keys)


@misconception(
    "mla_rope_attention",
    "RoPE applied to the content query and key too",
    explanation="The content part must stay free of positions: it is what decoding absorbs into the query (q_h W_UK_hᵀ), and a rotation that depends on the key's position between q_h and W_UK would make that impossible. Positions enter through the decoupled part alone: q_R = RoPE(x W_QR) and the shared k_R = RoPE(x W_KR); q_C = x W_Q and k_C = c W_UK are never rotated.",
    hint="Rotate only x @ w_qr (split into heads) and x @ w_kr; leave the queries x @ w_q and the keys latent @ w_uk as they are.",
)
def mla_rope_rotates_the_content(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    return _mla_rope(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal, turn_content=True)


@misconception(
    "mla_rope_attention",
    "scaled by √d_head, not √(d_head + d_rope)",
    explanation="Each head's score is one dot product of the joined query [q_C, q_R] with the joined key [k_C, k_R]: d_head + d_rope products summed, so its scale is 1/√(d_head + d_rope), as DeepSeek-V2 does. 1/√d_head scales only the content part's width, and every weight comes out too sharp.",
    hint="Divide the summed scores by np.sqrt(d_head + d_rope), with d_rope = w_kr.shape[-1].",
)
def mla_rope_scaled_by_d_head(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    return _mla_rope(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal, scale_width=w_q.shape[-1] // n_heads)


@misconception(
    "mla_rope_attention",
    "RoPE in the half-split layout (rope_half_split), not the contract's adjacent pairs",
    explanation="The contract's rope turns the adjacent pairs (x[2i], x[2i+1]); rope_half_split pairs x[i] with x[i + d/2]. Both are rotations and each is right with weights trained for it, but the RoPE parts here are the contract's rope: the half-split layout turns other features together and every RoPE score changes.",
    hint="Use positions.rope for both the RoPE queries and the RoPE keys.",
)
def mla_rope_half_split(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    return _mla_rope(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal, turn=rope_half_split)


@misconception(
    "mla_rope_attention",
    "the RoPE queries turned across all heads' width before they are split",
    explanation="RoPE's frequencies depend on the width it turns: pair i of a d-wide vector turns by p · theta^(-2i/d). Each head's RoPE query is d_rope wide, like the shared key it meets, so it is turned after split_heads, with d = d_rope. Turning x @ w_qr as one n_heads · d_rope wide vector gives every head but the first other frequencies than its key's, and q_R · k_R no longer depends on the distance alone.",
    hint="q_rope = rope(split_heads(x @ w_qr, n_heads), positions): split first, then turn each head's d_rope features.",
)
def mla_rope_query_turned_across_heads(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal=True):
    return _mla_rope(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, causal, query_across_heads=True)


def _rope_decode(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, *, at=None, scale_width=None, append_key=True, unrotated_cache=False, turn_content=False):
    """The reference's absorbed step with a RoPE key, with the one step a mistake changes as a switch."""
    t = 0 if cache is None else cache[0].shape[-2]
    position = np.array([t if at is None else at])
    latent = x_t @ w_dkv
    new_key = (x_t @ w_kr) if unrotated_cache else rope(x_t @ w_kr, position)
    latents = latent if cache is None else np.concatenate([cache[0], latent], axis=-2)
    rope_keys = new_key if cache is None else np.concatenate([cache[1], new_key], axis=-2)
    seen_keys = rope(rope_keys, np.arange(t + 1)) if unrotated_cache else rope_keys
    d_c, d_rope = w_dkv.shape[-1], w_kr.shape[-1]
    d_head = w_q.shape[-1] // n_heads
    up_k = np.swapaxes(w_uk.reshape(d_c, n_heads, d_head), 0, 1)
    up_v = np.swapaxes(w_uv.reshape(d_c, n_heads, d_head), 0, 1)
    q = split_heads(x_t @ w_q, n_heads)
    if turn_content:
        q = rope(q, position)
    absorbed = q @ np.swapaxes(up_k, -1, -2)
    q_rope = rope(split_heads(x_t @ w_qr, n_heads), position)
    scores = absorbed @ np.swapaxes(latents, -1, -2)[:, None] + q_rope @ np.swapaxes(seen_keys, -1, -2)[:, None]
    mixed = softmax(scores / np.sqrt(scale_width or d_head + d_rope), axis=-1) @ latents[:, None]
    kept = rope_keys if append_key or cache is None else cache[1]
    return merge_heads(mixed @ up_v), (latents, kept)


@misconception(
    "mla_rope_decode_step",
    "the new token turned at position 0, not at its true position t",
    explanation="The new token comes after the t cached ones: it sits at position t, the cache's length, and its RoPE query and key turn by t's angles. Turned at 0, every cached key looks as far from it as if the sequence began here, the scores change, and the RoPE key it caches is wrong for every later step.",
    hint="t = cache[0].shape[-2] (0 without a cache); rotate the RoPE query parts and the RoPE key with rope(..., np.array([t])).",
)
def mla_rope_decode_at_position_zero(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    return _rope_decode(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, at=0)


@misconception(
    "mla_rope_decode_step",
    "the scores scaled by √d_head, not √(d_head + d_rope)",
    explanation="Absorbing W_UK changes where the content product is taken, not the score: it is still the joined query [q_C, q_R] dotted with the joined key [k_C, k_R], d_head + d_rope products, scaled by 1/√(d_head + d_rope) as in mla_rope_attention.",
    hint="Add the absorbed content scores and the RoPE scores, then divide by np.sqrt(d_head + d_rope).",
)
def mla_rope_decode_scaled_by_d_head(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    return _rope_decode(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, scale_width=w_q.shape[-1] // n_heads)


@misconception(
    "mla_rope_decode_step",
    "the new RoPE key used but not kept: the cache returned without it",
    explanation="The cache holds two things per token, its latent and its rotated RoPE key, and the new token's both are appended: the next step needs this token's RoPE key to score it. Returning the old RoPE keys leaves the cache one key short, and every later step scores its latents against the wrong keys (or cannot at all).",
    hint="Return (latents, rope_keys) with the new rotated RoPE key concatenated after the cached ones along axis -2.",
)
def mla_rope_decode_key_not_cached(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    return _rope_decode(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, append_key=False)


@misconception(
    "mla_rope_decode_step",
    "the RoPE keys cached unrotated and all turned again at each step",
    explanation="The cache holds the RoPE keys already turned at their positions (as mla_rope_attention returns them): each key is rotated once, when its token arrives. Caching x @ w_kr unrotated and turning the whole cache at 0..t each step gives the same outputs on a cache of one's own, but a cache built by the contract's rule is turned twice, and the cache handed on is not the one the contract describes.",
    hint="Rotate only the new key, rope(x_t @ w_kr, np.array([t])), append it, and use the cached keys as they are.",
)
def mla_rope_decode_caches_unrotated_keys(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    return _rope_decode(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, unrotated_cache=True)


@misconception(
    "mla_rope_decode_step",
    "RoPE applied to the content query before W_UK is absorbed",
    explanation="The content score q_C · k_C carries no position: that is what lets W_UK be absorbed into the query. Turning q_C at position t while the latents stay unturned gives a score that depends on the new token's absolute position and on nothing of the key's, which is not a relative position at all. Positions go through the decoupled RoPE part alone.",
    hint="Absorb the unrotated query: split_heads(x_t @ w_q, n_heads) @ W_UK_hᵀ; rotate only x_t @ w_qr (per head) and x_t @ w_kr.",
)
def mla_rope_decode_rotates_the_content_query(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    return _rope_decode(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads, turn_content=True)


@misconception(
    "mla_rope_decode_step",
    "every cached latent up-projected into keys and values at each step",
    explanation="The values are right, but decoding with MLA never rebuilds the cached tokens' keys and values: W_UK folds into the query and W_UV applies once to the weighted latent, and the RoPE part is read straight off the cached RoPE keys. Up-projecting the cache makes (B, h, t, d_head) keys and values at every step, the memory and the reads the latent cache was there to save.",
    hint="absorbed = q (B, h, 1, d_head) @ W_UK_hᵀ (h, d_head, d_c); scores = (absorbed @ latentsᵀ + q_rope @ rope_keysᵀ) / √(d_head + d_rope); out_h = (weights @ latents) @ W_UV_h.",
    holds_too_much=True,
)
def mla_rope_decode_up_projects_the_cache(x_t, cache, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, n_heads):
    t = 0 if cache is None else cache[0].shape[-2]
    position = np.array([t])
    latent, new_key = x_t @ w_dkv, rope(x_t @ w_kr, position)
    latents = latent if cache is None else np.concatenate([cache[0], latent], axis=-2)
    rope_keys = new_key if cache is None else np.concatenate([cache[1], new_key], axis=-2)
    q, k, v = split_heads(x_t @ w_q, n_heads), split_heads(latents @ w_uk, n_heads), split_heads(latents @ w_uv, n_heads)
    q_rope = rope(split_heads(x_t @ w_qr, n_heads), position)
    scores = (q @ np.swapaxes(k, -1, -2) + q_rope @ np.swapaxes(rope_keys, -1, -2)[:, None]) / np.sqrt(q.shape[-1] + rope_keys.shape[-1])
    return merge_heads(softmax(scores, axis=-1) @ v), (latents, rope_keys)


# Diagnostic probes: fixed inputs, harmless to show a student, on which every entry above differs
# from the reference and from each other: d_c = 3 differs from d_head = 2 and from the width 4.
_RNG = np.random.default_rng(85)
_W = (_RNG.normal(size=(3, 3)), _RNG.normal(size=(3, 4)), _RNG.normal(size=(3, 4)), _RNG.normal(size=(3, 4)))
probe("mla_attention", "3 tokens, 2 heads of width 2, a latent of width 3, causal", _RNG.normal(size=(1, 3, 3)), *_W, 2)
probe("mla_attention", "2 sequences of 3 tokens, not causal", _RNG.normal(size=(2, 3, 3)), *_W, 2, causal=False)
probe("mla_decode_step", "a step after 3 cached latents, 2 heads of width 2, d_c = 3", _RNG.normal(size=(1, 1, 3)), _RNG.normal(size=(1, 3, 3)), *_W, 2)
probe("mla_decode_step", "the first step, no cache", _RNG.normal(size=(2, 1, 3)), None, *_W, 2)
# Decoupled RoPE: d_head = 2 is even (an entry that turns the content needs it), d_rope = 4 (at 2 the
# half-split layout is the adjacent one), two heads (one turned across both widths differs from one
# turned per head), d_c = 3 apart from all of them.
_WR = (*_W, _RNG.normal(size=(3, 8)), _RNG.normal(size=(3, 4)))
probe("mla_rope_attention", "4 tokens, 2 heads of width 2, RoPE parts of width 4, a latent of width 3, causal", _RNG.normal(size=(1, 4, 3)), *_WR, 2)
probe("mla_rope_attention", "2 sequences of 3 tokens, not causal", _RNG.normal(size=(2, 3, 3)), *_WR, 2, causal=False)
probe("mla_rope_decode_step", "the first step, no cache", _RNG.normal(size=(2, 1, 3)), None, *_WR, 2)
probe("mla_rope_decode_step", "a step after 3 cached tokens, 2 heads of width 2, RoPE keys of width 4, d_c = 3", _RNG.normal(size=(1, 1, 3)), (_RNG.normal(size=(1, 3, 3)), _RNG.normal(size=(1, 3, 4))), *_WR, 2)
