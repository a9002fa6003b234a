"""Hidden tests for backward.py: the softmax's vector-Jacobian product and attention's gradients.

Besides the reference, the gradients are checked against central finite
differences of a forward pass written here, in float64, so that a reference
and a student who agree on a wrong formula would still be caught. (The
reference itself is checked against torch autograd in the project's tests.)
"""

import numpy as np
from attention_inputs import LEAD, SEED, SIZE, attend_mask, normal, qkv
from blind_queries import blind_queries, causal_and, expect_blind_rows, left_padded
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_close, expect_shape, expect_unchanged

STEP = 1e-6


def gradients(result, q, k, v, what="attention_backward"):
    """The student's (dq, dk, dv), each with its argument's shape."""
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        raise Mismatch(f"{what} should return three arrays (dq, dk, dv), got {type(result).__name__}")
    for got, argument, name, passport in zip(result, (q, k, v), ("dq", "dk", "dv"), ("(..., L_q, d_k)", "(..., L_k, d_k)", "(..., L_k, d_v)")):
        expect_shape(np.asarray(got), argument.shape, f"{what}'s {name}", passport)
    return tuple(np.asarray(g, dtype=np.float64) for g in result)


def forward(q, k, v, mask=None):
    """out = softmax(q kᵀ / √d_k, masked) v in float64: (..., L_q, d_k), (..., L_k, d_k), (..., L_k, d_v) -> (..., L_q, d_v)."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v


def directional(loss, point, direction):
    """(loss(point + h·direction) − loss(point − h·direction)) / 2h."""
    return (loss(point + STEP * direction) - loss(point - STEP * direction)) / (2 * STEP)


def expect_directional(got_gradient, expected, name):
    if not np.isclose(np.sum(got_gradient * expected[1]), expected[0], rtol=1e-5, atol=1e-6):
        raise Mismatch(
            f"{name} disagrees with the finite-difference derivative: along a random direction u the loss "
            f"changes at rate {expected[0]:.6g}, but ⟨{name}, u⟩ = {np.sum(got_gradient * expected[1]):.6g}"
        )


# ---------------------------------------------------------------- softmax_backward


@st.composite
def softmax_case(draw):
    """(weights, grad_weights, axis): a softmax of random scores along a random axis, and a random upstream gradient."""
    shape = draw(LEAD) + (draw(SIZE), draw(SIZE))
    seed, axis = draw(SEED), draw(st.integers(-len(shape), len(shape) - 1))
    scores = normal(seed, shape)
    weights = np.exp(scores - scores.max(axis=axis, keepdims=True))
    return weights / weights.sum(axis=axis, keepdims=True), normal(seed + 1, shape), axis


@given(softmax_case())
def test_softmax_backward_values(student, reference, case):
    """softmax_backward: equals y ⊙ (dy − Σ dy ⊙ y) along the given axis; each row of dx sums to 0 along it"""
    weights, grad_weights, axis = case
    got = student.softmax_backward(weights, grad_weights, axis=axis)
    expect_shape(np.asarray(got), weights.shape, f"softmax_backward(axis={axis})", "same shape as y")
    # A softmax ignores a shift of its row, so its input's gradient has no component along the row.
    expect_close(np.sum(got, axis=axis), np.zeros(np.delete(weights.shape, axis)), f"the sums of softmax_backward(axis={axis}) along axis {axis}", atol=1e-9)
    expect_close(got, reference.softmax_backward(weights, grad_weights, axis=axis), f"softmax_backward(axis={axis})", weights, passport="same shape as y")


@given(SIZE, SEED)
def test_softmax_backward_matches_finite_differences(student, reference, n, seed):
    """softmax_backward: ⟨dx, u⟩ is the derivative of ⟨dy, softmax(x)⟩ along u"""
    x, grad_weights, direction = normal(seed, (3, n + 1)), normal(seed + 1, (3, n + 1)), normal(seed + 2, (3, n + 1))

    def loss(scores):
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return float(np.sum(grad_weights * weights / weights.sum(axis=-1, keepdims=True)))

    weights = np.exp(x - x.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    got = np.asarray(student.softmax_backward(weights, grad_weights), dtype=np.float64)
    expect_shape(got, x.shape, "softmax_backward", "same shape as y")
    expect_directional(got, (directional(loss, x, direction), direction), "softmax_backward's dx")


@given(softmax_case())
def test_softmax_backward_leaves_its_inputs_unchanged(student, reference, case):
    """softmax_backward: the weights and the gradient it is given are left unchanged"""
    weights, grad_weights, axis = case
    _, (args_after, _) = student.inputs_after("softmax_backward", weights, grad_weights, axis=axis)
    expect_unchanged("softmax_backward", ("weights", "grad_weights"), (weights, grad_weights), args_after)


# ---------------------------------------------------------------- attention_backward


@st.composite
def attention_case(draw, masked=False, dtypes=st.just(np.float64)):
    """(q, k, v, grad_out, mask): grad_out (..., L_q, d_v), mask (..., L_q, L_k) with a visible key in every row, or None."""
    q, k, v = draw(qkv(dtypes=dtypes))
    grad_out = normal(draw(SEED), q.shape[:-1] + v.shape[-1:], q.dtype)
    mask = draw(attend_mask(q.shape[:-2], q.shape[-2], k.shape[-2])) if masked else None
    return q, k, v, grad_out, mask


@given(attention_case(dtypes=st.sampled_from([np.float64, np.float32])))
def test_attention_backward_shapes(student, reference, case):
    """attention_backward: dq, dk, dv have the shapes of q, k, v"""
    q, k, v, grad_out, _ = case
    gradients(student.attention_backward(q, k, v, grad_out), q, k, v)


@given(attention_case(dtypes=st.sampled_from([np.float64, np.float32])))
def test_attention_backward_values(student, reference, case):
    """attention_backward: dq, dk, dv equal the reference's"""
    q, k, v, grad_out, _ = case
    got = gradients(student.attention_backward(q, k, v, grad_out), q, k, v)
    expected = reference.attention_backward(q, k, v, grad_out)
    for name, g, e in zip(("dq", "dk", "dv"), got, expected):
        expect_close(g, e, f"attention_backward's {name}", q)


@given(attention_case())
def test_attention_backward_matches_finite_differences(student, reference, case):
    """attention_backward: each of dq, dk, dv is the derivative of ⟨d_out, out⟩ along a random direction"""
    q, k, v, grad_out, _ = case
    got = gradients(student.attention_backward(q, k, v, grad_out), q, k, v)
    arguments = [q, k, v]
    for index, name in enumerate(("dq", "dk", "dv")):
        direction = normal(index + 7, arguments[index].shape)

        def loss(point, index=index):
            moved = list(arguments)
            moved[index] = point
            return float(np.sum(grad_out * forward(*moved)))

        expect_directional(got[index], (directional(loss, arguments[index], direction), direction), f"attention_backward's {name}")


@given(attention_case(masked=True))
def test_attention_backward_masked(student, reference, case):
    """attention_backward: with a mask, dq, dk, dv equal the reference's (masked scores get no gradient)"""
    q, k, v, grad_out, mask = case
    got = gradients(student.attention_backward(q, k, v, grad_out, mask), q, k, v, "attention_backward with a mask")
    expected = reference.attention_backward(q, k, v, grad_out, mask)
    for name, g, e in zip(("dq", "dk", "dv"), got, expected):
        expect_close(g, e, f"attention_backward's {name} with a mask", q)


@given(st.integers(2, 5), st.integers(2, 5), SIZE, SEED)
def test_attention_backward_hidden_key_gets_nothing(student, reference, n_q, n_k, d, seed):
    """attention_backward: a key that no query may see gets dk = 0 and dv = 0"""
    q, k, v, grad_out = normal(seed, (n_q, d)), normal(seed + 1, (n_k, d)), normal(seed + 2, (n_k, d + 1)), normal(seed + 3, (n_q, d + 1))
    mask = np.ones((n_q, n_k), dtype=bool)
    mask[:, -1] = False
    dq, dk, dv = gradients(student.attention_backward(q, k, v, grad_out, mask), q, k, v, "attention_backward with a mask")
    expect_close(dk[-1], np.zeros(d), "dk of the last key, which no query may see", atol=1e-12)
    expect_close(dv[-1], np.zeros(d + 1), "dv of the last key, which no query may see", atol=1e-12)
    for name, g, e in zip(("dq", "dk", "dv"), (dq, dk, dv), reference.attention_backward(q, k, v, grad_out, mask)):
        expect_close(g, e, f"attention_backward's {name} with the last key hidden", q)


# ---------------------------------------------------------------- a query that may see no key


@st.composite
def blind_case(draw):
    """(q, k, v, grad_out, mask, blind): a left-padded batch under a causal mask, with or without a
    head axis; mask (B, [1,] T, T), blind (B, [1,] T) True at the queries that may see no key."""
    real = draw(left_padded())
    heads = draw(st.sampled_from([(), (2,)]))
    d_k, d_v, seed = draw(SIZE), draw(SIZE), draw(SEED)
    lead, n = (real.shape[0], *heads), real.shape[1]
    q, k = normal(seed, lead + (n, d_k)), normal(seed + 1, lead + (n, d_k))
    v, grad_out = normal(seed + 2, lead + (n, d_v)), normal(seed + 3, lead + (n, d_v))
    mask, blind = causal_and(real), blind_queries(real)
    if heads:
        mask, blind = mask[:, None], blind[:, None]
    return q, k, v, grad_out, mask, blind


def gradients_for_weights(weights, q, k, v, grad_out):
    """(dq, dk, dv) of out = weights v, weights = softmax(q kᵀ / √d_k) for these weights: what a
    backward pass gives when its forward pass made them (to name a wrong answer, not to grade it)."""
    grad_v = np.swapaxes(weights, -1, -2) @ grad_out
    grad_weights = grad_out @ np.swapaxes(v, -1, -2)
    along = np.sum(grad_weights * weights, axis=-1, keepdims=True)
    grad_scores = weights * (grad_weights - along) / np.sqrt(q.shape[-1])
    return grad_scores @ k, np.swapaxes(grad_scores, -1, -2) @ q, grad_v


@given(blind_case())
def test_attention_backward_blind_queries(student, reference, case):
    """attention_backward: with left padding under a causal mask, a query that may see no key has no gradient (its row of dq is 0), and dq, dk, dv are right and never nan"""
    q, k, v, grad_out, mask, blind = case
    what = "attention_backward with left padding under a causal mask"
    got = gradients(student.attention_backward(q, k, v, grad_out, mask), q, k, v, what)
    _, weights = reference.scaled_dot_product_attention(q, k, v, mask)
    # A finite fill (-1e9) leaves a blind query's row uniform, and the row then has a gradient.
    uniform = gradients_for_weights(np.where(blind[..., None], 1.0 / k.shape[-2], weights), q, k, v, grad_out)
    axes = ("sequence", "head", "query") if q.ndim == 4 else ("sequence", "query")
    expect_blind_rows(got[0], blind, f"{what}: dq", q, axes=axes, uniform=uniform[0])
    for name, g, e in zip(("dq", "dk", "dv"), got, reference.attention_backward(q, k, v, grad_out, mask)):
        expect_close(g, e, f"{what}: {name}", q)
