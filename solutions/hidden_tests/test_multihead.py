"""Hidden tests for multihead.py."""

import numpy as np
from attention_inputs import LEAD, SEED, SIZE, lengths_for, normal
from blind_queries import blind_queries, expect_blind_rows, left_padded
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_close, expect_finite, expect_pair, expect_rows_sum_to_one, expect_shape, expect_zero_where

HEADS = st.integers(1, 4)


@given(LEAD, SIZE, HEADS, st.integers(1, 3), SEED)
def test_split_heads_shape(student, reference, lead, n, heads, d_head, seed):
    """split_heads: (..., T, d_model) becomes (..., n_heads, T, d_model / n_heads)"""
    x = normal(seed, lead + (n, heads * d_head))
    got = expect_array(student.split_heads(x, heads), "split_heads(x, n_heads)")
    expect_shape(got, lead + (heads, n, d_head), "split_heads(x, n_heads)", "(..., n_heads, T, d_head)")


@given(LEAD, st.integers(2, 5), st.integers(2, 4), st.integers(1, 3))
def test_split_heads_takes_contiguous_columns(student, reference, lead, n, heads, d_head):
    """split_heads: head h takes feature columns h*d_head:(h+1)*d_head of every token"""
    d_model = heads * d_head
    # Entry = 1000 * token + feature, so any misplaced value says where it came from.
    x = np.broadcast_to(1000.0 * np.arange(n)[:, None] + np.arange(d_model)[None, :], lead + (n, d_model)).copy()
    got = expect_array(student.split_heads(x, heads), "split_heads(x, n_heads)")
    expect_shape(got, lead + (heads, n, d_head), "split_heads(x, n_heads)", "(..., n_heads, T, d_head)")
    expected = reference.split_heads(x, heads)
    if not np.array_equal(got, expected):
        index = tuple(np.argwhere(got != expected)[0])
        h, t, c = index[-3:]
        value = got[index]
        raise Mismatch(
            f"split_heads: head {h}, token {t}, column {c} should hold token {t}'s feature {h * d_head + c} "
            f"(value {expected[index]:g}) but holds token {int(value // 1000)}'s feature {int(value % 1000)} "
            f"(value {value:g}); reshape to (..., T, n_heads, d_head), then swap the T and head axes"
        )


@given(LEAD, SIZE, HEADS, st.integers(1, 3), SEED)
def test_merge_heads_inverts_split(student, reference, lead, n, heads, d_head, seed):
    """merge_heads: undoes split_heads, (..., n_heads, T, d_head) -> (..., T, n_heads * d_head)"""
    x = normal(seed, lead + (n, heads * d_head))
    expect_close(student.merge_heads(reference.split_heads(x, heads)), x, "merge_heads(split_heads(x))", x, passport="(..., T, d_model)")


@given(LEAD, SIZE, HEADS, st.integers(1, 3), SEED)
def test_merge_heads_values(student, reference, lead, n, heads, d_head, seed):
    """merge_heads: concatenates head h's features at columns h*d_head:(h+1)*d_head"""
    x = normal(seed, lead + (heads, n, d_head))
    expect_close(student.merge_heads(x), reference.merge_heads(x), "merge_heads(x)", x, passport="(..., T, n_heads * d_head)")


@st.composite
def mha_case(draw, batch_equals_tokens=False):
    batch, heads, d_head, seed = draw(st.integers(1, 3)), draw(HEADS), draw(st.integers(1, 3)), draw(SEED)
    n = batch if batch_equals_tokens else draw(SIZE)
    d_model = heads * d_head
    weights = normal(seed + 1, (4, d_model, d_model))
    return normal(seed, (batch, n, d_model)), *weights, heads


def mha_pair(student, args, **kwargs):
    x, heads = args[0], args[-1]
    out, weights = expect_pair(student.multi_head_attention(*args, **kwargs), "multi_head_attention")
    expect_shape(expect_array(out, "multi_head_attention's output"), x.shape, "multi_head_attention's output", "(B, T, d_model)")
    expect_shape(expect_array(weights, "multi_head_attention's weights"), (x.shape[0], heads, x.shape[1], x.shape[1]), "multi_head_attention's weights", "(B, n_heads, T, T)")
    return out, weights


@given(mha_case())
def test_mha_shapes(student, reference, case):
    """multi_head_attention: output (B, T, d_model) and weights (B, n_heads, T, T)"""
    mha_pair(student, case)


@given(mha_case(), st.booleans())
def test_mha_values(student, reference, case, causal):
    """multi_head_attention: equals merge_heads(per-head attention scaled by 1/√d_head) @ w_o"""
    out, weights = mha_pair(student, case, causal=causal)
    expected_out, expected_weights = reference.multi_head_attention(*case, causal=causal)
    expect_close(weights, expected_weights, f"multi_head_attention's weights (causal={causal})", case[0], passport="(B, n_heads, T, T)")
    expect_close(out, expected_out, f"multi_head_attention's output (causal={causal})", case[0], passport="(B, T, d_model)")


@given(mha_case())
def test_mha_rows_sum_to_one(student, reference, case):
    """multi_head_attention: every head's weight rows sum to 1 over the keys"""
    _, weights = mha_pair(student, case)
    expect_rows_sum_to_one(weights, "multi_head_attention's weights", ("batch", "heads", "queries (T)", "keys (T)"), inputs=(case[0],))


@given(mha_case(), st.data())
def test_mha_no_future_leakage(student, reference, case, data):
    """multi_head_attention: with causal=True, changing tokens after t leaves outputs up to t unchanged"""
    x, *rest = case
    t = data.draw(st.integers(0, x.shape[1] - 1))
    changed = x.copy()
    changed[:, t + 1 :] += normal(data.draw(SEED), changed[:, t + 1 :].shape, scale=5.0)
    before, weights = mha_pair(student, (x, *rest), causal=True)
    after, _ = mha_pair(student, (changed, *rest), causal=True)
    expect_zero_where(weights, np.triu(np.ones((x.shape[1],) * 2, dtype=bool), k=1), "causal multi_head_attention")
    try:
        expect_close(after[:, : t + 1], before[:, : t + 1], f"outputs at positions 0..{t}", x)
    except Mismatch as error:
        raise Mismatch(f"future leakage: changing the tokens after position {t} changed the outputs up to {t}. {error}") from None


@given(st.one_of(mha_case(), mha_case(batch_equals_tokens=True)), SEED)
def test_mha_key_padding(student, reference, case, seed):
    """multi_head_attention: padded keys get no weight in any head, also when B == T"""
    x = case[0]
    batch, n = x.shape[:2]
    lengths = lengths_for(np.random.default_rng(seed), batch, n)
    lengths[0] = max(1, n - 1)
    mask = np.arange(n)[None, :] < lengths[:, None]
    _, weights = mha_pair(student, case, key_padding_mask=mask)
    real = mask[:, None, :, None]  # (B, 1, T, 1): rows of padded queries are not graded
    expect_zero_where(weights, real & ~mask[:, None, None, :], "multi_head_attention with a key padding mask")
    expected = reference.multi_head_attention(*case, key_padding_mask=mask)[1]
    expect_close(np.where(real, weights, 0.0), np.where(real, expected, 0.0), "multi_head_attention's weights at real queries", x)


@st.composite
def padded_mha_case(draw):
    """An mha_case with a key padding mask (B, T): at least one sequence padded and, with B > 1,
    one not, so that a later real key exists for some real query whenever T >= 3."""
    case = draw(st.one_of(mha_case(), mha_case(batch_equals_tokens=True)))
    batch, n = case[0].shape[:2]
    lengths = lengths_for(np.random.default_rng(draw(SEED)), batch, n)
    lengths[0] = max(1, n - 1)
    if batch > 1:
        lengths[-1] = n
    return case, np.arange(n)[None, :] < lengths[:, None]


def expect_mha_at_real_queries(student, reference, case, mask, what, **options):
    """The student's weights and output equal the reference's at real queries, and hidden keys get
    weight 0. ``mask`` is the key padding mask passed, or None for none."""
    x = case[0]
    batch, n = x.shape[:2]
    out, weights = mha_pair(student, case, key_padding_mask=mask, **options)
    real_tokens = np.ones((batch, n), dtype=bool) if mask is None else mask
    real = real_tokens[:, None, :, None]  # (B, 1, T, 1): rows of padded queries are not graded
    rows = real_tokens[:, :, None]  # (B, T, 1)
    expect_finite(np.where(real, weights, 0.0), f"{what}: weights at real queries")
    expect_finite(np.where(rows, out, 0.0), f"{what}: output at real queries")
    hidden = ~real_tokens[:, None, None, :]  # (B, 1, 1, T)
    if options.get("causal"):
        hidden = hidden | np.triu(np.ones((n, n), dtype=bool), k=1)
    expect_zero_where(weights, real & hidden, what)
    expected_out, expected_weights = reference.multi_head_attention(*case, key_padding_mask=mask, **options)
    expect_close(np.where(real, weights, 0.0), np.where(real, expected_weights, 0.0), f"{what}: weights at real queries", x, passport="(B, n_heads, T, T)")
    expect_close(np.where(rows, out, 0.0), np.where(rows, expected_out, 0.0), f"{what}: output at real queries", x, passport="(B, T, d_model)")


@given(padded_mha_case())
def test_mha_causal_with_key_padding(student, reference, padded):
    """multi_head_attention: causal=True with a key padding mask hides both later keys and padded keys"""
    case, mask = padded
    expect_mha_at_real_queries(student, reference, case, mask, "multi_head_attention with causal=True and a key padding mask", causal=True)


@given(padded_mha_case(), st.booleans(), st.booleans())
def test_mha_stable_for_large_scores(student, reference, padded, causal, with_padding):
    """multi_head_attention: no nan or inf and the right values when scores reach ±1e4, with every combination of options"""
    (x, w_q, w_k, w_v, w_o, heads), mask = padded
    case = (x, w_q * 100.0, w_k * 100.0, w_v, w_o, heads)  # scores about ±1e4
    what = f"multi_head_attention with scores of about ±1e4 (causal={causal}, {'with' if with_padding else 'without'} key padding)"
    expect_mha_at_real_queries(student, reference, case, mask if with_padding else None, what, causal=causal)


@st.composite
def left_padded_mha_case(draw):
    """(an mha_case, real): x (B, T, d_model) with a left padding mask real (B, T), True at real
    tokens; under causal=True the first queries of a padded sequence may see no key."""
    real = draw(left_padded())
    batch, n = real.shape
    heads, d_head, seed = draw(HEADS), draw(st.integers(1, 3)), draw(SEED)
    d_model = heads * d_head
    return (normal(seed, (batch, n, d_model)), *normal(seed + 1, (4, d_model, d_model)), heads), real


@given(left_padded_mha_case())
def test_mha_blind_queries(student, reference, padded):
    """multi_head_attention: with left padding under causal=True, a query that may see no key gets zero weights in every head and a zero output; the other rows are right"""
    case, real = padded
    x, _, _, w_v, w_o, heads = case
    what = "multi_head_attention with left padding and causal=True"
    out, weights = mha_pair(student, case, causal=True, key_padding_mask=real)
    blind = blind_queries(real)  # (B, T)
    n = x.shape[1]
    # What a finite fill (-1e9) gives a blind query: weights of 1/T, so the mean of the values, mixed by w_o.
    uniform_out = np.broadcast_to((x @ w_v).mean(axis=1, keepdims=True) @ w_o, out.shape)
    # What a fill added to the scores gives it: its row without any mask.
    unmasked_out, unmasked_weights = reference.multi_head_attention(*case)
    axes = ("sequence", "head", "query")
    uniform_weights = np.full(weights.shape, 1.0 / n)
    expect_blind_rows(
        weights, blind[:, None, :], f"{what}: weights", x, axes=axes, uniform=uniform_weights, unmasked=unmasked_weights
    )
    expect_blind_rows(out, blind, f"{what}: output", x, uniform=uniform_out, unmasked=unmasked_out)
    expected_out, expected_weights = reference.multi_head_attention(*case, causal=True, key_padding_mask=real)
    expect_close(weights, expected_weights, f"{what}: weights", x, passport="(B, n_heads, T, T)")
    expect_close(out, expected_out, f"{what}: output", x, passport="(B, T, d_model)")
