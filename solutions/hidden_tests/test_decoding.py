"""Hidden tests for decoding.py: the mask's corner, RoPE at the true position over a cache, StreamingLLM's eviction."""

import numpy as np
from attention_inputs import SEED, SIZE, normal
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_cache_unchanged, expect_close, expect_equal_bool, expect_pair, expect_shape

BIG = 50.0  # weights this large make scores of about ±1e4
THETAS = st.sampled_from([10000.0, 10.0])  # a small theta turns every pair far: a wrong position shows

# ---------------------------------------------------------------- the mask's corner


@st.composite
def query_and_key_counts(draw):
    """(n_queries, n_keys) with 1 ≤ n_queries ≤ n_keys ≤ 9: a chunk after a cache, or the whole sequence."""
    n_keys = draw(st.integers(1, 9))
    return draw(st.integers(1, n_keys)), n_keys


@given(query_and_key_counts())
def test_mask_values(student, reference, counts):
    """bottom_right_causal_mask: query i, at position n_keys - n_queries + i, sees every key up to itself"""
    n_q, n_k = counts
    what = f"bottom_right_causal_mask({n_q}, {n_k})"
    expect_equal_bool(student.bottom_right_causal_mask(n_q, n_k), reference.bottom_right_causal_mask(n_q, n_k), what, "(n_queries, n_keys)")


@given(st.integers(1, 9))
def test_mask_square_is_causal(student, reference, n):
    """bottom_right_causal_mask: with as many queries as keys it is the causal mask"""
    expect_equal_bool(student.bottom_right_causal_mask(n, n), reference.causal_mask(n), f"bottom_right_causal_mask({n}, {n})", "(n, n)")


@given(st.integers(1, 9))
def test_mask_one_query_sees_every_key(student, reference, n):
    """bottom_right_causal_mask: one new query (a decode step) sees every key, itself the last"""
    expect_equal_bool(student.bottom_right_causal_mask(1, n), np.ones((1, n), dtype=bool), f"bottom_right_causal_mask(1, {n})", "(1, n_keys)")


# ---------------------------------------------------------------- RoPE at the true position, over a cache


@st.composite
def sequence(draw, scale=1.0):
    """x (B, T, d_model) with T ≥ 2, w_q, w_k (d_model, d_k) with d_k even, w_v (d_model, d_v), and theta."""
    batch, n, d_model, half, d_v, seed = draw(st.integers(1, 2)), draw(st.integers(2, 7)), draw(SIZE), draw(st.integers(1, 3)), draw(SIZE), draw(SEED)
    weights = normal(seed + 1, (d_model, 2 * half), scale=scale), normal(seed + 2, (d_model, 2 * half), scale=scale), normal(seed + 3, (d_model, d_v))
    return normal(seed, (batch, n, d_model)), *weights, draw(THETAS)


def rope_attention(reference, x, w_q, w_k, w_v, theta):
    """Causal attention over the whole of ``x`` with RoPE on its queries and keys at positions 0..T-1:
    (out (B, T, d_v), keys (B, T, d_k) rotated, values (B, T, d_v))."""
    positions = np.arange(x.shape[-2])
    q, k, v = reference.rope(x @ w_q, positions, theta), reference.rope(x @ w_k, positions, theta), x @ w_v
    return reference.scaled_dot_product_attention(q, k, v, reference.causal_mask(x.shape[-2]))[0], k, v


def expect_cache(cache, keys, values, what: str, *inputs) -> None:
    """``cache`` is a dict whose "k" and "v" are ``keys`` and ``values``."""
    if not isinstance(cache, dict) or not {"k", "v"} <= set(cache):
        raise Mismatch(f"{what} should return a cache dict with 'k' and 'v', got {type(cache).__name__}")
    expect_close(cache["k"], keys, f"{what}: the new cache's keys (rotated at their positions)", *inputs, passport="(B, t+n, d_k)")
    expect_close(cache["v"], values, f"{what}: the new cache's values", *inputs, passport="(B, t+n, d_v)")


@given(sequence())
def test_one_call_is_causal_rope_attention(student, reference, case):
    """cached_rope_attention: without a cache, the whole sequence in one call is causal attention with RoPE at positions 0..T-1"""
    x, w_q, w_k, w_v, theta = case
    what = f"cached_rope_attention(x, None, ..., theta={theta:g}) on {x.shape[1]} tokens"
    out, cache = expect_pair(student.cached_rope_attention(x, None, w_q, w_k, w_v, theta=theta), what, "(out, new_cache)")
    expected, keys, values = rope_attention(reference, x, w_q, w_k, w_v, theta)
    expect_close(out, expected, f"{what}: its output", x, w_q, w_k, w_v, passport="(B, T, d_v)")
    expect_cache(cache, keys, values, what, x, w_q, w_k, w_v)


def chunk_sizes(data, n) -> list[int]:
    """Sizes of consecutive chunks that cover n tokens, at least two of them."""
    cuts = sorted(data.draw(st.sets(st.integers(1, n - 1), min_size=1, max_size=n - 1), label="chunks end at"))
    return [b - a for a, b in zip([0, *cuts], [*cuts, n])]


@given(sequence(), st.data())
def test_chunks_equal_one_call(student, reference, case, data):
    """cached_rope_attention: a sequence fed in chunks (prefill, several tokens to verify, one token at a time), each from the cache the last returned, gets the outputs and the cache of one call"""
    x, w_q, w_k, w_v, theta = case
    sizes = chunk_sizes(data, x.shape[1])
    cache, outputs, start = None, [], 0
    for size in sizes:
        what = f"cached_rope_attention on tokens {start}..{start + size - 1} after a cache of {start}, chunks of {sizes}, theta={theta:g}"
        out, cache = expect_pair(student.cached_rope_attention(x[:, start : start + size], cache, w_q, w_k, w_v, theta=theta), what, "(out, new_cache)")
        expect_shape(expect_array(out, what), (x.shape[0], size, w_v.shape[1]), what, "(B, n, d_v)")
        if not isinstance(cache, dict) or not {"k", "v"} <= set(cache):
            raise Mismatch(f"{what} should return a cache dict with 'k' and 'v', got {type(cache).__name__}")
        outputs.append(out)
        start += size
    expected, keys, values = rope_attention(reference, x, w_q, w_k, w_v, theta)
    what = f"cached_rope_attention in chunks of {sizes} (theta={theta:g})"
    expect_close(np.concatenate(outputs, axis=1), expected, f"{what}: the outputs, chunk after chunk", x, w_q, w_k, w_v, passport="(B, T, d_v)")
    expect_cache(cache, keys, values, f"{what}, after the last chunk", x, w_q, w_k, w_v)


@st.composite
def given_cache(draw):
    """n new tokens x_new (B, n, d_model) after a cache of t tokens no call of the student's built:
    {"k": (B, t, d_k), "v": (B, t, d_v)}, the keys drawn as they are once rotated; weights and theta."""
    x, w_q, w_k, w_v, theta = draw(sequence())
    t, seed = draw(st.integers(1, 6)), draw(SEED)
    cache = {"k": normal(seed, (x.shape[0], t, w_k.shape[1])), "v": normal(seed + 1, (x.shape[0], t, w_v.shape[1]))}
    return x[:, : draw(st.integers(1, x.shape[1]))], cache, w_q, w_k, w_v, theta


@given(given_cache())
def test_continues_a_cache_it_did_not_build(student, reference, case):
    """cached_rope_attention: new tokens after a cache of t keys and values it did not compute are rotated at positions t.., see every cached key and the new ones up to themselves, and are appended to the cache"""
    x_new, cache, w_q, w_k, w_v, theta = case
    t, n = cache["k"].shape[1], x_new.shape[1]
    what = f"cached_rope_attention on {n} new token(s) after a cache of {t} (theta={theta:g})"
    out, new_cache = expect_pair(student.cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=theta), what, "(out, new_cache)")
    expected_out, expected_cache = reference.cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=theta)
    expect_close(out, expected_out, f"{what}: its output", x_new, w_q, w_k, w_v, passport="(B, n, d_v)")
    expect_cache(new_cache, expected_cache["k"], expected_cache["v"], what, x_new, w_q, w_k, w_v)


@given(sequence(scale=BIG), st.data())
def test_large_scores(student, reference, case, data):
    """cached_rope_attention: with scores of about ±1e4, a chunk after the first equals one call, finite"""
    x, w_q, w_k, w_v, theta = case
    first = chunk_sizes(data, x.shape[1])[0]
    what = f"cached_rope_attention with scores of about ±1e4, tokens {first}.. after a cache of {first}"
    _, cache = expect_pair(student.cached_rope_attention(x[:, :first], None, w_q, w_k, w_v, theta=theta), what, "(out, new_cache)")
    out, _ = expect_pair(student.cached_rope_attention(x[:, first:], cache, w_q, w_k, w_v, theta=theta), what, "(out, new_cache)")
    got = expect_array(out, what)
    if not np.all(np.isfinite(got)):
        raise Mismatch(f"{what}: the output has nan or inf: subtract each row's maximum score before exp")
    expected, _, _ = rope_attention(reference, x, w_q, w_k, w_v, theta)
    expect_close(got, expected[:, first:], what, x, w_q, w_k, w_v, passport="(B, n, d_v)")


@given(given_cache())
def test_leaves_the_cache_unchanged(student, reference, case):
    """cached_rope_attention: the cache passed in is left unchanged (a new dict is returned)"""
    x_new, cache, w_q, w_k, w_v, theta = case
    result, (args_after, _) = student.inputs_after("cached_rope_attention", x_new, cache, w_q, w_k, w_v, theta)
    expect_pair(result, "cached_rope_attention", "(out, new_cache)")
    expect_cache_unchanged("cached_rope_attention", cache, args_after[1])


# ---------------------------------------------------------------- StreamingLLM: sinks and a window


# Where a cache's length t may fall against the sinks and the window: each is drawn as often, so
# that twenty examples meet a cache shorter than the window (a slice from t - window wraps round),
# one shorter than the sinks, one that just fits, and one with tokens to drop.
REGIMES = {
    "shorter than the window": lambda n_sinks, window: st.integers(1, window),
    "shorter than the sinks": lambda n_sinks, window: st.integers(1, max(1, n_sinks)),
    "no longer than sinks and window": lambda n_sinks, window: st.integers(max(1, n_sinks), n_sinks + window),
    "longer than sinks and window": lambda n_sinks, window: st.integers(n_sinks + window + 1, n_sinks + window + 8),
}


@st.composite
def cache_and_budget(draw, short=False):
    """A cache {"k": (B, t, d_k), "v": (B, t, d_v)} and (n_sinks, window), t in one of ``REGIMES``;
    with ``short``, t ≤ n_sinks + window."""
    batch, d_k, d_v, seed = draw(st.integers(1, 2)), draw(SIZE), draw(SIZE), draw(SEED)
    n_sinks, window = draw(st.integers(0, 4)), draw(st.integers(1, 5))
    regimes = [r for r in REGIMES if not (short and r.startswith("longer"))]
    t = draw(REGIMES[draw(st.sampled_from(regimes), label="the cache's length")](n_sinks, window))
    return {"k": normal(seed, (batch, t, d_k)), "v": normal(seed + 1, (batch, t, d_v))}, n_sinks, window


def expect_kept(got, expected, what: str) -> None:
    if not isinstance(got, dict) or not {"k", "v"} <= set(got):
        raise Mismatch(f"{what} should return a cache dict with 'k' and 'v', got {type(got).__name__}")
    for name, passport in (("k", "(B, m, d_k)"), ("v", "(B, m, d_v)")):
        expect_close(got[name], expected[name], f"{what}: the kept {'keys' if name == 'k' else 'values'}", expected[name], passport=passport)


# (t, n_sinks, window) where slicing goes wrong: a window longer than the cache (t - window < 0
# wraps round in a slice or np.delete), sinks beyond the cache, a cache of exactly the window, one
# or two tokens to drop.
EDGES = [(3, 0, 4), (3, 1, 5), (2, 3, 1), (4, 0, 4), (5, 2, 2), (6, 2, 3)]


@given(cache_and_budget())
def test_evict_values(student, reference, case):
    """evict_to_sinks_and_window: keeps tokens 0..n_sinks-1 and the last window, in order, each once (drawn caches, and caches shorter than the window or the sinks)"""
    cache, n_sinks, window = case
    edges = [({"k": cache["k"][:, :1].repeat(t, axis=1) * np.arange(1, t + 1)[:, None], "v": cache["v"][:, :1].repeat(t, axis=1) - np.arange(t)[:, None]}, s, w) for t, s, w in EDGES]
    for each, sinks, size in [(cache, n_sinks, window), *edges]:
        what = f"evict_to_sinks_and_window(cache of {each['k'].shape[1]} tokens, n_sinks={sinks}, window={size})"
        expect_kept(student.evict_to_sinks_and_window(each, sinks, size), reference.evict_to_sinks_and_window(each, sinks, size), what)


@given(cache_and_budget(short=True))
def test_evict_short_cache_is_kept_whole(student, reference, case):
    """evict_to_sinks_and_window: a cache no longer than n_sinks + window is kept whole, no token twice"""
    cache, n_sinks, window = case
    what = f"evict_to_sinks_and_window(cache of {cache['k'].shape[1]} tokens, n_sinks={n_sinks}, window={window})"
    expect_kept(student.evict_to_sinks_and_window(cache, n_sinks, window), cache, what)


@given(cache_and_budget(), SEED)
def test_evict_matches_the_sink_window_mask(student, reference, case, seed):
    """evict_to_sinks_and_window: the newest query over the kept keys gets its output under sink_window_mask over every key"""
    cache, n_sinks, window = case
    t = cache["k"].shape[1]
    q = normal(seed, cache["k"].shape[:1] + (1, cache["k"].shape[2]))
    what = f"evict_to_sinks_and_window(cache of {t} tokens, n_sinks={n_sinks}, window={window})"
    kept = student.evict_to_sinks_and_window(cache, n_sinks, window)
    if not isinstance(kept, dict) or not {"k", "v"} <= set(kept):
        raise Mismatch(f"{what} should return a cache dict with 'k' and 'v', got {type(kept).__name__}")
    keys, values = expect_array(kept["k"], f"{what}['k']"), expect_array(kept["v"], f"{what}['v']")
    if keys.ndim != 3 or values.ndim != 3 or keys.shape[1] == 0 or keys.shape[:2] != values.shape[:2] or (keys.shape[0], keys.shape[2], values.shape[2]) != (q.shape[0], q.shape[2], cache["v"].shape[2]):
        raise Mismatch(f"{what} should keep keys (B, m, d_k) and values (B, m, d_v) of as many tokens, m ≥ 1, got {keys.shape} and {values.shape}")
    got, _ = reference.scaled_dot_product_attention(q, keys, values)
    expected, _ = reference.scaled_dot_product_attention(q, cache["k"], cache["v"], reference.sink_window_mask(t, n_sinks, window)[-1:])
    expect_close(got, expected, f"the newest query's output over what {what} keeps", q, cache["k"], cache["v"], passport="(B, 1, d_v)")


@given(cache_and_budget())
def test_evict_leaves_the_cache_unchanged(student, reference, case):
    """evict_to_sinks_and_window: the cache passed in is left unchanged"""
    cache, n_sinks, window = case
    result, (args_after, _) = student.inputs_after("evict_to_sinks_and_window", cache, n_sinks, window)
    expect_cache_unchanged("evict_to_sinks_and_window", cache, args_after[0])
