"""Hidden tests for efficient.py: online softmax, grouped-query attention, KV cache."""

import numpy as np
from attention_inputs import LEAD, SEED, SIZE, attend_mask, normal, qkv
from blind_queries import blind_queries, causal_and, expect_blind_rows, left_padded
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_cache_unchanged, expect_close, expect_every_row, expect_finite, expect_pair, expect_shape
from attnlab.outcomes import StudentError

# The memory tests measure the algorithm the lesson teaches, not only "no (L_q, L_k) array": at
# L_k = 2^20 keys one query's whole row of scores is 8 MiB, so a version that computes plain softmax
# over whole key rows, however few queries at a time, is over its budget, while the online
# algorithm holds a few (L_q, block) tiles. The budget is what the algorithm with the given block
# sizes needs: the inputs as the worker holds them during a call (twice: the message they came in
# and the arrays decoded from it), the answer, a fixed allowance for the worker itself, and a
# dozen of the call's own tiles. The reference measures about 3 MiB past the inputs and its answer,
# a query's row alone is 8 MiB. Keys and values have one feature, so that the inputs cost as little as a
# row can; the scores grow along the keys, so that every block raises the running maximum of
# half the queries, and a mask of the keys hides some of them: the blocks matter in the values,
# and every row of the answer is checked.
MEMORY_QUERIES, MEMORY_KEYS, MEMORY_BLOCK = 4, 1 << 20, 8192
INPUT_COPIES = 2
WORKER_ALLOWANCE_BYTES = 5 << 20
TILES_ALLOWED = 12


def memory_budget(inputs, answer_bytes: int, tile_bytes: int) -> int:
    """What the algorithm may hold during one call: see the comment above."""
    given = sum(np.asarray(a).nbytes for a in inputs if a is not None)
    return INPUT_COPIES * given + answer_bytes + WORKER_ALLOWANCE_BYTES + TILES_ALLOWED * tile_bytes


def long_keys(seed, n_q=MEMORY_QUERIES, n_k=MEMORY_KEYS):
    """q (n_q, 1), k and v (n_k, 1) and a mask of the keys (1, n_k): scores that grow along the
    keys for the even queries (each block raises their maximum) and fall for the odd ones; about
    one key in eight hidden."""
    rng = np.random.default_rng(seed)
    q = np.where(np.arange(n_q) % 2 == 0, 1.0, -1.0)[:, None] * rng.uniform(0.5, 2.0, (n_q, 1))
    k = (np.linspace(-40.0, 40.0, n_k) + rng.standard_normal(n_k))[:, None]
    v = rng.standard_normal((n_k, 1))
    mask = rng.random((1, n_k)) > 0.125
    return q, k, v, mask


def over_budget(function, budget, n_q, n_k, tiles, tile_bytes) -> Mismatch:
    """The failure of a memory test: what the algorithm needs, and what holds more. The peak itself
    is not told: a kernel's count of it moves by a page or two between runs, and a report must
    read the same on every path."""
    return Mismatch(
        f"{function} held more than {budget / 2**20:.1f} MiB at L_q = {n_q}, L_k = {n_k} with {tiles}; the algorithm needs at most "
        f"{budget / 2**20:.1f} MiB there (the inputs, the answer and a few tiles of {tile_bytes / 2**10:.0f} KiB), and one "
        f"query's whole row of scores is {n_k * 8 / 2**20:.0f} MiB. Work on the tiles only: a plain softmax over whole key rows "
        "holds more, however few queries it takes at a time, and so does an (L_q, L_k) mask, or a copy of k or v"
    )


@given(qkv(), st.data())
def test_online_equals_attention_for_every_block_size(student, reference, case, data):
    """online_softmax_attention: equals plain attention for every block size"""
    q, k, v = case
    block = data.draw(st.integers(1, k.shape[-2] + 2), label="block_size")
    got = student.online_softmax_attention(q, k, v, block)
    expect_close(got, reference.scaled_dot_product_attention(q, k, v)[0], f"online_softmax_attention(block_size={block})", q, passport="(..., L_q, d_v)")


@given(qkv(same_length=True), st.data())
def test_online_causal(student, reference, case, data):
    """online_softmax_attention: with causal=True equals causally masked attention"""
    q, k, v = case
    block = data.draw(st.integers(1, k.shape[-2] + 1), label="block_size")
    expected = reference.scaled_dot_product_attention(q, k, v, reference.causal_mask(q.shape[-2]))[0]
    expect_close(student.online_softmax_attention(q, k, v, block, causal=True), expected, f"causal online_softmax_attention(block_size={block})", q)


@given(st.integers(4, 12), st.integers(1, 3), SIZE, SEED)
def test_online_rescales_when_the_max_grows(student, reference, n, block, d, seed):
    """online_softmax_attention: later blocks with larger scores (up to 1e4) rescale what came before"""
    q = np.ones((2, d))
    k = normal(seed, (n, d))
    k[-1] = 1e4 / np.sqrt(d) * np.sign(q[0])  # the last block holds by far the largest score
    v = normal(seed + 1, (n, d))
    expected = reference.scaled_dot_product_attention(q, k, v)[0]
    expect_close(student.online_softmax_attention(q, k, v, block), expected, f"online_softmax_attention(block_size={block}) with growing scores", q)


# Before the memory test, which a submission may hang: what comes after it in a file is lost alone.
BIG = 100.0  # one more feature of ±BIG in queries and BIG in keys shifts every score of a row by about ±1e4


def shifted_rows(q, k, signs):
    """q and k with one more feature: ``signs`` (L_q,) · BIG in query i, BIG in every key, so each
    score of row i moves by signs[i] · BIG² / √d_k (d_k counts the new feature)."""
    q = np.concatenate([q, np.broadcast_to((np.asarray(signs, dtype=float) * BIG)[:, None], q.shape[:-1] + (1,))], axis=-1)
    k = np.concatenate([k, np.full(k.shape[:-1] + (1,), BIG)], axis=-1)
    return q, k


@given(qkv(same_length=True, dtypes=st.just(np.float64)), st.data(), st.booleans())
def test_online_rows_far_below_zero(student, reference, case, data, causal):
    """online_softmax_attention: rows whose every score is far below zero (about -1e4) are right, causal or not"""
    q, k, v = case
    q, k = shifted_rows(q, k, -np.ones(q.shape[-2]))
    block = data.draw(st.integers(1, k.shape[-2] + 1), label="block_size")
    mask = reference.causal_mask(q.shape[-2]) if causal else None
    got = student.online_softmax_attention(q, k, v, block, causal=causal)
    what = f"online_softmax_attention(block_size={block}, causal={causal}) with every score about {-BIG * BIG / np.sqrt(q.shape[-1]):.0f}"
    expect_finite(expect_array(got, what), what)
    expect_close(got, reference.scaled_dot_product_attention(q, k, v, mask)[0], what, q, passport="(..., L_q, d_v)")


@given(qkv(dtypes=st.just(np.float64)), st.data())
def test_online_each_row_uses_its_own_maximum(student, reference, case, data):
    """online_softmax_attention: rows near +1e4 and rows near -1e4 in one call are all finite and right"""
    q, k, v = case
    signs = np.where(np.arange(q.shape[-2]) % 2 == 0, -1.0, 1.0)  # row 0 far below zero, row 1 far above, ...
    q, k = shifted_rows(q, k, signs)
    block = data.draw(st.integers(1, k.shape[-2] + 1), label="block_size")
    got = student.online_softmax_attention(q, k, v, block)
    what = f"online_softmax_attention(block_size={block}) with rows of scores near +1e4 and near -1e4"
    expect_finite(expect_array(got, what), what)
    expect_close(got, reference.scaled_dot_product_attention(q, k, v)[0], what, q, passport="(..., L_q, d_v)")


def test_online_never_holds_the_score_matrix(student, reference):
    """online_softmax_attention: never holds an (L_q, L_k) array, nor a whole row of keys: only (L_q, block_size) blocks (peak memory at L_k = 2^20), and every row of its answer is right"""
    q, k, v, mask = long_keys(7)
    n_q, n_k, block = q.shape[0], k.shape[0], MEMORY_BLOCK
    tile_bytes = n_q * block * 8
    budget = memory_budget((q, k, v, mask), n_q * v.shape[-1] * 8, tile_bytes)
    got, peak = student.memory_within(budget, "online_softmax_attention", q, k, v, block, mask=mask)
    what = f"online_softmax_attention(block_size={block}) at L_q = {n_q}, L_k = {n_k} with a mask of the keys"
    expect_shape(expect_array(got, what), (n_q, v.shape[-1]), what, "(L_q, d_v)")
    if peak > budget:
        raise over_budget("online_softmax_attention", budget, n_q, n_k, f"block_size = {block}", tile_bytes)
    expect_every_row(got, reference.online_softmax_attention(q, k, v, block, mask=mask), what, q, passport="(L_q, d_v)")


@st.composite
def gqa_case(draw):
    batch, kv_heads, group, n, d, seed = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(SIZE), draw(SIZE), draw(SEED)
    q = normal(seed, (batch, kv_heads * group, n, d))
    return q, normal(seed + 1, (batch, kv_heads, n, d)), normal(seed + 2, (batch, kv_heads, n, d))


@given(gqa_case())
def test_gqa_shapes(student, reference, case):
    """grouped_query_attention: output (B, h_q, T, d) and weights (B, h_q, T, T)"""
    q, k, v = case
    out, weights = expect_pair(student.grouped_query_attention(q, k, v), "grouped_query_attention")
    expect_shape(expect_array(out, "grouped_query_attention's output"), q.shape, "grouped_query_attention's output", "(B, h_q, T, d)")
    expect_shape(expect_array(weights, "grouped_query_attention's weights"), q.shape[:-1] + (q.shape[-2],), "grouped_query_attention's weights", "(B, h_q, T, T)")


@given(st.integers(2, 3), st.integers(2, 4), SIZE, SEED)
def test_gqa_head_mapping(student, reference, kv_heads, group, n, seed):
    """grouped_query_attention: query head h reads key/value head h // (h_q / h_kv)"""
    h_q = kv_heads * group
    q = normal(seed, (1, h_q, n, 2))
    k = normal(seed + 1, (1, kv_heads, n, 2))
    # Every value of kv head h is labels[h], distinct labels drawn per example: what a query head
    # outputs names the kv head it read, and no function of the shapes alone can know it.
    labels = np.random.default_rng(seed).permutation(50)[:kv_heads] * 2.0 + 1.0
    v = np.broadcast_to(labels[None, :, None, None], (1, kv_heads, n, 2)).copy()
    out, _ = expect_pair(student.grouped_query_attention(q, k, v), "grouped_query_attention")
    out = expect_array(out, "grouped_query_attention's output")
    expect_shape(out, q.shape, "grouped_query_attention's output", "(B, h_q, T, d)")
    read = np.argmin(np.abs(out[0, :, 0, 0][:, None] - labels[None, :]), axis=1)
    expected = np.arange(h_q) // group
    if not np.array_equal(read, expected):
        raise Mismatch(f"with h_q = {h_q} and h_kv = {kv_heads}, query heads should read kv heads {expected.tolist()}, but they read {read.tolist()}")


@given(gqa_case(), st.booleans())
def test_gqa_values(student, reference, case, causal):
    """grouped_query_attention: equals attention with each kv head repeated for its query group"""
    q, k, v = case
    out, weights = expect_pair(student.grouped_query_attention(q, k, v, causal=causal), "grouped_query_attention")
    expected_out, expected_weights = reference.grouped_query_attention(q, k, v, causal=causal)
    expect_close(weights, expected_weights, f"grouped_query_attention's weights (causal={causal})", q)
    expect_close(out, expected_out, f"grouped_query_attention's output (causal={causal})", q)


@st.composite
def decoding_case(draw):
    batch, n, d_model, d_k, d_v, seed = draw(st.integers(1, 3)), draw(SIZE), draw(SIZE), draw(SIZE), draw(SIZE), draw(SEED)
    return normal(seed, (batch, n, d_model)), normal(seed + 1, (d_model, d_k)), normal(seed + 2, (d_model, d_k)), normal(seed + 3, (d_model, d_v))


def run_steps(student, x, w_q, w_k, w_v):
    cache, outputs = None, []
    for t in range(x.shape[1]):
        out_t, cache = expect_pair(student.kv_cache_step(x[:, t : t + 1], cache, w_q, w_k, w_v), f"kv_cache_step at step {t}")
        expect_shape(expect_array(out_t, f"kv_cache_step's output at step {t}"), (x.shape[0], 1, w_v.shape[1]), f"kv_cache_step's output at step {t}", "(B, 1, d_v)")
        if not isinstance(cache, dict) or not {"k", "v"} <= set(cache):
            raise Mismatch(f"kv_cache_step should return a cache dict with 'k' and 'v', got {type(cache).__name__}")
        outputs.append(out_t)
    return np.concatenate(outputs, axis=1), cache


@st.composite
def given_cache_step(draw):
    """One decoding step from a cache the test made itself: x_t (B, 1, d_model), a cache
    {"k": (B, t, d_k), "v": (B, t, d_v)} of keys and values no token of this call produced
    (t from 1 to 5), the weights, and a left-padding mask (B, t + 1) or None."""
    batch, t, d_model, d_k, d_v, seed = draw(st.integers(1, 3)), draw(SIZE), draw(SIZE), draw(SIZE), draw(SIZE), draw(SEED)
    cache = {"k": normal(seed + 4, (batch, t, d_k)), "v": normal(seed + 5, (batch, t, d_v))}
    w_q, w_k, w_v = normal(seed + 1, (d_model, d_k)), normal(seed + 2, (d_model, d_k)), normal(seed + 3, (d_model, d_v))
    real = draw(st.none() | left_padded(batch=st.just(batch), tokens=st.just(t + 1)))
    return normal(seed, (batch, 1, d_model)), cache, w_q, w_k, w_v, real


@given(given_cache_step())
def test_kv_cache_continues_a_cache_it_did_not_build(student, reference, case):
    """kv_cache_step: one step from a cache of t keys and values it did not compute (any t, with or without a padding mask): the new query attends over them and the new token, and the new cache holds them, the new token last"""
    x_t, cache, w_q, w_k, w_v, real = case
    t = cache["k"].shape[1]
    what = f"kv_cache_step from a cache of {t} tokens" + ("" if real is None else f" with key_padding_mask {real.shape}")
    out, new_cache = expect_pair(student.kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=real), what)
    expected_out, expected_cache = reference.kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=real)
    expect_close(out, expected_out, f"{what}: its output", x_t, passport="(B, 1, d_v)")
    if not isinstance(new_cache, dict) or not {"k", "v"} <= set(new_cache):
        raise Mismatch(f"{what} should return a cache dict with 'k' and 'v', got {type(new_cache).__name__}")
    expect_close(new_cache["k"], expected_cache["k"], f"{what}: the new cache's keys", x_t, passport="(B, t+1, d_k)")
    expect_close(new_cache["v"], expected_cache["v"], f"{what}: the new cache's values", x_t, passport="(B, t+1, d_v)")


@given(decoding_case())
def test_kv_cache_first_step(student, reference, case):
    """kv_cache_step: the first step (cache=None) attends to the first token only"""
    x, w_q, w_k, w_v = case
    out, cache = expect_pair(student.kv_cache_step(x[:, :1], None, w_q, w_k, w_v), "kv_cache_step")
    expect_close(out, x[:, :1] @ w_v, "kv_cache_step's first output (the first token's value)", x)


@given(decoding_case())
def test_kv_cache_matches_causal_attention(student, reference, case):
    """kv_cache_step: the steps over a sequence equal causal self_attention over it"""
    x, w_q, w_k, w_v = case
    outputs, _ = run_steps(student, x, w_q, w_k, w_v)
    expect_close(outputs, reference.self_attention(x, w_q, w_k, w_v, causal=True)[0], "kv_cache_step outputs stacked over the steps", x, passport="(B, T, d_v)")


@given(decoding_case(), st.data())
def test_kv_cache_leaves_its_input_unchanged(student, reference, case, data):
    """kv_cache_step: the cache passed in is left unchanged (a new dict is returned)"""
    x, w_q, w_k, w_v = case
    x = np.concatenate([x, x[:, ::-1]], axis=1)  # at least two tokens: one cached, one new
    t = data.draw(st.integers(1, x.shape[1] - 1), label="cached tokens")
    cache = {"k": x[:, :t] @ w_k, "v": x[:, :t] @ w_v}
    result, (args_after, _) = student.inputs_after("kv_cache_step", x[:, t : t + 1], cache, w_q, w_k, w_v)
    expect_pair(result, "kv_cache_step")
    expect_cache_unchanged("kv_cache_step", cache, args_after[1])


@given(decoding_case())
def test_kv_cache_keeps_every_token(student, reference, case):
    """kv_cache_step: after t steps the cache holds the keys and values of all t tokens"""
    x, w_q, w_k, w_v = case
    _, cache = run_steps(student, x, w_q, w_k, w_v)
    expect_close(cache["k"], x @ w_k, "the cache's keys after every step", x, passport="(B, t, d_k)")
    expect_close(cache["v"], x @ w_v, "the cache's values after every step", x, passport="(B, t, d_v)")


# ---------------------------------------------------------------- extreme magnitudes, every option



@given(gqa_case(), st.booleans())
def test_gqa_stable_for_large_scores(student, reference, case, causal):
    """grouped_query_attention: no nan or inf and the right values when scores reach ±1e4, causal or not"""
    q, k, v = case
    q, k = q * BIG, k * BIG
    out, weights = expect_pair(student.grouped_query_attention(q, k, v, causal=causal), "grouped_query_attention")
    what = f"grouped_query_attention with scores of about ±1e4 (causal={causal})"
    expect_finite(expect_array(weights, f"{what}'s weights"), f"{what}'s weights")
    expect_finite(expect_array(out, f"{what}'s output"), f"{what}'s output")
    expected_out, expected_weights = reference.grouped_query_attention(q, k, v, causal=causal)
    expect_close(weights, expected_weights, f"{what}'s weights", q, passport="(B, h_q, T, T)")
    expect_close(out, expected_out, f"{what}'s output", q, passport="(B, h_q, T, d)")


@given(decoding_case())
def test_kv_cache_stable_for_large_scores(student, reference, case):
    """kv_cache_step: the steps equal causal self_attention when scores reach ±1e4"""
    x, w_q, w_k, w_v = case
    w_q, w_k = w_q * BIG, w_k * BIG
    outputs, _ = run_steps(student, x, w_q, w_k, w_v)
    what = "kv_cache_step outputs stacked over the steps, scores of about ±1e4"
    expect_finite(outputs, what)
    expect_close(outputs, reference.self_attention(x, w_q, w_k, w_v, causal=True)[0], what, x, passport="(B, T, d_v)")


# ---------------------------------------------------------------- a query that may see no key


@st.composite
def blind_qkv_case(draw):
    """(q, k, v, real): a left-padded batch, q and k (B, [h,] T, d_k), v (B, [h,] T, d_v), with or
    without a head axis; real (B, T) True at real tokens."""
    real = draw(left_padded())
    heads, d_k, d_v, seed = draw(st.sampled_from([(), (2,)])), draw(SIZE), draw(SIZE), draw(SEED)
    lead, n = (real.shape[0], *heads), real.shape[1]
    return normal(seed, lead + (n, d_k)), normal(seed + 1, lead + (n, d_k)), normal(seed + 2, lead + (n, d_v)), real


# How a left-padded batch under a causal mask reaches the online softmax: causal=True and a mask of
# the padded keys (B, 1, T), causal=True and a mask of the padded queries (B, T, 1), which broadcasts
# over the keys, or causal=False and one mask of both (B, T, T).
MASK_FORMS = ("padded keys", "padded queries", "one mask")


@given(blind_qkv_case(), st.data(), st.sampled_from(MASK_FORMS))
def test_online_blind_queries(student, reference, case, data, form):
    """online_softmax_attention: with left padding under a causal mask (a mask of the padded keys or queries with causal=True, or one mask of both), a query that may see no key gets a zero output for every block size; the other rows are right"""
    q, k, v, real = case
    rows = (slice(None), None) if q.ndim == 4 else (slice(None),)  # a head axis in the masks, to broadcast over heads
    causal = form != "one mask"
    masks = {
        "padded keys": real[(*rows, None, slice(None))],  # (B, [1,] 1, T)
        "padded queries": real[(*rows, slice(None), None)],  # (B, [1,] T, 1)
        "one mask": causal_and(real)[rows],  # (B, [1,] T, T)
    }
    mask = masks[form]
    both = np.tril(np.ones(2 * real.shape[-1:], dtype=bool)) & mask  # (B, [1,] T, T): what the call hides
    block = data.draw(st.integers(1, k.shape[-2] + 1), label="block_size")
    said = "one mask" if form == "one mask" else f"a mask of the {form}"
    what = f"online_softmax_attention(block_size={block}, causal={causal}) with {said}"
    got = expect_array(student.online_softmax_attention(q, k, v, block, causal=causal, mask=mask), what)
    expect_shape(got, q.shape[:-1] + v.shape[-1:], what, "(..., L_q, d_v)")
    axes = ("sequence", "head", "query") if q.ndim == 4 else ("sequence", "query")
    uniform = np.broadcast_to(v.mean(axis=-2, keepdims=True), got.shape)  # what a finite fill (-1e9) gives
    unmasked = reference.scaled_dot_product_attention(q, k, v)[0]
    expect_blind_rows(got, ~both.any(axis=-1), what, q, axes=axes, uniform=uniform, unmasked=unmasked)
    expect_close(got, reference.scaled_dot_product_attention(q, k, v, both)[0], what, q, passport="(..., L_q, d_v)")


@st.composite
def blind_gqa_case(draw):
    """(q, k, v, real): q (B, h_q, T, d), k and v (B, h_kv, T, d), real (B, T) a left padding mask."""
    real = draw(left_padded())
    (batch, n), kv_heads, group = real.shape, draw(st.integers(1, 3)), draw(st.integers(1, 3))
    d, seed = draw(SIZE), draw(SEED)
    q = normal(seed, (batch, kv_heads * group, n, d))
    return q, normal(seed + 1, (batch, kv_heads, n, d)), normal(seed + 2, (batch, kv_heads, n, d)), real


@given(blind_gqa_case(), st.booleans())
def test_gqa_blind_queries(student, reference, case, causal):
    """grouped_query_attention: with left padding, padded keys get no weight, and under causal=True a query that may see no key gets zero weights in every head and a zero output; the other rows are right"""
    q, k, v, real = case
    what = f"grouped_query_attention with left padding and causal={causal}"
    out, weights = expect_pair(student.grouped_query_attention(q, k, v, causal=causal, key_padding_mask=real), what)
    expect_shape(expect_array(out, f"{what}: output"), q.shape, f"{what}: output", "(B, h_q, T, d)")
    weights_shape = q.shape[:-1] + q.shape[-2:-1]
    expect_shape(expect_array(weights, f"{what}: weights"), weights_shape, f"{what}: weights", "(B, h_q, T, T)")
    blind = (blind_queries(real) if causal else np.zeros_like(real))[:, None, :]  # (B, 1, T): only under causal=True
    group = q.shape[1] // k.shape[1]
    # What a finite fill (-1e9) gives a blind query, and what a fill added to the scores gives it.
    uniform_weights = np.full(weights.shape, 1.0 / q.shape[-2])
    uniform_out = np.broadcast_to(np.repeat(v.mean(axis=-2, keepdims=True), group, axis=1), out.shape)
    unmasked_out, unmasked_weights = reference.grouped_query_attention(q, k, v)
    axes = ("sequence", "head", "query")
    expect_blind_rows(
        weights, blind, f"{what}: weights", q, axes=axes, uniform=uniform_weights, unmasked=unmasked_weights
    )
    expect_blind_rows(out, blind, f"{what}: output", q, axes=axes, uniform=uniform_out, unmasked=unmasked_out)
    expected_out, expected_weights = reference.grouped_query_attention(q, k, v, causal=causal, key_padding_mask=real)
    expect_close(weights, expected_weights, f"{what}: weights", q, passport="(B, h_q, T, T)")
    expect_close(out, expected_out, f"{what}: output", q, passport="(B, h_q, T, d)")


@st.composite
def blind_decoding_case(draw):
    """A decoding_case of a left-padded batch: x (B, T, d_model), w_q, w_k, w_v, real (B, T)."""
    real = draw(left_padded())
    (batch, n), d_model, d_k, d_v, seed = real.shape, draw(SIZE), draw(SIZE), draw(SIZE), draw(SEED)
    w_q, w_k, w_v = normal(seed + 1, (d_model, d_k)), normal(seed + 2, (d_model, d_k)), normal(seed + 3, (d_model, d_v))
    return normal(seed, (batch, n, d_model)), w_q, w_k, w_v, real


@given(blind_decoding_case())
def test_kv_cache_blind_queries(student, reference, case):
    """kv_cache_step: decoding a left-padded batch (key_padding_mask of the tokens so far), a step that may see no key outputs 0; the steps equal masked causal attention"""
    x, w_q, w_k, w_v, real = case
    cache, outputs = None, []
    for t in range(x.shape[1]):
        what = f"kv_cache_step at step {t} with key_padding_mask (B, {t + 1})"
        step = student.kv_cache_step(x[:, t : t + 1], cache, w_q, w_k, w_v, key_padding_mask=real[:, : t + 1])
        out_t, cache = expect_pair(step, what)
        expect_shape(expect_array(out_t, what), (x.shape[0], 1, w_v.shape[1]), what, "(B, 1, d_v)")
        if not isinstance(cache, dict) or not {"k", "v"} <= set(cache):
            raise Mismatch(f"kv_cache_step should return a cache dict with 'k' and 'v', got {type(cache).__name__}")
        outputs.append(out_t)
    outputs = np.concatenate(outputs, axis=1)  # (B, T, d_v)
    what = "kv_cache_step outputs stacked over the steps of a left-padded batch"
    v = x @ w_v
    uniform = np.cumsum(v, axis=1) / np.arange(1, x.shape[1] + 1)[None, :, None]  # step t: the mean of t + 1 values
    unmasked = reference.self_attention(x, w_q, w_k, w_v, causal=True)[0]
    axes = ("sequence", "step")
    expect_blind_rows(outputs, blind_queries(real), what, x, axes=axes, uniform=uniform, unmasked=unmasked)
    expected = reference.scaled_dot_product_attention(x @ w_q, x @ w_k, v, causal_and(real))[0]
    expect_close(outputs, expected, what, x, passport="(B, T, d_v)")


# ---------------------------------------------------------------- FlashAttention: tiles, the stored lse, recomputation


def expect_float64_from_float64(got, what, *inputs):
    """An answer computed from float64 inputs is float64 (docs/contract.md): a float32 copy of it is
    within float64's tolerance, so only its dtype shows it was computed at a quarter of the precision."""
    dtype = getattr(got, "dtype", None)
    if dtype in (np.float32, np.float16) and all(np.asarray(i).dtype == np.float64 for i in inputs):
        raise Mismatch(f"{what} is {dtype} but its inputs are float64: float64 inputs are computed in float64 (docs/contract.md)")
    return got


def tiles(data, q, k):
    """block_q and block_k drawn up to one past the lengths (a tile larger than the sequence too)."""
    return data.draw(st.integers(1, q.shape[-2] + 1), label="block_q"), data.draw(st.integers(1, k.shape[-2] + 1), label="block_k")


def mask_forms(data, lead, n_q, n_k):
    """Masks of three shapes in which every query sees a key (a query that sees none is the blind
    tests' own): (..., L_q, L_k), (..., 1, L_k) of the keys, and (..., L_q, 1) of the queries."""
    full = data.draw(attend_mask(lead, n_q, n_k), label="mask")
    queries = np.ones(lead + (n_q, 1), dtype=bool)
    return {f"{full.shape}": full, f"of the keys {full[..., :1, :].shape}": full[..., :1, :], f"of the queries {queries.shape}": queries}


def expect_flash(student, reference, q, k, v, block_q, block_k, what, causal=False, mask=None):
    """flash_attention's (out, lse) are attention's output and the log-sum-exp of each query's visible scores."""
    got = expect_pair(student.flash_attention(q, k, v, block_q, block_k, causal=causal, mask=mask), what)
    out, lse = expect_array(got[0], f"{what}: out"), expect_array(got[1], f"{what}: lse")
    expected_out, expected_lse = reference.flash_attention(q, k, v, block_q, block_k, causal=causal, mask=mask)
    expect_close(out, expected_out, f"{what}: out", q, passport="(..., L_q, d_v)")
    if lse.ndim < expected_lse.ndim and np.broadcast_shapes(lse.shape, expected_lse.shape) == expected_lse.shape:
        lse = np.broadcast_to(lse, expected_lse.shape)  # lse does not depend on v: without v's leading axes is right too
    expect_close(lse, expected_lse, f"{what}: lse", q, passport="(..., L_q)")
    expect_float64_from_float64(out, f"{what}: out", q, k, v)
    expect_float64_from_float64(lse, f"{what}: lse", q, k)
    return out, lse


@given(qkv(), st.data())
def test_flash_values(student, reference, case, data):
    """flash_attention: out equals attention's output and lse the log-sum-exp of each query's scores, for every tiling"""
    q, k, v = case
    block_q, block_k = tiles(data, q, k)
    out, _ = expect_flash(student, reference, q, k, v, block_q, block_k, f"flash_attention(block_q={block_q}, block_k={block_k})")
    expect_close(out, reference.scaled_dot_product_attention(q, k, v)[0], "flash_attention's out against plain attention", q)


@given(qkv(same_length=True), st.data())
def test_flash_causal(student, reference, case, data):
    """flash_attention: with causal=True, out and lse are those of causally masked attention, for every tiling"""
    q, k, v = case
    block_q, block_k = tiles(data, q, k)
    expect_flash(student, reference, q, k, v, block_q, block_k, f"causal flash_attention(block_q={block_q}, block_k={block_k})", causal=True)


@given(LEAD, SIZE, SIZE, SIZE, SEED, st.data())
def test_flash_masked(student, reference, lead, n_q, n_k, d, seed, data):
    """flash_attention: a mask (True = may attend) hides keys from out and from lse"""
    q, k, v = normal(seed, lead + (n_q, d)), normal(seed + 1, lead + (n_k, d)), normal(seed + 2, lead + (n_k, d + 1))
    block_q, block_k = tiles(data, q, k)
    for form, mask in mask_forms(data, lead, n_q, n_k).items():
        what = f"flash_attention(block_q={block_q}, block_k={block_k}) with a mask {form}"
        expect_flash(student, reference, q, k, v, block_q, block_k, what, mask=mask)


@given(qkv(dtypes=st.just(np.float64)), st.data(), st.booleans())
def test_flash_scores_far_from_zero(student, reference, case, data, causal):
    """flash_attention: rows of scores near +1e4 and near -1e4 in one call give a finite, right out and lse (the max is added back)"""
    q, k, v = case
    if causal:
        k, v = k[..., : q.shape[-2], :], v[..., : q.shape[-2], :]
        q = q[..., : k.shape[-2], :]
    signs = np.where(np.arange(q.shape[-2]) % 2 == 0, -1.0, 1.0)
    q, k = shifted_rows(q, k, signs)
    block_q, block_k = tiles(data, q, k)
    what = f"flash_attention(block_q={block_q}, block_k={block_k}, causal={causal}) with scores near ±1e4"
    out, lse = expect_flash(student, reference, q, k, v, block_q, block_k, what, causal=causal)
    expect_finite(lse, f"{what}: lse")


@given(blind_qkv_case(), st.data(), st.booleans())
def test_flash_blind_queries(student, reference, case, data, one_mask):
    """flash_attention: with left padding under a causal mask, a query that may see no key gets a zero out and lse = -inf (the log of an empty sum); the other rows are right"""
    q, k, v, real = case
    rows = (slice(None), None) if q.ndim == 4 else (slice(None),)
    mask = causal_and(real)[rows] if one_mask else real[(*rows, None, slice(None))]
    causal = not one_mask
    block_q, block_k = tiles(data, q, k)
    what = f"flash_attention(block_q={block_q}, block_k={block_k}, causal={causal}) on a left-padded batch"
    got = expect_pair(student.flash_attention(q, k, v, block_q, block_k, causal=causal, mask=mask), what)
    out, lse = expect_array(got[0], f"{what}: out"), expect_array(got[1], f"{what}: lse")
    expect_shape(out, q.shape[:-1] + v.shape[-1:], f"{what}: out", "(..., L_q, d_v)")
    expect_shape(lse, q.shape[:-1], f"{what}: lse", "(..., L_q)")
    blind = np.broadcast_to(blind_queries(real)[rows], lse.shape)
    axes = ("sequence", "head", "query") if q.ndim == 4 else ("sequence", "query")
    uniform = np.broadcast_to(v.mean(axis=-2, keepdims=True), out.shape)
    expect_blind_rows(out, blind, f"{what}: out", q, axes=axes, uniform=uniform, unmasked=reference.scaled_dot_product_attention(q, k, v)[0])
    if not np.all(lse[blind] == -np.inf):
        shown = lse[blind][lse[blind] != -np.inf][0]
        raise Mismatch(f"{what}: a query that may see no key has an empty sum of exponentials, so its lse is log 0 = -inf, got {shown:.6g}")
    expected_out, expected_lse = reference.flash_attention(q, k, v, block_q, block_k, causal=causal, mask=mask)
    expect_close(out, expected_out, f"{what}: out", q, passport="(..., L_q, d_v)")
    expect_close(lse, expected_lse, f"{what}: lse", q, passport="(..., L_q)")
    expect_float64_from_float64(out, f"{what}: out", q, k, v)


def backward_case(case, seed):
    """q, k, v with a grad_out drawn for their output."""
    q, k, v = case
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    return q, k, v, normal(seed, lead + q.shape[-2:-1] + v.shape[-1:], q.dtype)


def expect_flash_backward(student, reference, q, k, v, grad_out, tiling, what, causal=False, mask=None):
    """flash_attention_backward with ``tiling`` (block_q, block_k), given the reference's out and
    lse, equals attention_backward."""
    out, lse = reference.flash_attention(q, k, v, 2, 2, causal=causal, mask=mask)
    full = reference.causal_mask(q.shape[-2]) if causal else None
    full = mask if full is None else (full if mask is None else full & mask)
    what = f"{what} (block_q={tiling[0]}, block_k={tiling[1]})"
    got = student.flash_attention_backward(q, k, v, out, lse, grad_out, *tiling, causal=causal, mask=mask)
    if not isinstance(got, tuple) or len(got) != 3:
        raise Mismatch(f"{what} should return three arrays (dq, dk, dv), got {type(got).__name__}")
    expected = reference.attention_backward(q, k, v, grad_out, full)
    for name, mine, theirs, passport in zip(("dq", "dk", "dv"), got, expected, ("(..., L_q, d_k)", "(..., L_k, d_k)", "(..., L_k, d_v)")):
        expect_close(mine, theirs, f"{what}: {name}", q, passport=passport)
        expect_float64_from_float64(mine, f"{what}: {name}", q, k, v, grad_out)
    return got


@given(qkv(), SEED, st.data())
def test_flash_backward_values(student, reference, case, seed, data):
    """flash_attention_backward: dq, dk and dv from the stored out and lse equal attention_backward's, for every tiling"""
    q, k, v, grad_out = backward_case(case, seed)
    expect_flash_backward(student, reference, q, k, v, grad_out, tiles(data, q, k), "flash_attention_backward")


@given(qkv(same_length=True), SEED, st.data())
def test_flash_backward_causal(student, reference, case, seed, data):
    """flash_attention_backward: with causal=True, the gradients equal those of causally masked attention, for every tiling"""
    q, k, v, grad_out = backward_case(case, seed)
    expect_flash_backward(student, reference, q, k, v, grad_out, tiles(data, q, k), "causal flash_attention_backward", causal=True)


@given(LEAD, SIZE, SIZE, SIZE, SEED, st.data())
def test_flash_backward_masked(student, reference, lead, n_q, n_k, d, seed, data):
    """flash_attention_backward: with a mask, a hidden key gets no gradient and the rest equal attention_backward's"""
    q, k, v = normal(seed, lead + (n_q, d)), normal(seed + 1, lead + (n_k, d)), normal(seed + 2, lead + (n_k, d + 1))
    grad_out = normal(seed + 3, lead + (n_q, d + 1))
    tiling = tiles(data, q, k)
    for form, mask in mask_forms(data, lead, n_q, n_k).items():
        expect_flash_backward(student, reference, q, k, v, grad_out, tiling, f"flash_attention_backward with a mask {form}", mask=mask)


@given(qkv(dtypes=st.just(np.float64)), SEED, st.data())
def test_flash_backward_scores_far_from_zero(student, reference, case, seed, data):
    """flash_attention_backward: rows of scores near +1e4 and near -1e4 give finite, right gradients"""
    q, k, v, grad_out = backward_case(case, seed)
    q, k = shifted_rows(q, k, np.where(np.arange(q.shape[-2]) % 2 == 0, -1.0, 1.0))
    what = "flash_attention_backward with scores near ±1e4"
    for name, grad in zip(("dq", "dk", "dv"), expect_flash_backward(student, reference, q, k, v, grad_out, tiles(data, q, k), what)):
        expect_finite(expect_array(grad, f"{what}: {name}"), f"{what}: {name}")


@given(blind_qkv_case(), SEED, st.booleans(), st.data())
def test_flash_backward_blind_queries(student, reference, case, seed, one_mask, data):
    """flash_attention_backward: on a left-padded batch under a causal mask, a query that may see no key (lse = -inf) gets dq = 0 and adds nothing to dk, dv; no nan"""
    q, k, v, real = case
    rows = (slice(None), None) if q.ndim == 4 else (slice(None),)
    mask = causal_and(real)[rows] if one_mask else real[(*rows, None, slice(None))]
    causal = not one_mask
    grad_out = normal(seed, q.shape[:-1] + v.shape[-1:])
    tiling = tiles(data, q, k)
    what = f"flash_attention_backward(block_q={tiling[0]}, block_k={tiling[1]}, causal={causal}) on a left-padded batch"
    out, lse = reference.flash_attention(q, k, v, 2, 2, causal=causal, mask=mask)
    got = student.flash_attention_backward(q, k, v, out, lse, grad_out, *tiling, causal=causal, mask=mask)
    if not isinstance(got, tuple) or len(got) != 3:
        raise Mismatch(f"{what} should return three arrays (dq, dk, dv), got {type(got).__name__}")
    dq = expect_array(got[0], f"{what}: dq")
    axes = ("sequence", "head", "query") if q.ndim == 4 else ("sequence", "query")
    blind = np.broadcast_to(blind_queries(real)[rows], q.shape[:-1])
    expect_blind_rows(dq, blind, f"{what}: dq", q, axes=axes)
    expect_float64_from_float64(dq, f"{what}: dq", q, k, v)
    expect_flash_backward(student, reference, q, k, v, grad_out, tiling, f"flash_attention_backward (causal={causal}) on a left-padded batch", causal=causal, mask=mask)


def broadcast_case(carrier, lead, n_q, n_k, d, seed, data):
    """q, k, v, grad_out and a mask in which only ``carrier`` has the leading axes ``lead``."""
    shapes = {"q": (n_q, d), "k": (n_k, d), "v": (n_k, d + 1), "grad_out": (n_q, d + 1)}
    arrays = {name: normal(seed + i, (lead if name == carrier else ()) + shape) for i, (name, shape) in enumerate(shapes.items())}
    mask = data.draw(attend_mask(lead if carrier == "mask" else (), n_q, n_k), label="mask")
    return arrays["q"], arrays["k"], arrays["v"], arrays["grad_out"], mask


LEADING = st.lists(st.integers(2, 3), min_size=1, max_size=2).map(tuple)  # 2 or more: an axis of 1 would broadcast anything


@given(LEADING, SIZE, SIZE, SIZE, SEED, st.data())
def test_flash_broadcasts_leading_axes(student, reference, lead, n_q, n_k, d, seed, data):
    """flash_attention: leading axes carried by one input alone (q, k, v or the mask) broadcast over the others"""
    for carrier in ("q", "k", "v", "mask"):
        q, k, v, _, mask = broadcast_case(carrier, lead, n_q, n_k, d, seed, data)
        block_q, block_k = tiles(data, q, k)
        what = f"flash_attention(block_q={block_q}, block_k={block_k}) with leading axes {lead} on {carrier} only"
        expect_flash(student, reference, q, k, v, block_q, block_k, what, mask=mask)


# Not v alone: dv = Aᵀ grad_out takes the leading axes of the others, as attention_backward's does (docs/contract.md).
@given(LEADING, SIZE, SIZE, SIZE, SEED, st.data())
def test_flash_backward_broadcasts_leading_axes(student, reference, lead, n_q, n_k, d, seed, data):
    """flash_attention_backward: leading axes carried by one input alone (q, k, the mask or grad_out) broadcast over the others"""
    for carrier in ("q", "k", "mask", "grad_out"):
        q, k, v, grad_out, mask = broadcast_case(carrier, lead, n_q, n_k, d, seed, data)
        what = f"flash_attention_backward with leading axes {lead} on {carrier} only"
        expect_flash_backward(student, reference, q, k, v, grad_out, tiles(data, q, k), what, mask=mask)


@given(st.sampled_from([(0, 1), (1, 0), (-1, 2), (2, -1), (0, 0)]), SEED)
def test_flash_refuses_empty_tiles(student, reference, blocks, seed):
    """flash_attention: block_q or block_k below 1 raise ValueError"""
    q, k, v = normal(seed, (3, 2)), normal(seed + 1, (4, 2)), normal(seed + 2, (4, 2))
    try:
        got = student.flash_attention(q, k, v, *blocks)
    except (StudentError, ValueError) as error:
        kind = getattr(error, "error_type", None) or type(error).__name__
        if kind != "ValueError":
            raise Mismatch(f"flash_attention(block_q={blocks[0]}, block_k={blocks[1]}) should raise ValueError, it raised {kind}") from None
        return
    raise Mismatch(f"flash_attention(block_q={blocks[0]}, block_k={blocks[1]}) should raise ValueError (a tile holds at least one query and one key), it returned {type(got).__name__}")


@given(st.sampled_from([(0, 1), (1, 0), (-1, 2), (2, -1), (0, 0)]), SEED)
def test_flash_backward_refuses_empty_tiles(student, reference, blocks, seed):
    """flash_attention_backward: block_q or block_k below 1 raise ValueError"""
    q, k, v = normal(seed, (3, 2)), normal(seed + 1, (4, 2)), normal(seed + 2, (4, 2))
    out, lse = reference.flash_attention(q, k, v, 2, 2)
    what = f"flash_attention_backward(block_q={blocks[0]}, block_k={blocks[1]})"
    try:
        got = student.flash_attention_backward(q, k, v, out, lse, normal(seed + 3, out.shape), *blocks)
    except (StudentError, ValueError) as error:
        kind = getattr(error, "error_type", None) or type(error).__name__
        if kind != "ValueError":
            raise Mismatch(f"{what} should raise ValueError, it raised {kind}") from None
        return
    raise Mismatch(f"{what} should raise ValueError (a tile holds at least one query and one key), it returned {type(got).__name__}")


def test_flash_never_holds_the_score_matrix(student, reference):
    """flash_attention: never holds an (L_q, L_k) array, nor a whole row of keys: only (block_q, block_k) tiles (peak memory at L_k = 2^20), and every row of out and lse is right"""
    q, k, v, mask = long_keys(8)
    n_q, n_k, block_q, block_k = q.shape[0], k.shape[0], MEMORY_QUERIES // 2, MEMORY_BLOCK
    tile_bytes = block_q * block_k * 8
    budget = memory_budget((q, k, v, mask), n_q * (v.shape[-1] + 1) * 8, tile_bytes)
    got, peak = student.memory_within(budget, "flash_attention", q, k, v, block_q, block_k, mask=mask)
    what = f"flash_attention(block_q={block_q}, block_k={block_k}) at L_q = {n_q}, L_k = {n_k} with a mask of the keys"
    got = expect_pair(got, what)
    out, lse = expect_array(got[0], f"{what}: out"), expect_array(got[1], f"{what}: lse")
    expect_shape(out, (n_q, v.shape[-1]), f"{what}: out", "(L_q, d_v)")
    if peak > budget:
        raise over_budget("flash_attention", budget, n_q, n_k, f"{block_q} x {block_k} tiles", tile_bytes)
    expected_out, expected_lse = reference.flash_attention(q, k, v, block_q, block_k, mask=mask)
    expect_every_row(out, expected_out, f"{what}: out", q, passport="(L_q, d_v)")
    expect_every_row(expect_array(lse, f"{what}: lse"), expected_lse, f"{what}: lse", q, passport="(L_q,)")
    expect_float64_from_float64(out, f"{what}: out", q, k, v)


def test_flash_backward_never_holds_the_score_matrix(student, reference):
    """flash_attention_backward: never holds an (L_q, L_k) array, nor a whole row of keys: the weights are rebuilt in (block_q, block_k) tiles (peak memory at L_k = 2^20), and dq, dk and dv are right"""
    q, k, v, mask = long_keys(9)
    n_q, n_k, block_q, block_k = q.shape[0], k.shape[0], MEMORY_QUERIES // 2, MEMORY_BLOCK
    out, lse = reference.flash_attention(q, k, v, block_q, block_k, mask=mask)
    grad_out = normal(10, out.shape)
    tile_bytes = block_q * block_k * 8
    budget = memory_budget((q, k, v, out, lse, grad_out, mask), q.nbytes + k.nbytes + v.nbytes, tile_bytes)
    got, peak = student.memory_within(budget, "flash_attention_backward", q, k, v, out, lse, grad_out, block_q, block_k, mask=mask)
    what = f"flash_attention_backward(block_q={block_q}, block_k={block_k}) at L_q = {n_q}, L_k = {n_k} with a mask of the keys"
    if not isinstance(got, tuple) or len(got) != 3:
        raise Mismatch(f"{what} should return three arrays (dq, dk, dv), got {type(got).__name__}")
    for name, grad, like in zip(("dq", "dk", "dv"), got, (q, k, v)):
        expect_shape(expect_array(grad, f"{what}: {name}"), like.shape, f"{what}: {name}", f"(L, d) as {name[1]}")
    if peak > budget:
        raise over_budget("flash_attention_backward", budget, n_q, n_k, f"{block_q} x {block_k} tiles", tile_bytes)
    expected = reference.flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, mask=mask)
    for name, mine, theirs in zip(("dq", "dk", "dv"), got, expected):
        expect_every_row(mine, theirs, f"{what}: {name}", q, grad_out)
        expect_float64_from_float64(mine, f"{what}: {name}", q, k, v, grad_out)
