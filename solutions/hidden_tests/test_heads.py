"""Hidden tests for heads.py: the most-attended key, hard attention, and the scores that read a head.

Heatmaps are drawn as real ones are: softmax rows of random scores, causal or not, with leading
(batch, head) axes, and fewer queries than keys where the function allows it, so that an answer
along the wrong axis has the wrong shape or the wrong values. Token sequences come from a small
vocabulary, so tokens repeat (several times, for the induction score).
"""

import numpy as np
from attention_inputs import LEAD, SEED, SIZE, normal, qkv
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_close, expect_finite, expect_pair, expect_shape
from attnlab.outcomes import StudentError

LENGTH = st.integers(2, 6)


PICKED_ATOL = 1e-12
"""Hard attention picks a row of v and a one-hot row: exact up to far less than a float32 copy's rounding."""


def heatmap(seed, shape, causal=False, sharp=1.0):
    """Softmax rows (..., T_q, T_k) of random scores; causal ones (T_q == T_k) are 0 above the diagonal."""
    scores = normal(seed, shape, scale=sharp)
    if causal:
        scores = np.where(np.tril(np.ones(shape[-2:], dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)


def expect_indices(got, expected, what, passport):
    """``got`` holds exactly the integer key indices of ``expected``."""
    if not isinstance(got, np.ndarray):
        raise Mismatch(f"{what} should be a numpy array of key indices, got a {type(got).__name__}")
    expect_shape(got, np.shape(expected), what, passport)
    if not np.issubdtype(got.dtype, np.integer):
        raise Mismatch(f"{what} should hold key indices as ints, got dtype {got.dtype}")
    if not np.array_equal(got, expected):
        index = tuple(np.argwhere(got != expected)[0])
        raise Mismatch(f"{what} is wrong at index {index}: expected key {expected[index]}, got {got[index]}")


def expect_float64_from_float64(got, what, *inputs):
    """An answer computed from float64 inputs is float64 (docs/contract.md): a float32 copy of it is
    within float64's tolerance, so only its dtype shows it was computed at a quarter of the precision."""
    dtype = getattr(got, "dtype", None)
    if dtype in (np.float32, np.float16) and all(np.asarray(i).dtype == np.float64 for i in inputs):
        raise Mismatch(f"{what} is {dtype} but its inputs are float64: float64 inputs are computed in float64 (docs/contract.md)")
    return got


def score(got, what, *inputs):
    """A score as an array: for one heatmap (T, T) a student's mean is a plain float, which is right too."""
    if isinstance(got, (float, int)) and not isinstance(got, bool):
        return np.asarray(float(got))
    return expect_float64_from_float64(got, what, *inputs)


# ---------------------------------------------------------------- most_attended_token


@given(LEAD, SIZE, SIZE, SEED, st.booleans())
def test_most_attended_values(student, reference, lead, n_q, n_k, seed, causal):
    """most_attended_token: the key of each query's largest weight, along the key axis"""
    n_k = n_q if causal else n_k
    weights = heatmap(seed, lead + (n_q, n_k), causal, sharp=2.0)
    what = f"most_attended_token of weights {weights.shape} (causal={causal})"
    expect_indices(student.most_attended_token(weights), reference.most_attended_token(weights), what, "(..., T_q)")


@given(LEAD, SIZE, st.integers(2, 5), SEED)
def test_most_attended_ties_go_to_the_lowest_key(student, reference, lead, n_q, n_k, seed):
    """most_attended_token: a tie goes to the lowest key index, and a row of zeros (a query that saw no key) gives 0"""
    rng = np.random.default_rng(seed)
    weights = rng.integers(0, 3, size=lead + (n_q, n_k)).astype(float)  # few distinct values: many ties
    weights[..., 0, :] = 0.0  # one query that saw no key
    weights[..., -1, :] = 1.0  # one query that ties every key
    weights[..., -1, 0] = 0.0  # ... except key 0, so the lowest of the tied keys is 1
    what = f"most_attended_token of weights {weights.shape} with ties"
    expect_indices(student.most_attended_token(weights), reference.most_attended_token(weights), what, "(..., T_q)")


# ---------------------------------------------------------------- hard_attention
# Compared exactly: the weights are 0.0 and 1.0, and each output row is a copy of a row of v (a
# one-hot product adds only zeros), so a float32 copy, within float64's tolerance, is still wrong.


@given(qkv())
def test_hard_attention_values(student, reference, case):
    """hard_attention: each query takes the value of its best-scoring key, with one-hot weights"""
    q, k, v = case
    out, weights = expect_pair(student.hard_attention(q, k, v), "hard_attention")
    expected_out, expected_weights = reference.hard_attention(q, k, v)
    expect_float64_from_float64(out, "hard_attention's output", q, k, v)
    expect_close(weights, expected_weights, "hard_attention's weights", q, passport="(..., L_q, L_k)", atol=PICKED_ATOL)
    expect_close(out, expected_out, "hard_attention's output", q, passport="(..., L_q, d_v)", atol=PICKED_ATOL)


@given(qkv(), st.integers(2, 3))
def test_hard_attention_ties_go_to_the_lowest_key(student, reference, case, copies):
    """hard_attention: identical keys tie, and the lowest index wins (hard attention picks, soft attention blends)"""
    q, k, v = case
    q, k = np.round(2 * q), np.round(2 * k)  # small integers: every score is exact, so equal scores are equal in any order of summing
    k = np.repeat(k, copies, axis=-2)  # every key `copies` times in a row: exact ties
    v = np.repeat(v, copies, axis=-2) + np.arange(k.shape[-2], dtype=v.dtype)[:, None]  # each copy's value distinct
    out, weights = expect_pair(student.hard_attention(q, k, v), "hard_attention")
    expected_out, expected_weights = reference.hard_attention(q, k, v)
    expect_float64_from_float64(out, "hard_attention's output", q, k, v)
    what = f"hard_attention with each key repeated {copies} times"
    expect_close(weights, expected_weights, f"{what}: weights", q, passport="(..., L_q, L_k)", atol=PICKED_ATOL)
    expect_close(out, expected_out, f"{what}: output", q, passport="(..., L_q, d_v)", atol=PICKED_ATOL)


@given(qkv(dtypes=st.just(np.float64)))
def test_hard_attention_large_scores(student, reference, case):
    """hard_attention: scores of about ±1e4 give the same one-hot choice, no nan or inf"""
    q, k, v = case
    q, k = q * 100.0, k * 100.0
    out, weights = expect_pair(student.hard_attention(q, k, v), "hard_attention")
    what = "hard_attention with scores of about ±1e4"
    expect_finite(expect_array(out, f"{what}: output"), f"{what}: output")
    expected_out, expected_weights = reference.hard_attention(q, k, v)
    expect_float64_from_float64(out, "hard_attention's output", q, k, v)
    expect_close(weights, expected_weights, f"{what}: weights", q, passport="(..., L_q, L_k)", atol=PICKED_ATOL)
    expect_close(out, expected_out, f"{what}: output", q, passport="(..., L_q, d_v)", atol=PICKED_ATOL)


# ---------------------------------------------------------------- previous_token_score and sink_score


@given(LEAD, LENGTH, SEED, st.booleans())
def test_previous_token_score_values(student, reference, lead, n, seed, causal):
    """previous_token_score: the mean weight of query i on key i - 1, over queries 1..T-1, one score per head"""
    weights = heatmap(seed, lead + (n, n), causal)
    what = f"previous_token_score of weights {weights.shape} (causal={causal})"
    expect_close(score(student.previous_token_score(weights), "previous_token_score", weights), reference.previous_token_score(weights), what, weights, passport="(...)")


@given(LEAD, SEED)
def test_previous_token_score_of_a_previous_token_head(student, reference, lead, seed):
    """previous_token_score: a head that puts weight w on the previous token of every query scores w, and its transpose 0"""
    n = 2 + seed % 5
    w = 0.5 + (seed % 97) / 200.0  # drawn per example: no constant answer can know it
    weights = np.zeros(lead + (n, n))
    weights[..., 0, 0] = 1.0
    rows = np.arange(1, n)
    weights[..., rows, rows - 1] = w
    weights[..., rows, rows] = 1.0 - w
    what = f"previous_token_score of a head with weight {w:.3f} on each previous token"
    expect_close(score(student.previous_token_score(weights), "previous_token_score", weights), np.full(lead, w), what, weights, passport="(...)")
    transposed = np.swapaxes(weights, -1, -2)  # weight on the next token instead
    expected = reference.previous_token_score(transposed)
    expect_close(score(student.previous_token_score(transposed), "previous_token_score", weights), expected, f"{what}, transposed (the next token instead)", weights, passport="(...)")


@given(st.sampled_from([(1, 1), (2, 3), (3, 2), (1, 4)]), LEAD)
def test_previous_token_score_refuses(student, reference, shape, lead):
    """previous_token_score: weights that are not square, or of one token, raise ValueError"""
    weights = np.full(lead + shape, 1.0 / shape[-1])
    try:
        got = student.previous_token_score(weights)
    except (StudentError, ValueError) as error:
        kind = getattr(error, "error_type", None) or type(error).__name__
        if kind != "ValueError":
            raise Mismatch(f"previous_token_score of weights {shape} should raise ValueError, it raised {kind}") from None
        return
    raise Mismatch(f"previous_token_score of weights {weights.shape} should raise ValueError (no previous token to score), it returned {got!r}")


@given(LEAD, SIZE, SIZE, SEED, st.booleans())
def test_sink_score_values(student, reference, lead, n_q, n_k, seed, causal):
    """sink_score: the mean weight on key 0 over every query, one score per head"""
    n_k = n_q if causal else n_k
    weights = heatmap(seed, lead + (n_q, n_k), causal)
    what = f"sink_score of weights {weights.shape} (causal={causal})"
    expect_close(score(student.sink_score(weights), "sink_score", weights), reference.sink_score(weights), what, weights, passport="(...)")


# ---------------------------------------------------------------- induction_score


@st.composite
def tokens(draw, n):
    """(T,) token ids from a vocabulary of 2 to 4, so that tokens repeat."""
    vocab = draw(st.integers(2, 4))
    return np.random.default_rng(draw(SEED)).integers(0, vocab, size=n) + draw(st.integers(0, 50))


@given(LEAD, LENGTH, SEED, st.booleans(), st.data())
def test_induction_score_values(student, reference, lead, n, seed, causal, data):
    """induction_score: the mean, over queries whose token occurred before, of the weight on the keys right after its earlier copies"""
    weights = heatmap(seed, lead + (n, n), causal)
    ids = data.draw(tokens(n), label="token_ids")
    what = f"induction_score of weights {weights.shape} (causal={causal}) with token_ids {ids.tolist()}"
    expect_close(score(student.induction_score(weights, ids), "induction_score", weights), reference.induction_score(weights, ids), what, weights, passport="(...)")


@given(st.integers(1, 3), LENGTH, SEED, st.data())
def test_induction_score_per_sequence(student, reference, batch, n, seed, data):
    """induction_score: token_ids (B, 1, T) against weights (B, h, T, T) score each sequence with its own tokens"""
    weights = heatmap(seed, (batch, 2, n, n), causal=True)
    ids = np.stack([data.draw(tokens(n), label=f"token_ids of sequence {b}") for b in range(batch)])[:, None, :]
    what = f"induction_score of weights {weights.shape} with token_ids {ids.shape}"
    expect_close(score(student.induction_score(weights, ids), "induction_score", weights), reference.induction_score(weights, ids), what, weights, passport="(B, h)")


@given(LEAD, LENGTH, SEED)
def test_induction_score_without_repeats(student, reference, lead, n, seed):
    """induction_score: when no token repeats, no query can show the pattern and the score is 0.0"""
    weights = heatmap(seed, lead + (n, n), causal=True)
    ids = np.random.default_rng(seed).permutation(10 * n)[:n]
    expect_close(score(student.induction_score(weights, ids), "induction_score", weights), np.zeros(lead), "induction_score when no token repeats", weights, passport="(...)")
