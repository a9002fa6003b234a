"""Public tests for masks.py."""

import numpy as np
from masks import causal_mask, document_mask, left_padding_mask, padding_mask, sliding_window_mask

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_equal_bool


def test_causal_mask_4():
    """causal_mask: the 4 × 4 mask; query 2 may see keys 0, 1 and 2"""
    expected = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=bool)
    expect_equal_bool(causal_mask(4), expected, "causal_mask(4)", "(4, 4)")


def test_padding_mask():
    """padding_mask: lengths [2, 3] padded to 4"""
    expected = np.array([[True, True, False, False], [True, True, True, False]])
    expect_equal_bool(padding_mask(np.array([2, 3]), 4), expected, "padding_mask([2, 3], 4)", "(B, max_len)")


def test_sliding_window():
    """sliding_window_mask: n = 5, window = 2: each query sees itself and the key before it"""
    expected = np.array([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 1, 1, 0, 0], [0, 0, 1, 1, 0], [0, 0, 0, 1, 1]], dtype=bool)
    expect_equal_bool(sliding_window_mask(5, 2), expected, "sliding_window_mask(5, 2)", "(n, n)")


def test_two_packed_documents():
    """document_mask: documents [0, 0, 1, 1, 1] give a 2 × 2 block and a 3 × 3 block"""
    expected = np.array([[1, 1, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 1, 1, 1], [0, 0, 1, 1, 1], [0, 0, 1, 1, 1]], dtype=bool)
    expect_equal_bool(document_mask(np.array([0, 0, 1, 1, 1])), expected, "document_mask([0, 0, 1, 1, 1])", "(T, T)")


def test_left_padding():
    """left_padding_mask: lengths [2, 3] padded on the left to 4"""
    expected = np.array([[False, False, True, True], [False, True, True, True]])
    expect_equal_bool(left_padding_mask(np.array([2, 3]), 4), expected, "left_padding_mask([2, 3], 4)", "(B, max_len)")


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "masks")
