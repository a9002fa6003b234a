"""Public tests for positions.py."""

import numpy as np
from positions import equivariance_gap, learned_positions, rope, rope_frequencies, rope_half_split, sinusoidal_encoding

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_shape, expect_unchanged


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


def test_sinusoidal_formula():
    """sinusoidal_encoding: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(…): p = 3, i = 1, d = 6"""
    table = sinusoidal_encoding(5, 6)
    angle = 3 / 10000 ** (2 / 6)
    np.testing.assert_allclose(table[3, 2:4], [np.sin(angle), np.cos(angle)], err_msg="PE[3, 2] and PE[3, 3]")


def test_rope_depends_on_relative_position():
    """rope: the score of a rotated query at m and key at n depends on m − n only (here 7 − 4 = 5 − 2)"""
    rng = np.random.default_rng(12)
    q, k = rng.standard_normal((1, 6)), rng.standard_normal((1, 6))
    far = (rope(q, np.array([7])) @ rope(k, np.array([4])).T).item()
    near = (rope(q, np.array([5])) @ rope(k, np.array([2])).T).item()
    np.testing.assert_allclose(far, near, err_msg="positions (7, 4) and (5, 2) are 3 apart: the scores should be equal")


def test_rope_uses_the_positions_it_is_given():
    """rope: pair 1 of a d = 4 vector at position 5, theta = 100, turns by 5 · 100^(-2/4) = 0.5 radians"""
    out = rope(np.array([[0.0, 0.0, 1.0, 0.0]]), np.array([5]), theta=100.0)
    np.testing.assert_allclose(out, [[0.0, 0.0, np.cos(0.5), np.sin(0.5)]], atol=1e-12)


def test_equivariance_gap_value():
    """equivariance_gap: with positions it is ‖f(P X + PE) − P f(X + PE)‖_F, computed here by hand"""
    rng = np.random.default_rng(13)
    x, (w_q, w_k, w_v) = rng.standard_normal((4, 4)), rng.standard_normal((3, 4, 4))
    perm = np.array([2, 0, 3, 1])
    pe = sinusoidal_encoding(4, 4)

    def f(tokens):
        scores = (tokens @ w_q) @ (tokens @ w_k).T / 2.0
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        return weights / weights.sum(axis=1, keepdims=True) @ (tokens @ w_v)

    expected = np.linalg.norm(f(x[perm] + pe) - f(x + pe)[perm])
    got = equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=True)
    np.testing.assert_allclose(got, expected, err_msg="the gap with positions")
    assert equivariance_gap(x, np.arange(4), w_q, w_k, w_v, add_positions=True) < 1e-9, "the identity permutation moves nothing: the gap should be 0"


def test_learned_positions_tell_bank_from_bank():
    """learned_positions: the same token at positions 0 and 2 gets two different vectors, token row + position row"""
    tokens = np.array([[1.0, 0.0], [0.0, 1.0]])
    table = np.array([[0.1, 0.0], [0.2, 0.0], [0.3, 0.0]])
    out = learned_positions(np.array([[0, 1, 0]]), tokens, table)
    expect_shape(out, (1, 3, 2), "learned_positions(token_ids (1, 3), …)", "(B, T, d)")
    expect_close(out, np.array([[[1.1, 0.0], [0.2, 1.0], [1.3, 0.0]]]), "learned_positions([[0, 1, 0]], …)", tokens, table)


def test_learned_positions_refuse_a_longer_sequence():
    """learned_positions: a table of 2 positions cannot place 3 tokens: ValueError"""
    try:
        learned_positions(np.array([0, 0, 0]), np.ones((1, 2)), np.zeros((2, 2)))
    except ValueError:
        return
    raise AssertionError("learned_positions with 3 tokens and a table of 2 positions should raise ValueError")


def test_rope_half_split_first_pair():
    """rope_half_split: d = 4, position 1: pair 0 is (x0, x2) and turns by 1 radian, pair 1 is (x1, x3) and turns by 0.01"""
    out = rope_half_split(np.array([[1.0, 1.0, 0.0, 0.0]]), np.array([1]))
    expect_close(out, np.array([[np.cos(1.0), np.cos(0.01), np.sin(1.0), np.sin(0.01)]]), "rope_half_split([[1, 1, 0, 0]], [1])")


def test_rope_half_split_is_rope_on_permuted_features():
    """rope_half_split: the same rotation as rope once the features are reordered [x0, x2, x1, x3]"""
    x = np.random.default_rng(5).standard_normal((2, 3, 4))
    positions = np.array([4, 0, 7])
    interleaved = [0, 2, 1, 3]  # half-split feature order -> adjacent pairs
    expect_close(rope_half_split(x, positions)[..., interleaved], rope(x[..., interleaved], positions), "rope_half_split, reordered", x)


def test_rope_frequencies_and_their_scaling():
    """rope_frequencies: d = 8: [1, 0.1, 0.01, 0.001]; linear ×4 divides them by 4; NTK ×4 keeps 1 and ends at 0.001 / 4"""
    expect_close(rope_frequencies(8), np.array([1.0, 0.1, 0.01, 0.001]), "rope_frequencies(8)", np.float64)
    expect_close(rope_frequencies(8, scaling="linear", factor=4.0), np.array([0.25, 0.025, 0.0025, 0.00025]), "rope_frequencies(8, scaling='linear', factor=4)", np.float64)
    ntk_base = 10000.0 * 4.0 ** (8 / 6)
    expect_close(rope_frequencies(8, scaling="ntk", factor=4.0), ntk_base ** -(np.arange(0, 8, 2) / 8), "rope_frequencies(8, scaling='ntk', factor=4)", np.float64)
    expect_close(rope_frequencies(8, scaling="ntk", factor=4.0)[[0, -1]], np.array([1.0, 0.00025]), "the first and last NTK frequency", np.float64)


def rotate_pairs(x, angles, first, second):
    """x with each pair (x[first[i]], x[second[i]]) turned by angles[..., i]: the pair as the
    complex number a + ib, times e^(i angle)."""
    out = x.copy()
    turned = (x[..., first] + 1j * x[..., second]) * np.exp(1j * angles)
    out[..., first], out[..., second] = turned.real, turned.imag
    return out


def test_rope_of_heads():
    """rope: x with batch and head axes (2, 2, T, d) = (2, 2, 3, 6), theta 100: every pair turns by p · 100^(-2i/6)"""
    x = np.random.default_rng(30).standard_normal((2, 2, 3, 6))
    positions = np.array([4, 0, 9])
    angles = positions[:, None] * 100.0 ** (-np.arange(0, 6, 2) / 6)[None, :]
    expect_close(rope(x, positions, theta=100.0), rotate_pairs(x, angles, [0, 2, 4], [1, 3, 5]), "rope of (2, 2, 3, 6) with theta = 100", x)


def test_rope_half_split_of_heads():
    """rope_half_split: x (2, 2, 3, 6), theta 100: pair (i, i + 3) turns by p · 100^(-2i/6)"""
    x = np.random.default_rng(31).standard_normal((2, 2, 3, 6))
    positions = np.array([4, 0, 9])
    angles = positions[:, None] * 100.0 ** (-np.arange(0, 6, 2) / 6)[None, :]
    expect_close(rope_half_split(x, positions, theta=100.0), rotate_pairs(x, angles, [0, 1, 2], [3, 4, 5]), "rope_half_split of (2, 2, 3, 6) with theta = 100", x)


def test_rope_frequencies_refuse_what_they_cannot_scale():
    """rope_frequencies: an unknown scaling, or NTK at head_dim 2, raises ValueError"""
    for kwargs in ({"scaling": "yarn", "factor": 2.0}, {"scaling": "ntk", "factor": 2.0}):
        head_dim = 2 if kwargs["scaling"] == "ntk" else 8
        try:
            rope_frequencies(head_dim, **kwargs)
        except ValueError:
            continue
        raise AssertionError(f"rope_frequencies({head_dim}, scaling={kwargs['scaling']!r}) should raise ValueError")


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "positions")


def test_rope_leaves_x_as_it_was():
    """rope: x is unchanged after the call (a new array is returned)"""
    x = np.arange(8.0).reshape(2, 4)
    given = x.copy()
    rope(x, np.array([1, 2]))
    expect_unchanged("rope", ("x",), (given,), (x,))


def test_rope_half_split_leaves_x_as_it_was():
    """rope_half_split: x is unchanged after the call (a new array is returned)"""
    x = np.arange(8.0).reshape(2, 4)
    given = x.copy()
    rope_half_split(x, np.array([1, 2]))
    expect_unchanged("rope_half_split", ("x",), (given,), (x,))
