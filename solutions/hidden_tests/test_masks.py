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
