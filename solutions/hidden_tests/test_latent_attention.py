"""Hidden tests for latent_attention.py: MLA over a sequence, and its decode step with W_UK absorbed, on a cache of latents."""

import numpy as np
from attention_inputs import SEED, SIZE, normal
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_close, expect_every_row, expect_pair, expect_shape, expect_unchanged

BIG = 50.0  # query and key weights this large make scores of about ±1e4


@st.composite
def mla_case(draw, scale=1.0, min_tokens=1):
    """x (B, T, d_model) and the weights w_dkv (d_model, d_c), w_uk, w_uv (d_c, h·d_head),
    w_q (d_model, h·d_head), with n_heads; d_c and h·d_head drawn apart."""
    batch, t, d_model, d_c, heads, d_head, seed = (
        draw(st.integers(1, 2)),
        draw(st.integers(min_tokens, 5)),
        draw(SIZE),
        draw(SIZE),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 3)),
        draw(SEED),
    )
    width = heads * d_head
    weights = (
        normal(seed + 1, (d_model, d_c)),
        normal(seed + 2, (d_c, width), scale=scale),
        normal(seed + 3, (d_c, width)),
        normal(seed + 4, (d_model, width), scale=scale),
    )
    return normal(seed, (batch, t, d_model)), *weights, heads


def expect_mla(got, expected, what: str, *inputs) -> None:
    out, latent = expect_pair(got, what, "(out, latent)")
    expect_close(out, expected[0], f"{what}: its output", *inputs, passport="(B, T, n_heads * d_head)")
    expect_close(latent, expected[1], f"{what}: the latent it returns (x @ w_dkv, what a cache keeps)", *inputs, passport="(B, T, d_c)")


# ---------------------------------------------------------------- MLA over a sequence


@given(mla_case(), st.booleans())
def test_mla_values(student, reference, case, causal):
    """mla_attention: each head attends with keys and values up-projected from the latents, and the latents are returned"""
    x, w_dkv, w_uk, w_uv, w_q, heads = case
    what = f"mla_attention(x, ..., n_heads={heads}, causal={causal})"
    got = student.mla_attention(x, w_dkv, w_uk, w_uv, w_q, heads, causal=causal)
    expect_mla(got, reference.mla_attention(x, w_dkv, w_uk, w_uv, w_q, heads, causal=causal), what, x, w_dkv, w_uk, w_uv, w_q)


@given(mla_case())
def test_mla_one_head_is_attention_on_the_up_projections(student, reference, case):
    """mla_attention: with one head it is causal scaled dot-product attention of x W_Q over the keys latent W_UK and values latent W_UV"""
    x, w_dkv, w_uk, w_uv, w_q, _ = case  # every column in one head
    what = "mla_attention(x, ..., n_heads=1)"
    out, _ = expect_pair(student.mla_attention(x, w_dkv, w_uk, w_uv, w_q, 1), what, "(out, latent)")
    latent = x @ w_dkv
    expected, _ = reference.scaled_dot_product_attention(x @ w_q, latent @ w_uk, latent @ w_uv, reference.causal_mask(x.shape[1]))
    expect_close(out, expected, what, x, w_dkv, w_uk, w_uv, w_q, passport="(B, T, d_head)")


@given(mla_case(min_tokens=2), SEED)
def test_mla_future_leaves_the_past(student, reference, case, seed):
    """mla_attention: causal, changing the last token leaves every earlier output unchanged"""
    x, w_dkv, w_uk, w_uv, w_q, heads = case
    changed = x.copy()
    changed[:, -1] = normal(seed, x[:, -1].shape)
    before, _ = expect_pair(student.mla_attention(x, w_dkv, w_uk, w_uv, w_q, heads), "mla_attention(x)", "(out, latent)")
    after, _ = expect_pair(student.mla_attention(changed, w_dkv, w_uk, w_uv, w_q, heads), "mla_attention(x') with a new last token", "(out, latent)")
    before, after = expect_array(before, "mla_attention(x)"), expect_array(after, "mla_attention(x')")
    expect_shape(after, before.shape, "mla_attention(x')", "(B, T, n_heads * d_head)")
    expect_close(after[:, :-1], before[:, :-1], "the outputs before the last token, after the last token changed", x, w_dkv, w_uk, w_uv, w_q)


@given(mla_case(scale=BIG))
def test_mla_large_scores(student, reference, case):
    """mla_attention: no nan or inf and the right values when scores reach ±1e4"""
    x, w_dkv, w_uk, w_uv, w_q, heads = case
    what = "mla_attention with scores of about ±1e4"
    got = student.mla_attention(x, w_dkv, w_uk, w_uv, w_q, heads)
    expect_mla(got, reference.mla_attention(x, w_dkv, w_uk, w_uv, w_q, heads), what, x, w_dkv, w_uk, w_uv, w_q)


# ---------------------------------------------------------------- the decode step, W_UK absorbed

# The memory test measures what absorption saves: at t = 16384 cached latents of width 16, with 8
# heads of width 32, every head's keys (B, h, t, d_head) are 32 MiB and the values as much again,
# while the absorbed step holds the cache as the worker got it (twice: the message and the array
# decoded from it), the new cache, a few (B, h, 1, t) arrays of scores and weights, and a fixed
# allowance for the worker: about 15 MiB.
MEMORY_TOKENS, MEMORY_LATENT, MEMORY_HEADS, MEMORY_HEAD_WIDTH, MEMORY_MODEL = 1 << 14, 16, 8, 32, 32
INPUT_COPIES = 2
SCORE_ARRAYS = 4
WORKER_ALLOWANCE_BYTES = 5 << 20


def decode_budget(cache, heads) -> int:
    """What the absorbed decode step may hold during one call: see the comment above."""
    batch, t, _ = cache.shape
    scores = batch * heads * (t + 1) * 8
    return INPUT_COPIES * cache.nbytes + cache.nbytes + SCORE_ARRAYS * scores + WORKER_ALLOWANCE_BYTES


def test_decode_never_holds_the_keys(student, reference):
    """mla_decode_step: with W_UK absorbed, a step over 16384 cached latents never holds the cached tokens' keys or values (peak memory), and its answer is right"""
    rng = np.random.default_rng(16)
    width = MEMORY_HEADS * MEMORY_HEAD_WIDTH
    cache = rng.standard_normal((1, MEMORY_TOKENS, MEMORY_LATENT))
    x_t = rng.standard_normal((1, 1, MEMORY_MODEL))
    w_dkv, w_q = rng.standard_normal((MEMORY_MODEL, MEMORY_LATENT)) * 0.3, rng.standard_normal((MEMORY_MODEL, width)) * 0.3
    w_uk, w_uv = rng.standard_normal((MEMORY_LATENT, width)) * 0.3, rng.standard_normal((MEMORY_LATENT, width))
    budget = decode_budget(cache, MEMORY_HEADS)
    result, peak = student.memory_within(budget, "mla_decode_step", x_t, cache, w_dkv, w_uk, w_uv, w_q, MEMORY_HEADS)
    what = f"mla_decode_step over {MEMORY_TOKENS} cached latents of width {MEMORY_LATENT}, {MEMORY_HEADS} heads of width {MEMORY_HEAD_WIDTH}"
    out, new_cache = expect_pair(result, what, "(out_t, new_cache)")
    expect_shape(expect_array(out, what), (1, 1, width), what, "(B, 1, n_heads * d_head)")
    if peak > budget:  # the peak itself is not told: the kernel's count of it moves by a page or two between runs
        keys = MEMORY_TOKENS * width * 8 / 2**20
        raise Mismatch(
            f"mla_decode_step held more than {budget / 2**20:.1f} MiB over {MEMORY_TOKENS} cached latents; the absorbed step needs at "
            f"most that (the cache, the new cache and the scores). Every head's keys are {keys:.0f} MiB and the values as much: fold "
            "W_UK into the query (q_h W_UK_hᵀ, width d_c) and score the latents directly, and apply W_UV to the weighted latent"
        )
    expected_out, expected_cache = reference.mla_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, MEMORY_HEADS)
    expect_every_row(out, expected_out, f"{what}: its output", x_t, cache, w_q)
    expect_every_row(expect_array(new_cache, f"{what}: the new cache"), expected_cache, f"{what}: the new cache", x_t, cache)


def run_steps(student, x, w_dkv, w_uk, w_uv, w_q, heads):
    cache, outputs = None, []
    for t in range(x.shape[1]):
        what = f"mla_decode_step at step {t}"
        out_t, cache = expect_pair(student.mla_decode_step(x[:, t : t + 1], cache, w_dkv, w_uk, w_uv, w_q, heads), what, "(out_t, new_cache)")
        expect_shape(expect_array(out_t, what), (x.shape[0], 1, w_q.shape[1]), what, "(B, 1, n_heads * d_head)")
        outputs.append(out_t)
    return np.concatenate(outputs, axis=1), cache


@given(mla_case())
def test_decode_steps_equal_mla_attention(student, reference, case):
    """mla_decode_step: the steps over a sequence equal causal mla_attention over it, and the cache ends as its latents"""
    x, w_dkv, w_uk, w_uv, w_q, heads = case
    outputs, cache = run_steps(student, x, w_dkv, w_uk, w_uv, w_q, heads)
    expected, latent = reference.mla_attention(x, w_dkv, w_uk, w_uv, w_q, heads, causal=True)
    expect_close(outputs, expected, "mla_decode_step's outputs stacked over the steps", x, w_dkv, w_uk, w_uv, w_q, passport="(B, T, n_heads * d_head)")
    expect_close(cache, latent, "the cache after every step (each token's latent, in order)", x, w_dkv, passport="(B, T, d_c)")


@st.composite
def given_latents(draw, scale=1.0):
    """One new token x_t (B, 1, d_model) after a cache of t latents (B, t, d_c) no call of the student's built."""
    x, w_dkv, w_uk, w_uv, w_q, heads = draw(mla_case(scale=scale))
    t, seed = draw(st.integers(1, 6)), draw(SEED)
    return x[:, :1], normal(seed, (x.shape[0], t, w_dkv.shape[1])), w_dkv, w_uk, w_uv, w_q, heads


@given(given_latents())
def test_decode_continues_a_cache_it_did_not_build(student, reference, case):
    """mla_decode_step: from t cached latents it did not compute, the new token attends over them and itself, and its latent is appended"""
    x_t, cache, w_dkv, w_uk, w_uv, w_q, heads = case
    what = f"mla_decode_step after a cache of {cache.shape[1]} latents, n_heads={heads}"
    out, new_cache = expect_pair(student.mla_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, heads), what, "(out_t, new_cache)")
    expected_out, expected_cache = reference.mla_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, heads)
    expect_close(out, expected_out, f"{what}: its output", x_t, cache, w_dkv, w_uk, w_uv, w_q, passport="(B, 1, n_heads * d_head)")
    expect_close(new_cache, expected_cache, f"{what}: the new cache", x_t, cache, w_dkv, passport="(B, t+1, d_c)")


@given(given_latents(scale=BIG))
def test_decode_large_scores(student, reference, case):
    """mla_decode_step: no nan or inf and the right output when scores reach ±1e4"""
    x_t, cache, w_dkv, w_uk, w_uv, w_q, heads = case
    what = "mla_decode_step with scores of about ±1e4"
    out, _ = expect_pair(student.mla_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, heads), what, "(out_t, new_cache)")
    got = expect_array(out, what)
    if not np.all(np.isfinite(got)):
        raise Mismatch(f"{what}: the output has nan or inf: subtract each row's maximum score before exp")
    expect_close(got, reference.mla_decode_step(x_t, cache, w_dkv, w_uk, w_uv, w_q, heads)[0], what, x_t, cache, w_dkv, w_uk, w_uv, w_q, passport="(B, 1, n_heads * d_head)")


@given(given_latents())
def test_decode_leaves_the_cache_unchanged(student, reference, case):
    """mla_decode_step: the cache passed in is left unchanged (a new array is returned)"""
    x_t, cache, w_dkv, w_uk, w_uv, w_q, heads = case
    result, (args_after, _) = student.inputs_after("mla_decode_step", x_t, cache, w_dkv, w_uk, w_uv, w_q, heads)
    expect_pair(result, "mla_decode_step", "(out_t, new_cache)")
    expect_unchanged("mla_decode_step", ("latent_cache",), (cache,), (args_after[1],))


# ---------------------------------------------------------------- decoupled RoPE (DeepSeek-V2)


@st.composite
def mla_rope_case(draw, scale=1.0, min_tokens=1):
    """mla_case's x and weights, then w_qr (d_model, h·d_rope) and w_kr (d_model, d_rope) with d_rope
    even, and n_heads."""
    x, w_dkv, w_uk, w_uv, w_q, heads = draw(mla_case(scale=scale, min_tokens=min_tokens))
    d_rope, seed = 2 * draw(st.integers(1, 2)), draw(SEED)
    d_model = x.shape[-1]
    w_qr = normal(seed + 5, (d_model, heads * d_rope), scale=scale)
    w_kr = normal(seed + 6, (d_model, d_rope), scale=scale)
    return x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, heads


def expect_mla_rope(got, expected, what: str, *inputs) -> None:
    out, cache = expect_pair(got, what, "(out, (latent, rope_keys))")
    latent, rope_keys = expect_pair(cache, f"{what}: what it returns for a cache", "(latent, rope_keys)")
    expect_close(out, expected[0], f"{what}: its output", *inputs, passport="(B, T, n_heads * d_head)")
    expect_close(latent, expected[1][0], f"{what}: the latent it returns (x @ w_dkv)", *inputs, passport="(B, T, d_c)")
    expect_close(rope_keys, expected[1][1], f"{what}: the RoPE keys it returns (rope(x @ w_kr) at 0..T-1)", *inputs, passport="(B, T, d_rope)")


@given(mla_rope_case(), st.booleans())
def test_mla_rope_values(student, reference, case, causal):
    """mla_rope_attention: each head scores with its content part and its RoPE part against the one shared RoPE key, and the cache's latents and RoPE keys are returned"""
    *arrays, heads = case
    what = f"mla_rope_attention(x, ..., n_heads={heads}, causal={causal})"
    got = student.mla_rope_attention(*arrays, heads, causal=causal)
    expect_mla_rope(got, reference.mla_rope_attention(*arrays, heads, causal=causal), what, *arrays)


@given(mla_rope_case())
def test_mla_rope_one_head_is_attention_on_the_joined_parts(student, reference, case):
    """mla_rope_attention: with one head it is causal scaled dot-product attention of [x W_Q, RoPE(x W_QR)] over the keys [c W_UK, RoPE(x W_KR)] and the values c W_UV"""
    x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, _ = case
    w_qr = w_qr[:, : w_kr.shape[1]]  # one head: its RoPE query is as wide as the key
    what = "mla_rope_attention(x, ..., n_heads=1)"
    out, _ = expect_pair(student.mla_rope_attention(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, 1), what, "(out, (latent, rope_keys))")
    latent, positions = x @ w_dkv, np.arange(x.shape[1])
    q = np.concatenate([x @ w_q, reference.rope(x @ w_qr, positions)], axis=-1)
    k = np.concatenate([latent @ w_uk, reference.rope(x @ w_kr, positions)], axis=-1)
    expected, _ = reference.scaled_dot_product_attention(q, k, latent @ w_uv, reference.causal_mask(x.shape[1]))
    expect_close(out, expected, what, x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, passport="(B, T, d_head)")


@given(mla_rope_case())
def test_mla_rope_without_the_rope_query_is_mla_rescaled(student, reference, case):
    """mla_rope_attention: with w_qr = 0 only the content scores remain, scaled by 1/√(d_head + d_rope): mla_attention with the queries shrunk by √(d_head / (d_head + d_rope))"""
    x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, heads = case
    w_qr = np.zeros_like(w_qr)
    what = f"mla_rope_attention(x, ..., w_qr=0, n_heads={heads})"
    out, _ = expect_pair(student.mla_rope_attention(x, w_dkv, w_uk, w_uv, w_q, w_qr, w_kr, heads), what, "(out, (latent, rope_keys))")
    d_head, d_rope = w_q.shape[1] // heads, w_kr.shape[1]
    expected, _ = reference.mla_attention(x, w_dkv, w_uk, w_uv, w_q * np.sqrt(d_head / (d_head + d_rope)), heads)
    expect_close(out, expected, what, x, w_dkv, w_uk, w_uv, w_q, w_kr, passport="(B, T, n_heads * d_head)")


@given(mla_rope_case(min_tokens=2), SEED)
def test_mla_rope_future_leaves_the_past(student, reference, case, seed):
    """mla_rope_attention: causal, changing the last token leaves every earlier output unchanged"""
    x, *weights, heads = case
    changed = x.copy()
    changed[:, -1] = normal(seed, x[:, -1].shape)
    names = "(out, (latent, rope_keys))"
    before, _ = expect_pair(student.mla_rope_attention(x, *weights, heads), "mla_rope_attention(x)", names)
    after, _ = expect_pair(student.mla_rope_attention(changed, *weights, heads), "mla_rope_attention(x') with a new last token", names)
    before, after = expect_array(before, "mla_rope_attention(x)"), expect_array(after, "mla_rope_attention(x')")
    expect_shape(after, before.shape, "mla_rope_attention(x')", "(B, T, n_heads * d_head)")
    expect_close(after[:, :-1], before[:, :-1], "the outputs before the last token, after the last token changed", x, *weights)


@given(mla_rope_case(scale=BIG))
def test_mla_rope_large_scores(student, reference, case):
    """mla_rope_attention: no nan or inf and the right values when scores reach ±1e4"""
    *arrays, heads = case
    what = "mla_rope_attention with scores of about ±1e4"
    expect_mla_rope(student.mla_rope_attention(*arrays, heads), reference.mla_rope_attention(*arrays, heads), what, *arrays)


# The decode step's memory test: the cache of 16384 tokens is a latent of width 16 and a RoPE key of
# width 8 each; 8 heads of width 32 would make the cached tokens' keys 32 MiB, and the values as much.
# The absorbed step holds the cache as the worker got it (twice), the new cache, a few (B, h, 1, t)
# arrays of scores (the content part, the RoPE part, their sum and the weights) and the worker's allowance.
MEMORY_ROPE = 8
ROPE_SCORE_ARRAYS = 6


def rope_decode_budget(cache, heads) -> int:
    """What the absorbed decode step with a RoPE key may hold during one call: see the comment above."""
    latent, rope_keys = cache
    batch, t, _ = latent.shape
    scores = batch * heads * (t + 1) * 8
    held = latent.nbytes + rope_keys.nbytes
    return INPUT_COPIES * held + held + ROPE_SCORE_ARRAYS * scores + WORKER_ALLOWANCE_BYTES


def test_rope_decode_never_holds_the_keys(student, reference):
    """mla_rope_decode_step: with W_UK absorbed, a step over 16384 cached latents and RoPE keys never holds the cached tokens' keys or values (peak memory), and its answer is right"""
    rng = np.random.default_rng(17)
    width = MEMORY_HEADS * MEMORY_HEAD_WIDTH
    cache = (rng.standard_normal((1, MEMORY_TOKENS, MEMORY_LATENT)), rng.standard_normal((1, MEMORY_TOKENS, MEMORY_ROPE)))
    x_t = rng.standard_normal((1, 1, MEMORY_MODEL))
    w_dkv, w_q = rng.standard_normal((MEMORY_MODEL, MEMORY_LATENT)) * 0.3, rng.standard_normal((MEMORY_MODEL, width)) * 0.3
    w_uk, w_uv = rng.standard_normal((MEMORY_LATENT, width)) * 0.3, rng.standard_normal((MEMORY_LATENT, width))
    w_qr = rng.standard_normal((MEMORY_MODEL, MEMORY_HEADS * MEMORY_ROPE)) * 0.3
    w_kr = rng.standard_normal((MEMORY_MODEL, MEMORY_ROPE)) * 0.3
    weights = (w_dkv, w_uk, w_uv, w_q, w_qr, w_kr)
    budget = rope_decode_budget(cache, MEMORY_HEADS)
    result, peak = student.memory_within(budget, "mla_rope_decode_step", x_t, cache, *weights, MEMORY_HEADS)
    what = f"mla_rope_decode_step over {MEMORY_TOKENS} cached latents of width {MEMORY_LATENT} and RoPE keys of width {MEMORY_ROPE}, {MEMORY_HEADS} heads of width {MEMORY_HEAD_WIDTH}"
    out, new_cache = expect_pair(result, what, "(out_t, (latent, rope_keys))")
    expect_shape(expect_array(out, what), (1, 1, width), what, "(B, 1, n_heads * d_head)")
    if peak > budget:  # the peak itself is not told: the kernel's count of it moves by a page or two between runs
        keys = MEMORY_TOKENS * width * 8 / 2**20
        raise Mismatch(
            f"mla_rope_decode_step held more than {budget / 2**20:.1f} MiB over {MEMORY_TOKENS} cached tokens; the absorbed step needs at "
            f"most that (the cache, the new cache and the scores). Every head's keys are {keys:.0f} MiB and the values as much: fold "
            "W_UK into the query (q_h W_UK_hᵀ, width d_c) and score the latents directly, add the RoPE score against the cached RoPE "
            "keys, and apply W_UV to the weighted latent"
        )
    expected_out, (expected_latent, expected_keys) = reference.mla_rope_decode_step(x_t, cache, *weights, MEMORY_HEADS)
    latent, rope_keys = expect_pair(new_cache, f"{what}: the new cache", "(latent, rope_keys)")
    expect_every_row(out, expected_out, f"{what}: its output", x_t, *cache, w_q, w_qr)
    expect_every_row(expect_array(latent, f"{what}: the new cache's latents"), expected_latent, f"{what}: the new cache's latents", x_t, cache[0])
    expect_every_row(expect_array(rope_keys, f"{what}: the new cache's RoPE keys"), expected_keys, f"{what}: the new cache's RoPE keys", x_t, cache[1])


def run_rope_steps(student, x, *weights_and_heads):
    cache, outputs = None, []
    width = weights_and_heads[3].shape[1]  # w_q's
    for t in range(x.shape[1]):
        what = f"mla_rope_decode_step at step {t}"
        result = student.mla_rope_decode_step(x[:, t : t + 1], cache, *weights_and_heads)
        out_t, cache = expect_pair(result, what, "(out_t, (latent, rope_keys))")
        expect_shape(expect_array(out_t, what), (x.shape[0], 1, width), what, "(B, 1, n_heads * d_head)")
        expect_pair(cache, f"{what}: the new cache", "(latent, rope_keys)")
        outputs.append(out_t)
    return np.concatenate(outputs, axis=1), cache


@given(mla_rope_case())
def test_rope_decode_steps_equal_mla_rope_attention(student, reference, case):
    """mla_rope_decode_step: the steps over a sequence, each at its true position, equal causal mla_rope_attention over it, and the cache ends as its latents and RoPE keys"""
    x, *weights, heads = case
    outputs, (latent, rope_keys) = run_rope_steps(student, x, *weights, heads)
    expected, (expected_latent, expected_keys) = reference.mla_rope_attention(x, *weights, heads, causal=True)
    expect_close(outputs, expected, "mla_rope_decode_step's outputs stacked over the steps", x, *weights, passport="(B, T, n_heads * d_head)")
    expect_close(latent, expected_latent, "the cache's latents after every step (each token's, in order)", x, weights[0], passport="(B, T, d_c)")
    expect_close(rope_keys, expected_keys, "the cache's RoPE keys after every step (each token's, rotated at its position)", x, weights[-1], passport="(B, T, d_rope)")


@st.composite
def given_rope_cache(draw, scale=1.0):
    """One new token x_t (B, 1, d_model) after a cache of t latents (B, t, d_c) and RoPE keys (B, t, d_rope) no call of the student's built."""
    x, *weights, heads = draw(mla_rope_case(scale=scale))
    t, seed = draw(st.integers(1, 6)), draw(SEED)
    batch, d_c, d_rope = x.shape[0], weights[0].shape[1], weights[-1].shape[1]
    cache = (normal(seed, (batch, t, d_c)), normal(seed + 1, (batch, t, d_rope)))
    return x[:, :1], cache, *weights, heads


def expect_rope_step(got, expected, what: str, *inputs) -> None:
    out, new_cache = expect_pair(got, what, "(out_t, (latent, rope_keys))")
    latent, rope_keys = expect_pair(new_cache, f"{what}: the new cache", "(latent, rope_keys)")
    expect_close(out, expected[0], f"{what}: its output", *inputs, passport="(B, 1, n_heads * d_head)")
    expect_close(latent, expected[1][0], f"{what}: the new cache's latents", *inputs, passport="(B, t+1, d_c)")
    expect_close(rope_keys, expected[1][1], f"{what}: the new cache's RoPE keys (the new one rotated at position t)", *inputs, passport="(B, t+1, d_rope)")


@given(given_rope_cache())
def test_rope_decode_continues_a_cache_it_did_not_build(student, reference, case):
    """mla_rope_decode_step: after t cached tokens it did not compute, the new token is rotated at position t, attends over them and itself, and its latent and RoPE key are appended"""
    x_t, cache, *weights, heads = case
    what = f"mla_rope_decode_step after a cache of {cache[0].shape[1]} tokens, n_heads={heads}"
    got = student.mla_rope_decode_step(x_t, cache, *weights, heads)
    expect_rope_step(got, reference.mla_rope_decode_step(x_t, cache, *weights, heads), what, x_t, *cache, *weights)


@given(given_rope_cache(scale=BIG))
def test_rope_decode_large_scores(student, reference, case):
    """mla_rope_decode_step: no nan or inf and the right output when scores reach ±1e4"""
    x_t, cache, *weights, heads = case
    what = "mla_rope_decode_step with scores of about ±1e4"
    out, _ = expect_pair(student.mla_rope_decode_step(x_t, cache, *weights, heads), what, "(out_t, (latent, rope_keys))")
    got = expect_array(out, what)
    if not np.all(np.isfinite(got)):
        raise Mismatch(f"{what}: the output has nan or inf: subtract each row's maximum score before exp")
    expected = reference.mla_rope_decode_step(x_t, cache, *weights, heads)[0]
    expect_close(got, expected, what, x_t, *cache, *weights, passport="(B, 1, n_heads * d_head)")


@given(given_rope_cache())
def test_rope_decode_leaves_the_cache_unchanged(student, reference, case):
    """mla_rope_decode_step: the cache's latents and RoPE keys passed in are left unchanged (new arrays are returned)"""
    x_t, cache, *weights, heads = case
    result, (args_after, _) = student.inputs_after("mla_rope_decode_step", x_t, cache, *weights, heads)
    expect_pair(result, "mla_rope_decode_step", "(out_t, (latent, rope_keys))")
    expect_pair(args_after[1], "the cache after the call", "(latent, rope_keys)")
    expect_unchanged("mla_rope_decode_step", ("cache[0], the latents", "cache[1], the RoPE keys"), cache, tuple(args_after[1]))
