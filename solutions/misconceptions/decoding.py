"""Known wrong versions of the functions of decoding.py (instructor-only: never shipped to students)."""

import numpy as np
from attention import scaled_dot_product_attention
from positions import rope

from attnlab.misconceptions import Alternatives, misconception, probe


@misconception(
    "bottom_right_causal_mask",
    "aligned to the first key: np.tril of an (n_queries, n_keys) array",
    explanation="The queries are the newest n_queries tokens, so query i is position n_keys - n_queries + i and sees every key up to that position. np.tril of an (n_queries, n_keys) array lines the diagonal up with the first key instead: query 0 sees key 0 alone, and a decoded token would see none of the cache but its first token.",
    hint="Compare key j with the query's position: j <= i + (n_keys - n_queries), or take the last n_queries rows of causal_mask(n_keys).",
)
def mask_aligned_top_left(n_queries, n_keys):
    return np.tril(np.ones((n_queries, n_keys), dtype=bool))


@misconception(
    "bottom_right_causal_mask",
    "a query does not see its own key",
    explanation="Under a causal mask a token attends to itself: query i, at position n_keys - n_queries + i, sees keys up to and including that position. A strict < leaves its own key out, and one new token after an empty cache would see no key at all.",
    hint="Use <=: j <= i + (n_keys - n_queries).",
)
def mask_without_the_diagonal(n_queries, n_keys):
    return np.arange(n_keys)[None, :] < np.arange(n_queries)[:, None] + (n_keys - n_queries)


@misconception(
    "bottom_right_causal_mask",
    "no mask: every new query sees every key",
    explanation="One new token (a decode step) may indeed see every key. But with several new tokens, a prefill chunk or drafted tokens to verify, new token i must not see the new tokens after it: they are its future.",
    hint="Keep j <= i + (n_keys - n_queries): with one query it is all True, with more it hides each one's future.",
)
def mask_all_true(n_queries, n_keys):
    return np.ones((n_queries, n_keys), dtype=bool)


def _cached_attention(x_new, cache, w_q, w_k, w_v, theta, *, first_position=None, mask="bottom-right", cache_rotated=True, rotate_values=False):
    """The reference's steps, with the one step a mistake changes as a switch."""
    t = 0 if cache is None else cache["k"].shape[-2]
    n = x_new.shape[-2]
    positions = (t if first_position is None else first_position(t)) + np.arange(n)
    q, k_new, v = rope(x_new @ w_q, positions, theta), x_new @ w_k, x_new @ w_v
    if rotate_values:
        v = rope(v, positions, theta)
    if cache_rotated:
        k_new = rope(k_new, positions, theta)
    k = k_new if cache is None else np.concatenate([cache["k"], k_new], axis=-2)
    if cache is not None:
        v = np.concatenate([cache["v"], v], axis=-2)
    keys_used = k if cache_rotated else rope(k, np.arange(t + n), theta)
    masks = {
        "bottom-right": np.arange(t + n)[None, :] <= np.arange(n)[:, None] + t,
        "top-left": np.tril(np.ones((n, t + n), dtype=bool)),
        "none": None,
    }
    out, _ = scaled_dot_product_attention(q, keys_used, v, masks[mask])
    return out, {"k": k, "v": v}


@misconception(
    "cached_rope_attention",
    "RoPE at positions 0..n-1 in every call, not at t..t+n-1",
    explanation="The new tokens come after the t cached ones: they are at positions t..t+n-1, and RoPE must turn their queries and keys by those angles. Rotating each call's tokens as if they began at 0 puts every new token at the cache's start: its distance to each cached key is wrong, and chunks or decode steps disagree with one call on the whole sequence.",
    hint="positions = t + np.arange(n) with t = cache['k'].shape[-2] (0 without a cache).",
)
def rope_positions_restart(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    return _cached_attention(x_new, cache, w_q, w_k, w_v, theta, first_position=lambda t: 0)


@misconception(
    "cached_rope_attention",
    "RoPE positions counted from 1",
    explanation="Positions are counted from 0: the first token ever is position 0, so the new tokens after a cache of t are t..t+n-1. Counting from 1 (t + 1 onwards) turns every new query and key one step too far: the outputs differ from one call on the whole sequence, which starts at 0.",
    hint="positions = t + np.arange(n), where t is the number of cached tokens.",
)
def rope_positions_from_one(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    return _cached_attention(x_new, cache, w_q, w_k, w_v, theta, first_position=lambda t: t + 1)


@misconception(
    "cached_rope_attention",
    "the mask aligned to the first key (top-left), not the last",
    explanation="New query i is position t + i: it sees every cached key and the new ones up to itself, row t + i of the full causal mask, the bottom-right corner. np.tril of an (n, t + n) array aligns the diagonal with the first key, so the new tokens see only the first few cached ones.",
    hint="mask = bottom_right_causal_mask(n, t + n).",
)
def rope_cache_mask_top_left(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    return _cached_attention(x_new, cache, w_q, w_k, w_v, theta, mask="top-left")


@misconception(
    "cached_rope_attention",
    "no causal mask among the new tokens",
    explanation="One new token may see every key, so a decode step needs no mask. With several new tokens (a prefill chunk, drafted tokens to verify), each must not see the new tokens after it: without the mask a chunk's early tokens read their future, and chunks disagree with one call on the whole sequence.",
    hint="Pass bottom_right_causal_mask(n, t + n) as the mask, whatever n is.",
)
def rope_cache_without_mask(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    return _cached_attention(x_new, cache, w_q, w_k, w_v, theta, mask="none")


@misconception(
    "cached_rope_attention",
    "the cache keeps the new keys before RoPE",
    explanation="The cache holds the keys once rotated at their positions, as a decoder's cache does: a key is rotated once, when its token arrives, and the next call uses the cached keys as they are. A cache that keeps the new keys before RoPE is not the one the next call expects: read as it is, its keys sit at no position at all; rotating every key at each call to make up for it turns a cache of rotated keys a second time, and turns every cached key again at every step.",
    hint="Rotate only the new keys, at positions t + np.arange(n), and append them, rotated, to the cache's keys.",
)
def rope_cache_keeps_unrotated_keys(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    # Either every key is rotated at each call (the cache read as unrotated), or the call attends
    # right, with the new keys rotated, and only the cache it returns holds them before RoPE.
    rotated_each_call = _cached_attention(x_new, cache, w_q, w_k, w_v, theta, cache_rotated=False)
    out, right_cache = _cached_attention(x_new, cache, w_q, w_k, w_v, theta)
    t = 0 if cache is None else cache["k"].shape[-2]
    stored = np.concatenate([right_cache["k"][..., :t, :], x_new @ w_k], axis=-2)
    return Alternatives([rotated_each_call, (out, {"k": stored, "v": right_cache["v"]})])


@misconception(
    "cached_rope_attention",
    "RoPE applied to the values too",
    explanation="RoPE rotates the queries and the keys, so that each score q·k depends on the distance between their positions; the values are what the weights average, and they are never rotated. Rotating them turns each value by its own position, and the output is a blend of turned vectors.",
    hint="Rotate q and k only: v = x_new @ w_v as it is, and cache it unrotated.",
)
def rope_cache_rotates_values(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    return _cached_attention(x_new, cache, w_q, w_k, w_v, theta, rotate_values=True)



def _kept(cache, positions):
    return {"k": cache["k"][..., positions, :], "v": cache["v"][..., positions, :]}


@misconception(
    "evict_to_sinks_and_window",
    "a plain sliding window: the sinks are dropped",
    explanation="StreamingLLM keeps the first n_sinks tokens however old they are: queries pour the attention they give nowhere else into them (attention sinks), and a window that drops them with the other old tokens is what makes a sliding-window cache fail. Keep tokens 0..n_sinks-1 as well as the last window.",
    hint="Keep a token j when j < n_sinks or j >= t - window.",
)
def evict_drops_the_sinks(cache, n_sinks, window):
    t = cache["k"].shape[-2]
    # The window alone, or a window as long as the whole budget (the last n_sinks + window tokens):
    # either way the first tokens are dropped once the cache is longer than the window kept.
    return Alternatives([_kept(cache, np.arange(max(0, t - size), t)) for size in (window, n_sinks + window)])


@misconception(
    "evict_to_sinks_and_window",
    "the sinks and the window concatenated: a short cache keeps tokens twice",
    explanation="While the cache is no longer than n_sinks + window, the sinks and the window overlap: concatenating cache[:n_sinks] and cache[-window:] keeps those tokens twice, and a token kept twice gets twice its weight in every later query's softmax. Keep each token once: nothing is dropped until the cache is longer than n_sinks + window.",
    hint="Select the kept positions once, np.flatnonzero((j < n_sinks) | (j >= t - window)), and index the token axis with them.",
)
def evict_keeps_overlap_twice(cache, n_sinks, window):
    t = cache["k"].shape[-2]
    return _kept(cache, np.concatenate([np.arange(min(n_sinks, t)), np.arange(max(0, t - window), t)]))


@misconception(
    "evict_to_sinks_and_window",
    "the oldest tokens kept instead of the most recent",
    explanation="The window is the most recent tokens, t - window..t - 1, the ones a new query needs most: keeping the first n_sinks + window tokens keeps the sinks and the oldest tokens after them, and drops everything the model said since.",
    hint="The window is the last window positions: j >= t - window.",
)
def evict_keeps_the_oldest(cache, n_sinks, window):
    t = cache["k"].shape[-2]
    return _kept(cache, np.arange(min(t, n_sinks + window)))


@misconception(
    "evict_to_sinks_and_window",
    "the window one token short: counted from t, not from the newest token",
    explanation="The newest token is t - 1, and the window of `window` tokens is t - window..t - 1. Counting back from t (j > t - window) keeps one token fewer: sink_window_mask's j > i - window holds for the query i = t - 1, not for i = t.",
    hint="Keep j >= t - window (j > (t - 1) - window).",
)
def evict_window_one_short(cache, n_sinks, window):
    t = cache["k"].shape[-2]
    position = np.arange(t)
    return _kept(cache, np.flatnonzero((position < n_sinks) | (position > t - window)))


# Diagnostic probes: fixed inputs, harmless to show a student, on which every entry above differs
# from the reference and from each other.
_RNG = np.random.default_rng(81)
_WQ, _WK, _WV = _RNG.normal(size=(3, 4)), _RNG.normal(size=(3, 4)), _RNG.normal(size=(3, 3))
probe("bottom_right_causal_mask", "2 new queries over 4 keys", 2, 4)
probe("bottom_right_causal_mask", "3 new queries over 6 keys", 3, 6)
probe(
    "cached_rope_attention",
    "2 new tokens after a cache of 3 rotated keys, theta = 10",
    _RNG.normal(size=(1, 2, 3)),
    {"k": _RNG.normal(size=(1, 3, 4)), "v": _RNG.normal(size=(1, 3, 3))},
    _WQ,
    _WK,
    _WV,
    theta=10.0,
)
probe("cached_rope_attention", "3 tokens, no cache, theta = 10", _RNG.normal(size=(1, 3, 3)), None, _WQ, _WK, _WV, theta=10.0)
_EVEN = np.random.default_rng(82)  # its own generator: the probes after it keep their inputs
probe(
    "cached_rope_attention",
    "2 new tokens after a cache of 2, values of even width 2 (a rotation of them runs)",
    _EVEN.normal(size=(1, 2, 3)),
    {"k": _EVEN.normal(size=(1, 2, 4)), "v": _EVEN.normal(size=(1, 2, 2))},
    _EVEN.normal(size=(3, 4)),
    _EVEN.normal(size=(3, 4)),
    _EVEN.normal(size=(3, 2)),
    theta=10.0,
)
probe("evict_to_sinks_and_window", "6 tokens, 1 sink, a window of 3", {"k": _RNG.normal(size=(1, 6, 2)), "v": _RNG.normal(size=(1, 6, 2))}, 1, 3)
probe("evict_to_sinks_and_window", "3 tokens, 2 sinks, a window of 2: nothing to drop", {"k": _RNG.normal(size=(1, 3, 2)), "v": _RNG.normal(size=(1, 3, 2))}, 2, 2)
