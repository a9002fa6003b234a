"""Public tests for masks.py."""

import numpy as np
from masks import alibi_bias, alibi_slopes, causal_mask, document_mask, left_padding_mask, padding_mask, sink_window_mask, sliding_window_mask

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_equal_bool


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


def test_padding_to_a_longer_length():
    """padding_mask: max_len may be longer than every sequence: lengths [1, 2] padded to 5"""
    expected = np.array([[True, False, False, False, False], [True, True, False, False, False]])
    expect_equal_bool(padding_mask(np.array([1, 2]), 5), expected, "padding_mask([1, 2], 5)", "(B, max_len)")


def test_sliding_window_extremes():
    """sliding_window_mask: a window of 1 is the diagonal; a window of n or more is the causal mask"""
    expect_equal_bool(sliding_window_mask(4, 1), np.eye(4, dtype=bool), "sliding_window_mask(4, 1)", "(n, n)")
    expect_equal_bool(sliding_window_mask(4, 7), np.tril(np.ones((4, 4), dtype=bool)), "sliding_window_mask(4, 7)", "(n, n)")


def test_document_ids_are_labels():
    """document_mask: ids are labels, in any order: [7, 7, 2] gives a 2 × 2 block and a 1 × 1 block"""
    expected = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1]], dtype=bool)
    expect_equal_bool(document_mask(np.array([7, 7, 2])), expected, "document_mask([7, 7, 2])", "(T, T)")


def test_left_padding_mirrors_right_padding():
    """left_padding_mask: each row is the right-padding row read backwards (lengths [1, 3, 4] to 6)"""
    lengths = np.array([1, 3, 4])
    right = np.arange(6)[None, :] < lengths[:, None]
    expect_equal_bool(left_padding_mask(lengths, 6), right[:, ::-1], "left_padding_mask([1, 3, 4], 6)", "(B, max_len)")


def test_alibi_slopes_of_8_heads():
    """alibi_slopes: 8 heads get 2^(-8h/8) = 1/2, 1/4, …, 1/256, the steepest first"""
    expect_close(alibi_slopes(8), np.array([1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]), "alibi_slopes(8)", np.float64)


def test_alibi_slopes_of_6_heads():
    """alibi_slopes: 6 heads (not a power of two): the 4 slopes of 4 heads, then every other slope of 8 heads"""
    expect_close(alibi_slopes(6), np.array([1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8]), "alibi_slopes(6)", np.float64)


def test_alibi_bias_of_2_heads():
    """alibi_bias: 3 positions, 2 heads (slopes 1/16 and 1/256): −slope · (i − j), positive above the diagonal"""
    distance = np.array([[0, -1, -2], [1, 0, -1], [2, 1, 0]])
    expected = np.stack([-distance / 16, -distance / 256])
    expect_close(alibi_bias(3, 2), expected, "alibi_bias(3, 2)", np.float64, passport="(n_heads, n, n)")


def test_sink_window():
    """sink_window_mask: 7 tokens, 2 sinks, a window of 3: the first two keys stay visible once the window has moved on"""
    expected = np.array([
        [1, 0, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0, 0],
        [1, 1, 1, 0, 0, 0, 0],
        [1, 1, 1, 1, 0, 0, 0],
        [1, 1, 1, 1, 1, 0, 0],
        [1, 1, 0, 1, 1, 1, 0],
        [1, 1, 0, 0, 1, 1, 1],
    ], dtype=bool)
    expect_equal_bool(sink_window_mask(7, 2, 3), expected, "sink_window_mask(7, n_sinks=2, window=3)", "(n, n)")


def test_sink_window_without_sinks_is_the_sliding_window():
    """sink_window_mask: no sinks is sliding_window_mask; a sink never lets a query see the future"""
    expect_equal_bool(sink_window_mask(5, 0, 2), sliding_window_mask(5, 2), "sink_window_mask(5, n_sinks=0, window=2)", "(n, n)")
    expect_equal_bool(sink_window_mask(4, 3, 1), np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=bool), "sink_window_mask(4, n_sinks=3, window=1)", "(n, n)")


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "masks")
