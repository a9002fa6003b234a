"""Public tests for masks.py."""

import numpy as np
from masks import causal_mask, padding_mask

from attnlab.expect import expect_equal_bool


def test_causal_mask_4():
    """causal_mask: the 4 × 4 mask; query 2 may see keys 0, 1 and 2"""
    expected = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=bool)
    expect_equal_bool(causal_mask(4), expected, "causal_mask(4)", "(4, 4)")


def test_padding_mask():
    """padding_mask: lengths [2, 3] padded to 4"""
    expected = np.array([[True, True, False, False], [True, True, True, False]])
    expect_equal_bool(padding_mask(np.array([2, 3]), 4), expected, "padding_mask([2, 3], 4)", "(B, max_len)")
