"""One rule for a query that may see no key, in both tracks: zero weights, a zero output, no gradient.

The reference of every function agrees with torch's F.scaled_dot_product_attention (which, since
torch 2.5, gives such a query zeros) on the realistic case, a left-padded batch under a causal
mask; and the hidden tests take exactly their points from code that gives nan or a uniform row
there, saying why, alone and in a class, while code that is right another way keeps them all.
"""

import sys

import numpy as np
import pytest
from conftest import REPO, SUBMISSIONS, read_fixture
from hypothesis import given, settings
from hypothesis import strategies as st

from attnlab.outcomes import Outcome

torch = pytest.importorskip("torch")
F = torch.nn.functional
sys.path.insert(0, str(REPO / "solutions"))
try:
    from attention import scaled_dot_product_attention
    from backward import attention_backward
    from efficient import (
        flash_attention,
        flash_attention_backward,
        grouped_query_attention,
        kv_cache_step,
        online_softmax_attention,
    )
    from multihead import multi_head_attention
    from torch_attention import MultiHeadSelfAttention
finally:  # the reference's plain module names must not shadow anything else this worker imports
    sys.path.remove(str(REPO / "solutions"))
    for name in ("softmax", "scores", "masks", "attention", "backward", "multihead", "efficient", "torch_attention"):
        sys.modules.pop(name, None)

TORCH_VERSION = tuple(int(part) for part in torch.__version__.split("+")[0].split(".")[:2])
pytestmark = pytest.mark.skipif(TORCH_VERSION < (2, 5), reason="torch < 2.5 gives a blind query nan")


@st.composite
def left_padded(draw):
    """(B, T) bool, True at real tokens, padding first: sequence 0 padded, the last one not."""
    batch, n = draw(st.integers(2, 4)), draw(st.integers(2, 6))
    lengths = np.random.default_rng(draw(st.integers(0, 2**16))).integers(1, n + 1, size=batch)
    lengths[0], lengths[-1] = min(lengths[0], n - 1), n
    return np.arange(n)[None, :] >= (n - lengths)[:, None]


def causal_and(real):
    n = real.shape[1]
    return np.tril(np.ones((n, n), dtype=bool)) & real[:, None, :]


def torch_attention(q, k, v, mask, grad_out=None, **options):
    """F.scaled_dot_product_attention on numpy arrays in float64: out, and with ``grad_out`` (dq, dk, dv)."""
    tq, tk, tv = (torch.tensor(a, requires_grad=grad_out is not None) for a in (q, k, v))
    out = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=torch.tensor(mask), **options)
    if grad_out is None:
        return out.detach().numpy()
    out.backward(torch.tensor(grad_out))
    return out.detach().numpy(), (tq.grad.numpy(), tk.grad.numpy(), tv.grad.numpy())


def draw_arrays(data, *shapes):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    return [rng.standard_normal(shape) for shape in shapes]


@settings(max_examples=40, deadline=None)
@given(left_padded(), st.integers(1, 4), st.data())
def test_forward_and_backward_are_torchs(real, d, data):
    (batch, n), mask = real.shape, causal_and(real)
    q, k, v, grad_out = draw_arrays(data, *[(batch, n, d)] * 4)
    blind = ~mask.any(axis=-1)
    assert blind.any() and not blind.all()
    expected, expected_grads = torch_attention(q, k, v, mask, grad_out)
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    np.testing.assert_allclose(out, expected, atol=1e-12)
    assert not weights[blind].any() and not out[blind].any()
    grads = attention_backward(q, k, v, grad_out, mask)
    for mine, theirs in zip(grads, expected_grads):
        np.testing.assert_allclose(mine, theirs, atol=1e-10)
    assert not grads[0][blind].any(), "a blind query has no gradient"


@settings(max_examples=40, deadline=None)
@given(left_padded(), st.integers(1, 3), st.integers(1, 3), st.data())
def test_multi_head_and_grouped_query_attention_are_torchs(real, heads, d_head, data):
    (batch, n), mask = real.shape, causal_and(real)
    d_model = heads * d_head
    x, w_q, w_k, w_v, w_o = draw_arrays(data, (batch, n, d_model), *[(d_model, d_model)] * 4)
    out, weights = multi_head_attention(x, w_q, w_k, w_v, w_o, heads, causal=True, key_padding_mask=real)
    split = lambda y: y.reshape(batch, n, heads, d_head).transpose(0, 2, 1, 3)  # noqa: E731
    per_head = torch_attention(split(x @ w_q), split(x @ w_k), split(x @ w_v), mask[:, None])
    np.testing.assert_allclose(out, per_head.transpose(0, 2, 1, 3).reshape(batch, n, d_model) @ w_o, atol=1e-12)
    assert not weights[~mask[:, None].any(-1).repeat(heads, 1)].any()
    q, k, v = draw_arrays(data, (batch, 2 * heads, n, d_head), (batch, heads, n, d_head), (batch, heads, n, d_head))
    out, _ = grouped_query_attention(q, k, v, causal=True, key_padding_mask=real)
    np.testing.assert_allclose(out, torch_attention(q, k, v, mask[:, None], enable_gqa=True), atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(left_padded(), st.integers(1, 7), st.booleans(), st.data())
def test_online_softmax_and_kv_cache_are_torchs(real, block, causal, data):
    (batch, n), mask = real.shape, causal_and(real)
    q, k, v = draw_arrays(data, *[(batch, n, 3)] * 3)
    expected = torch_attention(q, k, v, mask)
    got = online_softmax_attention(q, k, v, block, causal=causal, mask=real[:, None, :] if causal else mask)
    np.testing.assert_allclose(got, expected, atol=1e-12)
    x, w_q, w_k, w_v = draw_arrays(data, (batch, n, 4), (4, 3), (4, 3), (4, 2))
    cache, steps = None, []
    for t in range(n):
        out_t, cache = kv_cache_step(x[:, t : t + 1], cache, w_q, w_k, w_v, key_padding_mask=real[:, : t + 1])
        steps.append(out_t)
    expected = torch_attention(x @ w_q, x @ w_k, x @ w_v, mask)
    np.testing.assert_allclose(np.concatenate(steps, axis=1), expected, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(left_padded(), st.integers(1, 7), st.integers(1, 7), st.booleans(), st.data())
def test_flash_attention_and_its_backward_are_torchs(real, block_q, block_k, causal, data):
    (batch, n), mask = real.shape, causal_and(real)
    q, k, v, grad_out = draw_arrays(data, *[(batch, n, 3)] * 4)
    blind = ~mask.any(axis=-1)
    expected, expected_grads = torch_attention(q, k, v, mask, grad_out)
    given_mask = real[:, None, :] if causal else mask
    out, lse = flash_attention(q, k, v, block_q, block_k, causal=causal, mask=given_mask)
    np.testing.assert_allclose(out, expected, atol=1e-12)
    scores = torch.tensor(q @ k.transpose(0, 2, 1) / np.sqrt(3)).masked_fill(~torch.tensor(mask), -torch.inf)
    np.testing.assert_allclose(lse, torch.logsumexp(scores, dim=-1).numpy(), atol=1e-12)  # -inf where blind
    assert (lse[blind] == -np.inf).all() and not out[blind].any()
    grads = flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, causal=causal, mask=given_mask)
    for mine, theirs in zip(grads, expected_grads):
        np.testing.assert_allclose(mine, theirs, atol=1e-10)
    assert not grads[0][blind].any(), "a blind query has no gradient"


def test_flash_attention_never_warns_on_a_blind_query():
    real = np.array([[False, True], [True, True]])
    with np.errstate(all="raise"):  # no -inf - (-inf), no 0 / 0, no log 0 warning, even where the result is discarded
        out, lse = flash_attention(*np.ones((3, 2, 2, 2)), 1, 1, causal=True, mask=real[:, None, :])
        flash_attention_backward(
            *np.ones((3, 2, 2, 2)), out, lse, np.ones((2, 2, 2)), 1, 1, causal=True, mask=real[:, None, :]
        )


def test_the_online_softmax_never_warns_on_a_blind_query():
    real = np.array([[False, True], [True, True]])
    with np.errstate(all="raise"):  # no -inf - (-inf), no 0 / 0, even where the result is discarded
        online_softmax_attention(*np.ones((3, 2, 2, 2)), 1, causal=True, mask=real[:, None, :])


def torch_module_case(dtype, seed):
    """The reference module in ``dtype`` with a left-padded batch, and the same through F.sdpa in float64."""
    torch.manual_seed(seed)
    module = MultiHeadSelfAttention(8, 2).double()
    real = torch.arange(5)[None, :] >= torch.tensor([2, 0, 1])[:, None]  # (3, 5): 2, 0 and 1 padding tokens first
    x = torch.randn(3, 5, 8, dtype=torch.float64)
    q, k, v = (proj(x).view(3, 5, 2, 4).transpose(1, 2) for proj in (module.q_proj, module.k_proj, module.v_proj))
    mask = torch.tril(torch.ones(5, 5, dtype=torch.bool)) & real[:, None, None, :]
    expected = module.o_proj(F.scaled_dot_product_attention(q, k, v, attn_mask=mask).transpose(1, 2).reshape(3, 5, 8))
    return module.to(dtype), x.to(dtype), real, expected


DTYPES = [(torch.float64, 1e-12), (torch.float32, 1e-5), (torch.float16, 2e-2), (torch.bfloat16, 1e-1)]


@pytest.mark.parametrize("dtype, tolerance", DTYPES)
def test_the_torch_module_is_torchs_in_every_dtype(dtype, tolerance):
    module, x, real, expected = torch_module_case(dtype, 0)
    x.requires_grad_(True)
    out = module(x, key_padding_mask=real)
    assert out.dtype == dtype
    blind = ~real  # with left padding, the padding queries are the blind ones
    assert not out[blind].any(), "a query that may see no key gets a zero output"
    torch.testing.assert_close(out.double(), expected, atol=tolerance, rtol=tolerance)
    out.backward(torch.ones_like(out))
    for name, gradient in [("x", x.grad), *((n, p.grad) for n, p in module.named_parameters())]:
        assert torch.isfinite(gradient).all(), f"the gradient of {name} in {dtype} holds nan"
    assert not x.grad[blind].any(), "nothing a padding token holds reaches the output"


def test_the_torch_modules_gradients_are_torchs():
    module, x, real, _ = torch_module_case(torch.float64, 1)
    reference = MultiHeadSelfAttention(8, 2).double()
    reference.load_state_dict(module.state_dict())
    grad_output = torch.randn(3, 5, 8, dtype=torch.float64)
    x_mine, x_torch = x.clone().requires_grad_(True), x.clone().requires_grad_(True)
    module(x_mine, key_padding_mask=real).backward(grad_output)
    projections = (reference.q_proj, reference.k_proj, reference.v_proj)
    q, k, v = (proj(x_torch).view(3, 5, 2, 4).transpose(1, 2) for proj in projections)
    mask = torch.tril(torch.ones(5, 5, dtype=torch.bool)) & real[:, None, None, :]
    heads = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    reference.o_proj(heads.transpose(1, 2).reshape(3, 5, 8)).backward(grad_output)
    torch.testing.assert_close(x_mine.grad, x_torch.grad)
    for (name, mine), theirs in zip(module.named_parameters(), reference.parameters()):
        torch.testing.assert_close(mine.grad, theirs.grad, msg=name)


# Code that breaks the rule loses exactly the tests of the rule, and is told why.
BLIND_FIXTURES = {
    "attention_backward_nan_for_blind_rows": (1, "nan comes from the softmax of a row whose every score is -inf"),
    "attention_backward_fill_minus_1e9": (1, "a finite fill such as -1e9"),
    "mha_additive_minus_1e9": (1, "what the row gives with no mask at all"),
    "online_blind_rows_nan": (1, "nan comes from the softmax"),
    "gqa_nan_for_blind_rows": (1, "nan comes from the softmax"),
    "kv_cache_fill_minus_1e9": (1, "a finite fill such as -1e9"),
    "flash_blind_rows_nan": (1, "nan comes from the softmax"),
    "flash_backward_nan_for_blind_rows": (1, "nan comes from the softmax"),
}
TORCH_FIXTURES = {
    "torch_blind_rows_nan": (2, "nan comes from the softmax"),
    "torch_mask_fill_finfo_min": (2, "a finite fill such as -1e9 or finfo(dtype).min"),
    "torch_additive_mask_nan_to_num": (1, "A nan the forward pass hides (torch.nan_to_num)"),
}


def expect_only_the_rule_lost(report, fixture, lost, reason):
    failing = [t for t in report.tests if t.outcome is not Outcome.PASSED]
    assert len(failing) == lost and all("may see no key" in t.name for t in failing), [t.name for t in failing]
    told = all(reason in t.feedback and "docs/contract.md" in t.feedback for t in failing)
    assert told, [t.feedback[:600] for t in failing]
    assert report.max_score - report.score == sum(t.max_score for t in failing)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BLIND_FIXTURES))
def test_breaking_the_rule_loses_those_points_alone_and_in_a_class(grade_both_paths, name):
    fixture = read_fixture(SUBMISSIONS / "buggy" / f"{name}.py")
    for report in grade_both_paths(fixture):
        expect_only_the_rule_lost(report, fixture, *BLIND_FIXTURES[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TORCH_FIXTURES))
def test_breaking_the_rule_in_torch_loses_those_points(grade_fixture, name):
    fixture = read_fixture(SUBMISSIONS / "buggy" / f"{name}.py")
    expect_only_the_rule_lost(grade_fixture(fixture), fixture, *TORCH_FIXTURES[name])
