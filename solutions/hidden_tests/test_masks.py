"""Hidden tests for masks.py."""

import numpy as np
from attention_inputs import SEED, lengths_for
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import expect_equal_bool


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
