"""Public tests for backward.py, on worked examples small enough to do by hand."""

import numpy as np
from backward import attention_backward, softmax_backward

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_shape, expect_unchanged


def test_two_way_softmax():
    """softmax_backward: y = (0.5, 0.5) and dy = (1, 0) give dx = (0.25, -0.25)"""
    dx = softmax_backward(np.array([0.5, 0.5]), np.array([1.0, 0.0]))
    expect_close(dx, [0.25, -0.25], "dx = y * (dy - sum(dy * y)) = 0.5 * ([1, 0] - 0.5)")


def test_gradient_rows_sum_to_zero():
    """softmax_backward: shifting every score of a row changes nothing, so each row of dx sums to 0"""
    y = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    dx = softmax_backward(y, np.array([[3.0, -1.0, 2.0], [0.5, 0.0, 1.0]]))
    expect_close(dx.sum(axis=-1), [0.0, 0.0], "the row sums of dx")


def test_a_zero_query():
    """attention_backward: a zero query weighs three keys equally; dv = 1/3 each, dq = (5, -5) / (3√2), dk = 0"""
    q = np.zeros((1, 2))
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
    grad_out = np.array([[1.0, 0.0]])
    dq, dk, dv = attention_backward(q, k, v, grad_out)
    expect_shape(dq, (1, 2), "dq", "(L_q, d_k)")
    expect_shape(dk, (3, 2), "dk", "(L_k, d_k)")
    expect_shape(dv, (3, 2), "dv", "(L_k, d_v)")
    expect_close(dv, [[1 / 3, 0.0]] * 3, "dv = Aᵀ d_out: every key has weight 1/3")
    # dA = d_out vᵀ = (10, 0, 5); dS = A ⊙ (dA − 5) = (5, −5, 0) / 3; dq = dS k / √2.
    expect_close(dq, [[5 / (3 * np.sqrt(2)), -5 / (3 * np.sqrt(2))]], "dq = dS k / √d_k")
    expect_close(dk, np.zeros((3, 2)), "dk = dSᵀ q / √d_k, with q = 0")


def test_a_masked_key_gets_no_gradient():
    """attention_backward: a key that no query may see gets dk = 0 and dv = 0"""
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((2, 3)), rng.standard_normal((3, 3)), rng.standard_normal((3, 4))
    mask = np.array([[True, True, False], [True, True, False]])
    _, dk, dv = attention_backward(q, k, v, rng.standard_normal((2, 4)), mask)
    expect_close(dk[2], np.zeros(3), "dk of the hidden key")
    expect_close(dv[2], np.zeros(4), "dv of the hidden key")


def _numeric_gradient(f, x, eps=1e-6):
    """d sum(f(x) * upstream) / dx by central differences, entry by entry."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += eps
        down[index] -= eps
        grad[index] = (f(up) - f(down)) / (2 * eps)
    return grad


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_softmax_backward_matches_finite_differences():
    """softmax_backward: along axis 1 of a 2 x 3 x 2 array it equals the numerical gradient of softmax"""
    rng = np.random.default_rng(8)
    x, upstream = rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 3, 2))
    numeric = _numeric_gradient(lambda z: np.sum(_softmax(z, 1) * upstream), x)
    expect_close(softmax_backward(_softmax(x, 1), upstream, axis=1), numeric, "dx along axis=1", atol=1e-6)


def test_attention_backward_matches_finite_differences():
    """attention_backward: dq, dk and dv equal the numerical gradients, batched, with a causal mask, L_q = L_k = 3, d_k = 2, d_v = 4"""
    rng = np.random.default_rng(9)
    q, k, v = rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 3, 4))
    upstream, mask = rng.standard_normal((2, 3, 4)), np.tril(np.ones((3, 3), dtype=bool))

    def loss(q, k, v):
        scores = np.where(mask, q @ np.swapaxes(k, -1, -2) / np.sqrt(2), -np.inf)
        return np.sum(_softmax(scores, -1) @ v * upstream)

    dq, dk, dv = attention_backward(q, k, v, upstream, mask)
    expect_close(dq, _numeric_gradient(lambda z: loss(z, k, v), q), "dq", atol=1e-6)
    expect_close(dk, _numeric_gradient(lambda z: loss(q, z, v), k), "dk", atol=1e-6)
    expect_close(dv, _numeric_gradient(lambda z: loss(q, k, z), v), "dv", atol=1e-6)


def by_hand(q, k, v, grad_out, mask=None):
    """dq, dk, dv of attention by the chain rule, in float64."""
    q, k, v, grad_out = (np.asarray(a, dtype=np.float64) for a in (q, k, v, grad_out))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    visible = np.ones(scores.shape, dtype=bool) if mask is None else np.broadcast_to(mask, scores.shape)
    scores = np.where(visible, scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores - np.where(np.isneginf(top), 0.0, top))
    weights = weights / np.maximum(weights.sum(axis=-1, keepdims=True), 1e-300)
    grad_weights = grad_out @ np.swapaxes(v, -1, -2)
    grad_scores = weights * (grad_weights - np.sum(grad_weights * weights, axis=-1, keepdims=True)) / np.sqrt(q.shape[-1])
    return grad_scores @ k, np.swapaxes(grad_scores, -1, -2) @ q, np.swapaxes(weights, -1, -2) @ grad_out


def test_softmax_backward_of_heads():
    """softmax_backward: a (2, 2, 3, 4) batch of rows along the last axis and along axis 1"""
    rng = np.random.default_rng(12)
    for axis in (-1, 1):
        x = rng.standard_normal((2, 2, 3, 4))
        y = np.exp(x - x.max(axis=axis, keepdims=True))
        y /= y.sum(axis=axis, keepdims=True)
        dy = rng.standard_normal(y.shape)
        expected = y * (dy - np.sum(dy * y, axis=axis, keepdims=True))
        expect_close(softmax_backward(y, dy, axis=axis), expected, f"softmax_backward of (2, 2, 3, 4) along axis {axis}", y)


def test_attention_backward_in_float32_with_heads_and_a_mask_of_the_keys():
    """attention_backward: float32 (2, 2, L, d) inputs and a mask of the keys (B, 1, 1, L_k): dq, dk, dv by the chain rule"""
    rng = np.random.default_rng(13)
    q, k = rng.standard_normal((2, 2, 3, 4)).astype(np.float32), rng.standard_normal((2, 2, 5, 4)).astype(np.float32)
    v, grad_out = rng.standard_normal((2, 2, 5, 2)).astype(np.float32), rng.standard_normal((2, 2, 3, 2)).astype(np.float32)
    mask = np.array([[True, False, True, True, False], [True, True, True, True, True]])[:, None, None, :]
    for name, mine, theirs in zip(("dq", "dk", "dv"), attention_backward(q, k, v, grad_out, mask), by_hand(q, k, v, grad_out, mask)):
        expect_close(mine, theirs, f"attention_backward's float32 {name} with a mask of the keys", q)


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "backward")


def test_softmax_backward_leaves_its_inputs_as_they_were():
    """softmax_backward: the weights and the gradient it is given are unchanged after the call"""
    weights, grad_weights = np.array([[0.25, 0.75]]), np.array([[1.0, -2.0]])
    given = (weights.copy(), grad_weights.copy())
    softmax_backward(weights, grad_weights)
    expect_unchanged("softmax_backward", ("weights", "grad_weights"), given, (weights, grad_weights))
