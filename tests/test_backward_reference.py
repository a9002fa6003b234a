"""The reference backward pass agrees with torch autograd, so the hidden tests' reference is right."""

import sys

import numpy as np
import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
sys.path.insert(0, str(REPO / "solutions"))
try:
    from backward import attention_backward, softmax_backward
finally:  # the reference's plain module names must not shadow anything else this worker imports
    sys.path.remove(str(REPO / "solutions"))
    for name in ("backward", "scores", "softmax"):
        sys.modules.pop(name, None)

SIZE = st.integers(1, 5)


@settings(max_examples=60, deadline=None)
@given(st.lists(SIZE, min_size=1, max_size=3), st.data())
def test_softmax_backward_is_autograd_vjp(shape, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    x, grad = rng.standard_normal(shape), rng.standard_normal(shape)
    scores = torch.tensor(x, requires_grad=True)
    torch.softmax(scores, dim=axis).backward(torch.tensor(grad))
    weights = torch.softmax(torch.tensor(x), dim=axis).numpy()
    np.testing.assert_allclose(softmax_backward(weights, grad, axis=axis), scores.grad.numpy(), atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 3), max_size=2), SIZE, SIZE, SIZE, SIZE, st.booleans(), st.integers(0, 2**16))
def test_attention_backward_is_autograd(lead, n_q, n_k, d_k, d_v, masked, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((*lead, n_q, d_k)), rng.standard_normal((*lead, n_k, d_k))
    v, grad_out = rng.standard_normal((*lead, n_k, d_v)), rng.standard_normal((*lead, n_q, d_v))
    mask = None
    if masked:
        mask = rng.random((n_q, n_k)) < 0.5
        mask[np.arange(n_q), rng.integers(0, n_k, n_q)] = True  # a visible key in every row
    tq, tk, tv = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    out = torch.nn.functional.scaled_dot_product_attention(
        tq, tk, tv, attn_mask=None if mask is None else torch.tensor(mask)
    )
    out.backward(torch.tensor(grad_out))
    for mine, theirs in zip(attention_backward(q, k, v, grad_out, mask), (tq.grad, tk.grad, tv.grad)):
        np.testing.assert_allclose(mine, theirs.numpy(), atol=1e-10)
