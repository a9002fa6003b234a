"""Hidden tests for positions.py: sinusoidal encodings, RoPE and permutation equivariance."""

import numpy as np
import pytest
from attention_inputs import LEAD, SEED, SIZE, normal
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_close, expect_shape, expect_unchanged
from attnlab.outcomes import StudentError

EVEN = st.integers(1, 4).map(lambda half: 2 * half)


def described(value) -> str:
    """What a call returned, in a few words: an array by its shape, anything else by its type."""
    shape = getattr(value, "shape", None)
    return f"an array of shape {tuple(shape)}" if shape is not None else f"a {type(value).__name__}"


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


@st.composite
def embedding_case(draw):
    lead, n, vocab, d, extra, seed = draw(LEAD), draw(SIZE), draw(st.integers(1, 7)), draw(SIZE), draw(st.integers(0, 3)), draw(SEED)
    rng = np.random.default_rng(seed)
    return rng.integers(0, vocab, size=lead + (n,)), normal(seed, (vocab, d)), normal(seed + 1, (n + extra, d))


@given(embedding_case())
def test_learned_positions_values(student, reference, case):
    """learned_positions: token_table[id] + position_table[t] at every slot t, with a table longer than the sequence"""
    ids, tokens, table = case
    expected = np.zeros(ids.shape + tokens.shape[-1:])
    for index in np.ndindex(ids.shape):
        expected[index] = tokens[ids[index]] + table[index[-1]]
    expect_close(student.learned_positions(ids, tokens, table), expected, f"learned_positions(token_ids of shape {ids.shape}, …, a table of {table.shape[0]} positions)", tokens, table, passport="(..., T, d)")


def test_learned_positions_of_repeated_tokens(student, reference):
    """learned_positions: the same token at two positions gets two different vectors (the table tells them apart)"""
    tokens = np.array([[1.0, 0.0], [0.0, 1.0]])
    table = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    expected = np.array([[1.0, 0.0], [11.0, 0.0], [0.0, 11.0]])
    expect_close(student.learned_positions(np.array([0, 0, 1]), tokens, table), expected, "learned_positions([0, 0, 1], …) ('bank' twice)", tokens, table, passport="(T, d)")


@given(embedding_case(), st.integers(1, 4))
def test_learned_positions_refuses_a_sequence_longer_than_the_table(student, reference, case, too_many):
    """learned_positions: a sequence longer than the table raises ValueError (no position past the last row was learned)"""
    ids, tokens, table = case
    short = table[: max(ids.shape[-1] - too_many, 0)]
    try:
        got = student.learned_positions(ids, tokens, short)
    except StudentError as error:
        if error.error_type != "ValueError":
            raise Mismatch(f"a sequence of {ids.shape[-1]} tokens with a table of {short.shape[0]} positions should raise ValueError, got {error.error_type}") from None
        return
    raise Mismatch(f"a sequence of {ids.shape[-1]} tokens with a table of {short.shape[0]} positions should raise ValueError, but it returned {described(got)}")


def closed_form_rope_half_split(x, positions, theta):
    """Rotate each pair (i, i + d/2) at position p by p * theta^(-2i/d), one pair at a time."""
    out = np.array(x, dtype=np.float64)
    half = x.shape[-1] // 2
    for t, p in enumerate(positions):
        for i in range(half):
            angle = p * theta ** (-2 * i / x.shape[-1])
            a, b = x[..., t, i], x[..., t, i + half]
            out[..., t, i] = a * np.cos(angle) - b * np.sin(angle)
            out[..., t, i + half] = a * np.sin(angle) + b * np.cos(angle)
    return out


@given(LEAD, SIZE, EVEN, SEED, st.sampled_from([10000.0, 500000.0, 100.0, 10.0]))
def test_rope_half_split_values(student, reference, lead, n, d, seed, theta):
    """rope_half_split: pairs (i, i + d/2) rotate by p · theta^(-2i/d)"""
    x = normal(seed, lead + (n, d))
    positions = np.random.default_rng(seed).integers(0, 50, size=n)
    expected = closed_form_rope_half_split(x, positions, theta)
    expect_close(student.rope_half_split(x, positions, theta=theta), expected, f"rope_half_split(x, positions, theta={theta:g})", x, passport="(..., T, d)")


@given(SIZE, EVEN, SEED)
def test_rope_half_split_default_theta(student, reference, n, d, seed):
    """rope_half_split: theta defaults to 10000"""
    x = normal(seed, (n, d))
    positions = np.arange(n) * 7
    expect_close(student.rope_half_split(x, positions), closed_form_rope_half_split(x, positions, 10000.0), "rope_half_split(x, positions)", x, passport="(T, d)")


@given(EVEN, SEED, st.integers(0, 20), st.integers(0, 20), st.integers(1, 30))
def test_rope_half_split_is_rope_with_permuted_features(student, reference, d, seed, m, n, shift):
    """rope_half_split: keeps lengths, position 0 is the identity, and q·k depends only on the distance"""
    q, k = normal(seed, (2, d)), normal(seed + 1, (2, d))

    def rotated(x, p):
        got = expect_array(student.rope_half_split(x, np.array([p, 0])), "rope_half_split(x, positions)")
        expect_shape(got, x.shape, "rope_half_split(x, positions)", "(T, d)")
        expect_close(got[1], x[1], "rope_half_split at position 0", x)
        expect_close(np.linalg.norm(got, axis=-1), np.linalg.norm(x, axis=-1), "the length of each rotated vector", x)
        return got[0]

    first = float(rotated(q, m) @ rotated(k, n))
    second = float(rotated(q, m + shift) @ rotated(k, n + shift))
    if not np.isclose(first, second, rtol=1e-7, atol=1e-9):
        raise Mismatch(f"rotated q·k should depend on m - n only: positions ({m}, {n}) give {first:.6g} but ({m + shift}, {n + shift}) give {second:.6g}")


SCALING = st.sampled_from([None, "linear", "ntk"])


def closed_form_frequencies(head_dim, theta, scaling, factor):
    frequencies = np.array([theta ** (-2 * i / head_dim) for i in range(head_dim // 2)])
    if scaling == "linear":
        return frequencies / factor
    if scaling == "ntk":
        stretched = theta * factor ** (head_dim / (head_dim - 2))
        return np.array([stretched ** (-2 * i / head_dim) for i in range(head_dim // 2)])
    return frequencies


@given(st.integers(2, 64).map(lambda half: 2 * half), st.sampled_from([10000.0, 500000.0, 10.0]), SCALING, st.sampled_from([2.0, 4.0, 8.0, 32.0]))
def test_rope_frequencies(student, reference, head_dim, theta, scaling, factor):
    """rope_frequencies: theta^(-2i/d); linear divides them by factor; ntk raises the base to theta · factor^(d/(d-2))"""
    expect_close(student.rope_frequencies(head_dim, theta=theta, scaling=scaling, factor=factor), closed_form_frequencies(head_dim, theta, scaling, factor),
                 f"rope_frequencies({head_dim}, theta={theta:g}, scaling={scaling!r}, factor={factor:g})", np.float64, passport="(head_dim/2,)")


@given(st.integers(1, 16).map(lambda half: 2 * half))
def test_rope_frequencies_defaults(student, reference, head_dim):
    """rope_frequencies: theta 10000 and no scaling by default, rope's own frequencies"""
    expect_close(student.rope_frequencies(head_dim), closed_form_frequencies(head_dim, 10000.0, None, 1.0), f"rope_frequencies({head_dim})", np.float64, passport="(head_dim/2,)")


@given(st.integers(2, 64).map(lambda half: 2 * half), st.sampled_from([2.0, 4.0, 16.0]))
def test_rope_frequencies_ntk_keeps_the_fastest_and_slows_the_slowest_by_factor(student, reference, head_dim, factor):
    """rope_frequencies: with ntk the first frequency stays 1 and the last is the unscaled one divided by factor"""
    got = expect_array(student.rope_frequencies(head_dim, scaling="ntk", factor=factor), f"rope_frequencies({head_dim}, scaling='ntk', factor={factor:g})")
    expect_shape(got, (head_dim // 2,), f"rope_frequencies({head_dim}, scaling='ntk')", "(head_dim/2,)")
    plain = closed_form_frequencies(head_dim, 10000.0, None, 1.0)
    expect_close(got[[0, -1]], np.array([1.0, plain[-1] / factor]), "the first and the last NTK frequency", np.float64)


@pytest.mark.parametrize("call", [(8, "yarn"), (8, "Linear"), (2, "ntk")], ids=["unknown", "misspelt", "ntk_at_head_dim_2"])
def test_rope_frequencies_refuses_what_it_cannot_scale(student, reference, call):
    """rope_frequencies: an unknown scaling, or ntk at head_dim 2, raises ValueError"""
    head_dim, scaling = call
    try:
        got = student.rope_frequencies(head_dim, scaling=scaling, factor=4.0)
    except StudentError as error:
        if error.error_type != "ValueError":
            raise Mismatch(f"rope_frequencies({head_dim}, scaling={scaling!r}) should raise ValueError, got {error.error_type}") from None
        return
    raise Mismatch(f"rope_frequencies({head_dim}, scaling={scaling!r}) should raise ValueError, but it returned {described(got)}")


@given(LEAD, SIZE, EVEN, SEED)
def test_rope_leaves_its_input_unchanged(student, reference, lead, n, d, seed):
    """rope: the x it is given is left unchanged (it returns a new array)"""
    x = normal(seed, lead + (n, d))
    _, (args_after, _) = student.inputs_after("rope", x, np.arange(n))
    expect_unchanged("rope", ("x",), (x,), args_after)


@given(LEAD, SIZE, EVEN, SEED)
def test_rope_half_split_leaves_its_input_unchanged(student, reference, lead, n, d, seed):
    """rope_half_split: the x it is given is left unchanged (it returns a new array)"""
    x = normal(seed, lead + (n, d))
    _, (args_after, _) = student.inputs_after("rope_half_split", x, np.arange(n))
    expect_unchanged("rope_half_split", ("x",), (x,), args_after)
