"""Hidden tests for masks.py."""

import math

import numpy as np
from attention_inputs import SEED, lengths_for
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import expect_array, expect_close, expect_equal_bool, expect_shape


@given(st.integers(1, 9))
def test_causal_mask(student, reference, n):
    """causal_mask: True on and below the diagonal, False above"""
    expect_equal_bool(student.causal_mask(n), reference.causal_mask(n), f"causal_mask({n})", "(n, n)")


def test_causal_mask_of_the_lesson(student, reference):
    """causal_mask: the 4×4 mask of the lesson (query 2 sees keys 0, 1, 2)"""
    expected = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=bool)
    expect_equal_bool(student.causal_mask(4), expected, "causal_mask(4)", "(4, 4)")


@given(st.integers(1, 5), st.integers(1, 7), SEED)
def test_padding_mask(student, reference, batch, max_len, seed):
    """padding_mask: True at each sequence's real tokens, False at its padding"""
    lengths = lengths_for(np.random.default_rng(seed), batch, max_len)
    expect_equal_bool(student.padding_mask(lengths, max_len), reference.padding_mask(lengths, max_len), f"padding_mask(lengths={lengths.tolist()}, max_len={max_len})", "(B, max_len)")


@given(st.integers(1, 5), st.integers(1, 7))
def test_padding_mask_full_length(student, reference, batch, max_len):
    """padding_mask: a sequence of length max_len has no padding"""
    lengths = np.full(batch, max_len)
    expect_equal_bool(student.padding_mask(lengths, max_len), np.ones((batch, max_len), dtype=bool), f"padding_mask(lengths={lengths.tolist()}, max_len={max_len})", "(B, max_len)")


@given(st.integers(1, 9), st.data())
def test_sliding_window_mask(student, reference, n, data):
    """sliding_window_mask: query i sees keys i − window + 1 … i, for every window from 1 to past n"""
    window = data.draw(st.integers(1, n + 2), label="window")
    expect_equal_bool(student.sliding_window_mask(n, window), reference.sliding_window_mask(n, window), f"sliding_window_mask({n}, window={window})", "(n, n)")


def test_sliding_window_of_the_full_length_is_causal(student, reference):
    """sliding_window_mask: a window of n is the causal mask, a window of 1 the diagonal"""
    expect_equal_bool(student.sliding_window_mask(6, 6), np.tril(np.ones((6, 6), dtype=bool)), "sliding_window_mask(6, window=6)", "(n, n)")
    expect_equal_bool(student.sliding_window_mask(6, 1), np.eye(6, dtype=bool), "sliding_window_mask(6, window=1)", "(n, n)")


@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), SEED)
def test_document_mask(student, reference, lengths, seed):
    """document_mask: packed documents (ids in any order, not only 0, 1, 2 …) see only themselves"""
    labels = np.random.default_rng(seed).permutation(50)[: len(lengths)] + 3  # ids need not start at 0
    ids = np.repeat(labels, lengths)
    expect_equal_bool(student.document_mask(ids), reference.document_mask(ids), f"document_mask({ids.tolist()})", "(T, T)")


@given(st.integers(1, 5), st.integers(1, 7), SEED)
def test_left_padding_mask(student, reference, batch, max_len, seed):
    """left_padding_mask: True at each sequence's last lengths[b] positions, False at the padding before them"""
    lengths = lengths_for(np.random.default_rng(seed), batch, max_len)
    expect_equal_bool(student.left_padding_mask(lengths, max_len), reference.left_padding_mask(lengths, max_len), f"left_padding_mask(lengths={lengths.tolist()}, max_len={max_len})", "(B, max_len)")


def paper_alibi_slopes(n_heads):
    """The ALiBi paper's published code, step by step: 2^(-8/n) to the powers 1..n for a power of two,
    else the closest power of two's slopes and then every other slope of twice as many heads."""

    def power_of_two(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**i for i in range(n)]

    if math.log2(n_heads).is_integer():
        return np.array(power_of_two(n_heads))
    closest = 2 ** math.floor(math.log2(n_heads))
    return np.array(power_of_two(closest) + paper_alibi_slopes(2 * closest)[0::2][: n_heads - closest].tolist())


@given(st.integers(1, 40))
def test_alibi_slopes(student, reference, n_heads):
    """alibi_slopes: the paper's geometric slopes, steepest first, for every number of heads (powers of two or not)"""
    expect_close(student.alibi_slopes(n_heads), paper_alibi_slopes(n_heads), f"alibi_slopes({n_heads})", np.float64, passport="(n_heads,)")


def test_alibi_slopes_of_the_paper(student, reference):
    """alibi_slopes: 8 heads give 1/2, 1/4, …, 1/256; 12 heads add √½, √⅛, … after the 8"""
    expect_close(student.alibi_slopes(8), 0.5 ** np.arange(1, 9), "alibi_slopes(8)", np.float64, passport="(n_heads,)")
    expect_close(student.alibi_slopes(12), np.concatenate([0.5 ** np.arange(1, 9), 2.0 ** -np.arange(0.5, 4, 1)]), "alibi_slopes(12)", np.float64, passport="(n_heads,)")


@given(st.integers(1, 8), st.integers(1, 12))
def test_alibi_bias(student, reference, n, n_heads):
    """alibi_bias: bias[h, i, j] = -slope[h] · (i - j) on every cell, above the diagonal too"""
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    expected = -paper_alibi_slopes(n_heads)[:, None, None] * (i - j)
    expect_close(student.alibi_bias(n, n_heads), expected, f"alibi_bias({n}, n_heads={n_heads})", np.float64, passport="(n_heads, n, n)")


@given(st.integers(1, 8), st.integers(1, 6), st.integers(0, 3))
def test_alibi_bias_depends_on_distance_only(student, reference, n, n_heads, shift):
    """alibi_bias: the bias of a pair depends on i - j only: every diagonal is constant and the diagonal is 0"""
    bias = expect_array(student.alibi_bias(n + shift, n_heads), f"alibi_bias({n + shift}, n_heads={n_heads})")
    expect_shape(bias, (n_heads, n + shift, n + shift), f"alibi_bias({n + shift}, n_heads={n_heads})", "(n_heads, n, n)")
    expect_close(bias[:, shift:, shift:], bias[:, :n, :n], f"alibi_bias({n + shift}, n_heads={n_heads}) shifted by {shift} along both axes", np.float64)
    expect_close(np.diagonal(bias, axis1=1, axis2=2), np.zeros((n_heads, n + shift)), "the diagonal of alibi_bias (a token's distance to itself is 0)", np.float64)


def closed_form_sink_window(n, n_sinks, window):
    expected = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(i + 1):
            expected[i, j] = j < n_sinks or i - j < window
    return expected


@given(st.integers(1, 10), st.data())
def test_sink_window_mask(student, reference, n, data):
    """sink_window_mask: query i sees the first n_sinks keys up to itself and the window i − window + 1 … i"""
    n_sinks = data.draw(st.integers(0, n + 1), label="n_sinks")
    window = data.draw(st.integers(1, n + 2), label="window")
    expect_equal_bool(student.sink_window_mask(n, n_sinks, window), closed_form_sink_window(n, n_sinks, window), f"sink_window_mask({n}, n_sinks={n_sinks}, window={window})", "(n, n)")


def test_sink_window_of_streaming_llm(student, reference):
    """sink_window_mask: 4 sinks and a window of 3 over 10 tokens; no sinks is the sliding window, sinks past n the causal mask"""
    expect_equal_bool(student.sink_window_mask(10, 4, 3), closed_form_sink_window(10, 4, 3), "sink_window_mask(10, n_sinks=4, window=3)", "(n, n)")
    expect_equal_bool(student.sink_window_mask(7, 0, 2), reference.sliding_window_mask(7, 2), "sink_window_mask(7, n_sinks=0, window=2)", "(n, n)")
    expect_equal_bool(student.sink_window_mask(6, 6, 1), np.tril(np.ones((6, 6), dtype=bool)), "sink_window_mask(6, n_sinks=6, window=1)", "(n, n)")
