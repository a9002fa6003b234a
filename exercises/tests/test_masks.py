"""Public tests for masks.py."""

import numpy as np
from masks import causal_mask, padding_mask


def test_causal_mask_4():
    """causal_mask: the 4 × 4 mask; query 2 may see keys 0, 1 and 2"""
    expected = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=bool)
    got = causal_mask(4)
    assert got.dtype == bool, f"the mask should be boolean (True = may attend), got {got.dtype}"
    np.testing.assert_array_equal(got, expected)


def test_padding_mask():
    """padding_mask: lengths [2, 3] padded to 4"""
    got = padding_mask(np.array([2, 3]), 4)
    np.testing.assert_array_equal(got, [[True, True, False, False], [True, True, True, False]])
