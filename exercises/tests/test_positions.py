"""Public tests for positions.py."""

import numpy as np
from positions import equivariance_gap, rope, sinusoidal_encoding

from attnlab.check.probe_book import probe_tests


def test_sinusoidal_first_rows():
    """sinusoidal_encoding: position 0 is [0, 1, 0, 1, ...]; position 1 starts with sin(1), cos(1)"""
    table = sinusoidal_encoding(3, 4)
    assert table.shape == (3, 4)
    np.testing.assert_allclose(table[0], [0, 1, 0, 1], atol=1e-12)
    np.testing.assert_allclose(table[1, :2], [np.sin(1.0), np.cos(1.0)])


def test_rope_keeps_shape_and_length():
    """rope: keeps the shape, position 0 is unchanged, and rotations keep each pair's length"""
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    out = rope(x, np.arange(3))
    assert out.shape == x.shape
    np.testing.assert_allclose(out[:, 0], x[:, 0], err_msg="position 0 turns by angle 0")
    np.testing.assert_allclose(np.hypot(out[..., 0::2], out[..., 1::2]), np.hypot(x[..., 0::2], x[..., 1::2]))


def test_rope_first_pair():
    """rope: at position 1 the first pair (x0, x1) = (1, 0) turns by 1 radian"""
    out = rope(np.array([[1.0, 0.0]]), np.array([1]))
    np.testing.assert_allclose(out, [[np.cos(1.0), np.sin(1.0)]])


def test_equivariance():
    """equivariance_gap: 0 without positions, positive with them"""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((5, 4)), rng.standard_normal((3, 4, 4))
    perm = [1, 2, 3, 4, 0]
    assert equivariance_gap(x, perm, *w) < 1e-9
    assert equivariance_gap(x, perm, *w, add_positions=True) > 1e-3


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "positions")
