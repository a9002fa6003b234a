"""Hidden tests for positions.py: sinusoidal encodings, RoPE and permutation equivariance."""

import numpy as np
from attention_inputs import LEAD, SEED, SIZE, normal
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_close, expect_shape

EVEN = st.integers(1, 4).map(lambda half: 2 * half)


def closed_form_sinusoid(n_positions, d_model):
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...), one entry at a time."""
    table = np.zeros((n_positions, d_model))
    for p in range(n_positions):
        for i in range(d_model // 2):
            angle = p / 10000 ** (2 * i / d_model)
            table[p, 2 * i], table[p, 2 * i + 1] = np.sin(angle), np.cos(angle)
    return table


def closed_form_rope(x, positions, theta):
    """Rotate each adjacent pair (2i, 2i+1) at position p by p * theta^(-2i/d), one pair at a time."""
    out = np.array(x, dtype=np.float64)
    d = x.shape[-1]
    for t, p in enumerate(positions):
        for i in range(d // 2):
            angle = p * theta ** (-2 * i / d)
            a, b = x[..., t, 2 * i], x[..., t, 2 * i + 1]
            out[..., t, 2 * i] = a * np.cos(angle) - b * np.sin(angle)
            out[..., t, 2 * i + 1] = a * np.sin(angle) + b * np.cos(angle)
    return out


@given(st.integers(1, 12), EVEN)
def test_sinusoidal_shape(student, reference, n_positions, d_model):
    """sinusoidal_encoding: shape (n_positions, d_model)"""
    got = expect_array(student.sinusoidal_encoding(n_positions, d_model), "sinusoidal_encoding")
    expect_shape(got, (n_positions, d_model), "sinusoidal_encoding", "(n_positions, d_model)")


@given(st.integers(1, 12), EVEN)
def test_sinusoidal_values(student, reference, n_positions, d_model):
    """sinusoidal_encoding: sin in even columns, cos in odd ones, with angle p / 10000^(2i/d_model)"""
    got = student.sinusoidal_encoding(n_positions, d_model)
    # No array goes in: the contract's float64 sets the tolerance, whatever dtype comes back.
    expect_close(got, closed_form_sinusoid(n_positions, d_model), f"sinusoidal_encoding({n_positions}, {d_model})", np.float64, passport="(n_positions, d_model)")


def test_sinusoidal_long_table(student, reference):
    """sinusoidal_encoding: a 512 × 64 table matches the closed form"""
    expect_close(student.sinusoidal_encoding(512, 64), closed_form_sinusoid(512, 64), "sinusoidal_encoding(512, 64)", np.float64)


@given(LEAD, SIZE, EVEN, SEED)
def test_rope_shape(student, reference, lead, n, d, seed):
    """rope: the output has x's shape (..., T, d)"""
    x = normal(seed, lead + (n, d))
    got = expect_array(student.rope(x, np.arange(n)), "rope(x, positions)")
    expect_shape(got, x.shape, "rope(x, positions)", "(..., T, d)")


@given(LEAD, SIZE, EVEN, SEED, st.sampled_from([10000.0, 100.0, 10.0]))
def test_rope_values(student, reference, lead, n, d, seed, theta):
    """rope: adjacent pairs (2i, 2i+1) rotate by p · theta^(-2i/d)"""
    x = normal(seed, lead + (n, d))
    positions = np.random.default_rng(seed).integers(0, 50, size=n)
    got = student.rope(x, positions, theta=theta)
    expected = closed_form_rope(x, positions, theta)
    expect_close(got, expected, f"rope(x, positions, theta={theta:g})", x, passport="(..., T, d)")


@given(SIZE, EVEN, SEED)
def test_rope_position_zero_is_identity(student, reference, n, d, seed):
    """rope: position 0 leaves a vector unchanged"""
    x = normal(seed, (n, d))
    expect_close(student.rope(x, np.zeros(n, dtype=int)), x, "rope at position 0", x)


@given(EVEN, SEED, st.integers(0, 20), st.integers(0, 20), st.integers(1, 30))
def test_rope_scores_depend_on_relative_position(student, reference, d, seed, m, n, shift):
    """rope: q·k after rotation depends only on the distance between positions"""
    q, k = normal(seed, (1, d)), normal(seed + 1, (1, d))

    def rotated(x, p):
        got = expect_array(student.rope(x, np.array([p])), "rope(x, positions)")
        expect_shape(got, x.shape, "rope(x, positions)", "(T, d)")
        return got

    first = float(np.sum(rotated(q, m) * rotated(k, n)))
    second = float(np.sum(rotated(q, m + shift) * rotated(k, n + shift)))
    if not np.isclose(first, second, rtol=1e-7, atol=1e-9):
        raise Mismatch(f"rotated q·k should depend on m - n only: positions ({m}, {n}) give {first:.6g} but ({m + shift}, {n + shift}) give {second:.6g}")


@st.composite
def equivariance_case(draw):
    n, d_model, d_k, d_v, seed = draw(st.integers(2, 6)), draw(EVEN), draw(SIZE), draw(SIZE), draw(SEED)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    if (perm == np.arange(n)).all():
        perm = np.roll(perm, 1)  # the identity would make every gap 0
    return normal(seed, (n, d_model)), perm, normal(seed + 1, (d_model, d_k)), normal(seed + 2, (d_model, d_k)), normal(seed + 3, (d_model, d_v))


def gap(student, case, add_positions):
    value = student.equivariance_gap(*case, add_positions=add_positions)
    if not isinstance(value, (float, int)) or isinstance(value, bool):
        raise Mismatch(f"equivariance_gap should return a float, got {type(value).__name__}")
    return float(value)


@given(equivariance_case())
def test_equivariance_gap_without_positions(student, reference, case):
    """equivariance_gap: about 0 without positions (attention is permutation equivariant)"""
    value = gap(student, case, add_positions=False)
    if not abs(value) < 1e-8:
        raise Mismatch(f"without positions ‖f(PX) − P f(X)‖ should be 0 (up to rounding), got {value:.6g}: is the permutation applied the same way on both sides?")


@given(equivariance_case())
def test_equivariance_gap_with_positions(student, reference, case):
    """equivariance_gap: positive with sinusoidal positions, and equal to ‖f(PX) − P f(X)‖"""
    value = gap(student, case, add_positions=True)
    expected = reference.equivariance_gap(*case, add_positions=True)
    if not np.isclose(value, expected, rtol=1e-6, atol=1e-9):
        raise Mismatch(f"with positions the gap should be {expected:.6g}, got {value:.6g} (positions belong to slots: f(PX) = attention(PX + PE))")
