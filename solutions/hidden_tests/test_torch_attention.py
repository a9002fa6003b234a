"""Hidden tests for torch_attention.py (the PyTorch track).

The student's module never leaves its worker: each call sends a request (see
``attnlab.sandbox.inside.module_harness``) with weights chosen here, and gets back
arrays. Expected values come from PyTorch's own building blocks in this
process (``F.scaled_dot_product_attention``, ``nn.MultiheadAttention``), the
reference's ``rope``, and the reference module.
"""

import math
from dataclasses import dataclass

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.autograd.gradcheck import GradcheckError
from attention_inputs import SEED, lengths_for, normal
from blind_queries import NAN, RULE, blind_queries, expect_blind_rows, left_padding_for
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_close, expect_finite, expect_shape
from attnlab.outcomes import StudentError
from attnlab.sandbox.inside.module_harness import drive

# Tensors here are tiny: one thread is faster than a pool, and parallel grading processes do not
# fight over the cores (workers run one thread too).
torch.set_num_threads(1)

NAMES = ("q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight")
MODULE = "MultiHeadSelfAttention"
THETAS = st.sampled_from([10000.0, 100.0, 10.0])


@dataclass
class Case:
    x: np.ndarray
    """(B, T, d_model)"""
    n_heads: int
    weights: dict
    """{state-dict name: (d_model, d_model)}, as nn.Linear stores them: (out, in)."""
    lengths: np.ndarray
    """(B,) real tokens per sequence (right padding)."""

    @property
    def shape(self):
        return self.x.shape

    def real(self) -> np.ndarray:
        """(B, T) bool, True at real tokens."""
        return np.arange(self.shape[1])[None, :] < self.lengths[:, None]


@st.composite
def cases(draw, max_t=6, min_t=1):
    batch, t, heads, d_head, seed = draw(st.integers(1, 3)), draw(st.integers(min_t, max_t)), draw(st.integers(1, 3)), draw(st.sampled_from([2, 4])), draw(SEED)
    d_model = heads * d_head
    weights = {name: normal(seed + 1 + i, (d_model, d_model), scale=1 / math.sqrt(d_model)) for i, name in enumerate(NAMES)}
    return Case(normal(seed, (batch, t, d_model)), heads, weights, lengths_for(np.random.default_rng(seed), batch, t))


def request(case, *, causal=True, rope_theta=None, x=None, padded=False, dtype="float64", grad_output=None, device="cpu", weights=True):
    return {
        "init": {"d_model": case.shape[2], "n_heads": case.n_heads, "causal": causal, "rope_theta": rope_theta},
        "weights": case.weights if weights else None,
        "x": case.x if x is None else x,
        "key_padding_mask": case.real() if padded else None,
        "dtype": dtype,
        "device": device,
        "grad_output": grad_output,
    }


def run(student, req, what="the module's output"):
    """The student's answer to ``req``, its output checked to be a (B, T, d_model) float array."""
    answer = student.MultiHeadSelfAttention(req)
    if not isinstance(answer, dict) or "output" not in answer and req["device"] != "meta":
        raise Mismatch(f"{what}: the module gave no output")
    if req["device"] != "meta":
        expect_shape(expect_array(answer["output"], what), np.shape(req["x"]), what, "(B, T, d_model)")
    return answer


def output_dtype(answer) -> str | None:
    """The dtype of the module's output, read off the array the grader received, never off what
    the worker says: bfloat16 travels as float32 (numpy has none), every value a bfloat16 then."""
    out = answer.get("output") if isinstance(answer, dict) else None
    if not isinstance(out, np.ndarray):
        return None
    if out.dtype == np.float32 and np.any(out) and not np.any(out.view(np.uint32) & 0xFFFF):
        return "bfloat16"
    return str(out.dtype)


def only_real_queries(out, case, padded):
    """Outputs at padded query positions are not graded (docs/contract.md): zero them on both sides."""
    return np.where(case.real()[..., None], out, 0.0) if padded else out


def _rope_with_table_in(y, theta, dtype):
    """RoPE on y (B, h, T, d) in float64, its angle table computed in ``dtype`` (the half-precision
    mistake, for evidence of it)."""
    t, d = y.shape[-2], y.shape[-1]
    frequencies = theta ** (-torch.arange(0, d, 2, dtype=dtype) / d)
    angles = torch.arange(t, dtype=dtype)[:, None] * frequencies[None, :]
    cos, sin = torch.cos(angles).double(), torch.sin(angles).double()
    even, odd = y[..., 0::2], y[..., 1::2]
    return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)


def expected_output(case, reference, *, causal, padded=False, rope_theta=None, x=None, keys=None, table_dtype=None):
    """(B, T, d_model): projections as nn.Linear computes them (x @ W.T), heads as a batch axis,
    RoPE from the reference's ``rope``, then PyTorch's own scaled_dot_product_attention.
    ``keys`` (B, T) bool, True at the keys that may be seen, overrides ``padded``. With
    ``table_dtype``, RoPE's angle table is computed in that dtype (what a half-precision table gives)."""
    x = case.x if x is None else x
    batch, t, d_model = x.shape
    d_head = d_model // case.n_heads
    w = {name: torch.from_numpy(case.weights[name]) for name in NAMES}
    xt = torch.from_numpy(x)

    def heads(y):  # (B, T, d_model) -> (B, h, T, d_head)
        return y.view(batch, t, case.n_heads, d_head).transpose(1, 2)

    q, k, v = heads(xt @ w["q_proj.weight"].T), heads(xt @ w["k_proj.weight"].T), heads(xt @ w["v_proj.weight"].T)
    if rope_theta is not None and table_dtype is not None:
        q, k = _rope_with_table_in(q, rope_theta, table_dtype), _rope_with_table_in(k, rope_theta, table_dtype)
    elif rope_theta is not None:
        positions = np.arange(t)
        q = torch.from_numpy(reference.rope(q.numpy(), positions, rope_theta))
        k = torch.from_numpy(reference.rope(k.numpy(), positions, rope_theta))
    allowed = torch.ones(t, t, dtype=torch.bool)
    if causal:
        allowed = torch.tril(allowed)
    if padded or keys is not None:
        allowed = allowed & torch.from_numpy(case.real() if keys is None else keys)[:, None, None, :]
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return (out.transpose(1, 2).reshape(batch, t, d_model) @ w["o_proj.weight"].T).numpy()


@given(cases())
def test_state_dict_names(student, reference, case):
    """MultiHeadSelfAttention: its weights are q_proj, k_proj, v_proj and o_proj, each (d_model, d_model): loaded by those names they give the expected output"""
    answer = run(student, request(case))
    try:
        expect_close(answer["output"], expected_output(case, reference, causal=True), "the output with the grader's weights loaded by name", case.x, passport="(B, T, d_model)")
    except Mismatch as wrong:
        # What the worker says of its state dict only explains a wrong value: it never earns one.
        extra = sorted(set(answer.get("state") or {}) - set(NAMES)) if isinstance(answer.get("state"), dict) else []
        if extra:
            raise Mismatch(f"{wrong}\nYour module says its state dict also holds {extra}: nn.Linear(..., bias=False) has no bias, and a mask belongs in forward, not in a buffer") from None
        raise


@given(cases(), st.sampled_from(["float64", "float32"]))
def test_output_shape_and_dtype(student, reference, case, dtype):
    """MultiHeadSelfAttention: (B, T, d_model) in gives (B, T, d_model) out, in x's dtype (float64 stays float64)"""
    answer = run(student, request(case, dtype=dtype, x=case.x.astype(dtype)))
    if output_dtype(answer) != dtype:
        raise Mismatch(f"after module.to({dtype}) and a {dtype} input, the output is {output_dtype(answer)}: a table or mask made in another dtype promoted it")


@given(cases(), st.booleans(), st.booleans())
def test_matches_scaled_dot_product_attention(student, reference, case, causal, padded):
    """MultiHeadSelfAttention: equals F.scaled_dot_product_attention on the same projections, heads and masks"""
    got = run(student, request(case, causal=causal, padded=padded))["output"]
    expected = expected_output(case, reference, causal=causal, padded=padded)
    what = f"the output ({'causal' if causal else 'not causal'}{', with padding' if padded else ''})"
    expect_close(only_real_queries(got, case, padded), only_real_queries(expected, case, padded), what, case.x, passport="(B, T, d_model)")


@given(cases(), st.booleans(), st.booleans())
def test_matches_nn_multihead_attention(student, reference, case, causal, padded):
    """MultiHeadSelfAttention: equals torch.nn.MultiheadAttention (bias=False) with the same weights"""
    batch, t, d_model = case.shape
    mha = torch.nn.MultiheadAttention(d_model, case.n_heads, bias=False, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(np.concatenate([case.weights[n] for n in NAMES[:3]])))
        mha.out_proj.weight.copy_(torch.from_numpy(case.weights["o_proj.weight"]))
    x = torch.from_numpy(case.x)
    # nn.MultiheadAttention's boolean masks say True where attention is NOT allowed: the opposite of ours.
    blocked = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1) if causal else None
    pads = torch.from_numpy(~case.real()) if padded else None
    expected, _ = mha(x, x, x, attn_mask=blocked, key_padding_mask=pads, need_weights=False)
    got = run(student, request(case, causal=causal, padded=padded))["output"]
    expect_close(only_real_queries(got, case, padded), only_real_queries(expected.detach().numpy(), case, padded), "the output (against nn.MultiheadAttention)", case.x, passport="(B, T, d_model)")


@given(cases(min_t=2), st.integers(0, 2**16), st.booleans())
def test_no_future_leakage(student, reference, case, seed, rope):
    """MultiHeadSelfAttention: with causal=True, changing tokens after position t leaves outputs up to t unchanged"""
    t = case.shape[1]
    cut = int(np.random.default_rng(seed).integers(0, t - 1))
    changed = case.x.copy()
    changed[:, cut + 1:] = normal(seed, changed[:, cut + 1:].shape, scale=10.0)
    theta = 10000.0 if rope else None
    before = run(student, request(case, rope_theta=theta))["output"]
    after = run(student, request(case, rope_theta=theta, x=changed))["output"]
    expect_close(after[:, : cut + 1], before[:, : cut + 1], f"outputs at positions 0..{cut} after changing the tokens after position {cut} (the future leaks in)", case.x)


@given(cases(min_t=2), st.integers(0, 2**16), st.booleans())
def test_padding_is_ignored(student, reference, case, seed, causal):
    """MultiHeadSelfAttention: padded keys get no weight: what sits at padded positions never changes real outputs"""
    real = case.real()
    garbage = np.where(real[..., None], case.x, normal(seed, case.shape, scale=100.0))
    before = run(student, request(case, causal=causal, padded=True))["output"]
    after = run(student, request(case, causal=causal, padded=True, x=garbage))["output"]
    expect_close(
        np.where(real[..., None], after, 0.0), np.where(real[..., None], before, 0.0),
        "outputs at real tokens after filling the padded positions with large values (padded keys must get weight 0)", case.x,
    )


@given(cases(), THETAS, st.booleans())
def test_rope_values(student, reference, case, theta, causal):
    """MultiHeadSelfAttention: with rope_theta, queries and keys of each head are rotated in adjacent pairs by position"""
    got = run(student, request(case, causal=causal, rope_theta=theta))["output"]
    expected = expected_output(case, reference, causal=causal, rope_theta=theta)
    expect_close(got, expected, f"the output with rope_theta={theta:g}", case.x, passport="(B, T, d_model)")


def weights_reader(t, d_content, seed):
    """A one-head module and input whose output *is* the attention weights.

    Token j is [c; e_j]: the same content c everywhere, then a one-hot slot. Queries and keys read
    c only; values read the slot; o_proj is the identity. So out[i] = [0; weights[i, :]].
    Shapes: -> x (1, t, d_content + t) and weights {name: (d_model, d_model)}.
    """
    d_model = d_content + t
    rng = np.random.default_rng(seed)
    x = np.concatenate([np.broadcast_to(rng.standard_normal(d_content), (t, d_content)), np.eye(t)], axis=1)[None]
    w_q, w_k = np.zeros((d_model, d_model)), np.zeros((d_model, d_model))
    w_q[:, :d_content], w_k[:, :d_content] = rng.standard_normal((2, d_model, d_content))
    w_v = np.zeros((d_model, d_model))
    w_v[d_content:, d_content:] = np.eye(t)
    return x, dict(zip(NAMES, (w_q, w_k, w_v, np.eye(d_model))))


@given(SEED, THETAS, st.integers(3, 6))
def test_rope_scores_depend_on_relative_position(student, reference, seed, theta, t):
    """MultiHeadSelfAttention: with RoPE, identical tokens get scores that depend on i - j only"""
    d_content = 4 + t % 2  # RoPE needs an even d_head = d_content + t
    x, weights = weights_reader(t, d_content, seed)
    case = Case(x, 1, weights, np.array([t]))
    got = run(student, request(case, causal=False, rope_theta=theta))["output"]
    attention = np.clip(got[0, :, d_content:], 1e-300, None)  # (T, T): row i = query i's weights over the keys
    if np.allclose(attention, 1.0 / t, rtol=1e-6):
        raise Mismatch("with RoPE, identical tokens at different positions must get different scores, but every weight is 1/T: are queries and keys rotated?")
    # Scores are known up to a per-row constant: log w[i, j] - log w[i, j+1] = s[i, j] - s[i, j+1].
    steps = np.log(attention[:, :-1]) - np.log(attention[:, 1:])  # (T, T-1)
    for i in range(t - 1):
        for j in range(t - 2):
            if not np.isclose(steps[i, j], steps[i + 1, j + 1], rtol=1e-6, atol=1e-8):
                raise Mismatch(
                    f"with RoPE, scores should depend on i - j only: the score step from key {j} to key {j + 1} seen by query {i} "
                    f"({steps[i, j]:.6g}) differs from key {j + 1} to {j + 2} seen by query {i + 1} ({steps[i + 1, j + 1]:.6g}); "
                    "rotate queries and keys with the same positions and frequencies"
                )


@given(cases(), THETAS)
def test_rope_leaves_values_alone(student, reference, case, theta):
    """MultiHeadSelfAttention: RoPE rotates queries and keys only, never values"""
    d_model = case.shape[2]
    weights = {**case.weights, "q_proj.weight": np.zeros((d_model, d_model)), "k_proj.weight": np.zeros((d_model, d_model))}
    flat = Case(case.x, case.n_heads, weights, case.lengths)
    # All scores are 0, so causal weights are uniform: out[t] = o_proj(mean of v[0..t]).
    got = run(student, request(flat, causal=True, rope_theta=theta))["output"]
    v = case.x @ case.weights["v_proj.weight"].T
    means = np.cumsum(v, axis=1) / np.arange(1, case.shape[1] + 1)[None, :, None]
    expect_close(got, means @ case.weights["o_proj.weight"].T, "the output when every score is 0 (values must not be rotated)", case.x, passport="(B, T, d_model)")


@given(cases(), st.booleans(), st.booleans(), st.integers(0, 2**16))
def test_gradients_match_reference(student, reference, case, rope, padded, seed):
    """MultiHeadSelfAttention: gradients of x and of every weight equal the reference's"""
    grad_output = normal(seed, case.shape)
    if padded:
        grad_output = only_real_queries(grad_output, case, True)  # padded outputs are not graded
    req = request(case, rope_theta=10000.0 if rope else None, padded=padded, grad_output=grad_output)
    got = run(student, req)
    expected = drive(reference.MultiHeadSelfAttention, req)
    expect_close(got.get("grad_x"), expected["grad_x"], "the gradient of the input x", case.x, passport="(B, T, d_model)")
    got_weights = got.get("grad_weights") or {}
    for name in NAMES:
        if name not in got_weights:
            raise Mismatch(f"the module has no parameter {name}, so it has no gradient")
        expect_close(got_weights[name], expected["grad_weights"][name], f"the gradient of {name}", case.x, passport="(d_model, d_model)")


@given(cases(), st.booleans(), st.booleans(), st.booleans())
def test_stable_for_large_scores(student, reference, case, causal, padded, rope):
    """MultiHeadSelfAttention: no nan or inf and the right output when scores reach ±1e4, with every combination of causal, padding and RoPE"""
    scaled = {name: case.weights[name] * (100.0 if name in ("q_proj.weight", "k_proj.weight") else 1.0) for name in NAMES}
    big = Case(case.x, case.n_heads, scaled, case.lengths)
    theta = 100.0 if rope else None
    got = run(student, request(big, causal=causal, padded=padded, rope_theta=theta))["output"]
    what = f"the output with scores of about ±1e4 ({'causal' if causal else 'not causal'}{', with padding' if padded else ''}{', with RoPE' if rope else ''})"
    expect_finite(only_real_queries(got, big, padded), what)
    expected = expected_output(big, reference, causal=causal, padded=padded, rope_theta=theta)
    expect_close(only_real_queries(got, big, padded), only_real_queries(expected, big, padded), what, case.x, passport="(B, T, d_model)")


class _StudentModule(torch.autograd.Function):
    """The student's module as an autograd function of x, for gradcheck: forward and the
    vector-Jacobian product both run in the worker; gradcheck's finite differences run here."""

    @staticmethod
    def forward(ctx, x, call):
        ctx.call = call
        ctx.save_for_backward(x)
        return torch.from_numpy(call(x.detach().numpy(), None)["output"])

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        answer = ctx.call(x.detach().numpy(), grad_output.detach().numpy())
        return torch.from_numpy(np.asarray(answer["grad_x"])), None


@pytest.mark.parametrize("seed, rope", [(1, False), (2, True)])
def test_gradcheck(student, reference, seed, rope):
    """MultiHeadSelfAttention: torch.autograd.gradcheck passes in float64 on a tiny instance"""
    # Fixed cases, not drawn: each check costs about 40 calls (finite differences, then one
    # vector-Jacobian product per output entry).
    case = Case(normal(seed, (1, 3, 4)), 2, {n: normal(seed + i, (4, 4)) for i, n in enumerate(NAMES)}, np.array([3]))

    def call(x, grad_output):
        return run(student, request(case, rope_theta=10.0 if rope else None, x=x, grad_output=grad_output))

    x = torch.from_numpy(case.x.copy()).requires_grad_(True)
    try:
        torch.autograd.gradcheck(lambda x: _StudentModule.apply(x, call), (x,), eps=1e-6, atol=1e-5, rtol=1e-4)
    except GradcheckError as error:
        first = str(error).strip().splitlines()[0]
        raise Mismatch(f"gradcheck failed: the gradient autograd computes through your forward disagrees with finite differences ({first})") from None


def test_any_sequence_length(student, reference):
    """MultiHeadSelfAttention: works for T = 2048, longer than any size fixed in advance"""
    case = Case(normal(7, (1, 2048, 4)), 2, {n: normal(8 + i, (4, 4), scale=0.5) for i, n in enumerate(NAMES)}, np.array([2048]))
    got = run(student, request(case, rope_theta=10000.0))["output"]
    expect_close(got, expected_output(case, reference, causal=True, rope_theta=10000.0), "the output for T = 2048", case.x, passport="(B, T, d_model)")


def _on_meta(student, case, rope_theta):
    req = request(case, padded=True, rope_theta=rope_theta, device="meta", weights=False)
    req["x"] = list(case.shape)
    try:
        answer = student.MultiHeadSelfAttention(req)
    except StudentError as error:
        raise Mismatch(
            "on the meta device (module.to('meta'), x on 'meta') forward failed; every tensor forward makes "
            f"(mask, positions, angles) must be made on x.device.\n{error.message}"
        ) from None
    if (answer.get("shape"), answer.get("device")) != (list(case.shape), "meta"):
        raise Mismatch(f"on the meta device the output should be a (B, T, d_model) = {tuple(case.shape)} tensor on 'meta', got shape {answer.get('shape')} on {answer.get('device')!r}")


# Largest error allowed, as a fraction of the output's largest magnitude: on inputs like these a
# float32 angle table cast to the dtype stays several times under it, and a table computed in the
# dtype itself goes several times over it.
HALF_PRECISION_TOLERANCE = {"float16": 0.02, "bfloat16": 0.2}


@pytest.mark.parametrize("dtype", sorted(HALF_PRECISION_TOLERANCE))
def test_rope_in_half_precision(student, reference, dtype):
    """MultiHeadSelfAttention: with RoPE at T = 1024 in float16 and bfloat16, the output matches float64 to the dtype's precision"""
    t, d_model, theta, graded = 1024, 16, 10000.0, 64
    rng = np.random.default_rng(1024)
    scales = dict(zip(NAMES, (2.0, 2.0, 1.0, 1.0)))  # sharper weights make a wrong angle show
    case = Case(rng.standard_normal((1, t, d_model)), 1, {name: rng.standard_normal((d_model, d_model)) * scales[name] / math.sqrt(d_model) for name in NAMES}, np.array([t]))
    real = np.zeros((1, t), dtype=bool)
    real[:, -graded:] = True  # only the last positions are keys (and graded queries): the far end of the table
    req = request(case, causal=False, rope_theta=theta, dtype=dtype)
    req["key_padding_mask"] = real
    answer = run(student, req)
    if output_dtype(answer) != dtype:
        raise Mismatch(f"after module.to({dtype}) and a {dtype} input, the output is {output_dtype(answer)}")
    expected = expected_output(case, reference, causal=False, rope_theta=theta, keys=real)[:, -graded:]
    got = np.asarray(answer["output"], dtype=np.float64)[:, -graded:]
    error, allowed = float(np.max(np.abs(got - expected))), HALF_PRECISION_TOLERANCE[dtype] * float(np.max(np.abs(expected)))
    if not error <= allowed:
        raise Mismatch(f"in {dtype} at positions {t - graded} to {t - 1} the output is off by up to {error:.3g} from float64 (allowed {allowed:.3g}): {_why_half_precision_fails(student, reference, case, req, got, expected, allowed, dtype)}")


def _why_half_precision_fails(student, reference, case, req, got, expected, allowed, dtype) -> str:
    """What the evidence says about a half-precision answer that is off: the same input in float64
    (is precision the cause at all?), then the answer a half-precision angle table gives. A cause is
    named only where the student's own answers show it."""
    graded = got.shape[1]
    wide = run(student, {**req, "dtype": "float64"}, "the output in float64")["output"]
    wide_error = float(np.max(np.abs(np.asarray(wide, dtype=np.float64)[:, -graded:] - expected)))
    if not wide_error <= 1e-6 * max(1.0, float(np.max(np.abs(expected)))):
        return f"the same input in float64 is off by {wide_error:.3g} too, so the precision is not the cause: the tests in float64 say what is wrong"
    table = expected_output(case, reference, causal=False, rope_theta=req["init"]["rope_theta"], keys=req["key_padding_mask"], table_dtype=getattr(torch, dtype))[:, -graded:]
    if float(np.max(np.abs(got - table))) <= allowed:
        return f"it matches an angle table computed in {dtype}, which is wrong at large positions; build the table in float32 and cast the cos and sin to x.dtype"
    return f"the same input in float64 is right, so a step computed in {dtype} loses too much precision at these positions (positions, angles or scores made in {dtype}?)"


def test_device_agnostic(student, reference):
    """MultiHeadSelfAttention: runs on the meta device: the causal and padding masks are made on x.device (check-only, not scored: a run on meta returns no value the grader could check; attnlab check runs it on your machine)"""
    _on_meta(student, Case(np.zeros((2, 7, 8)), 2, {}, np.array([7, 4])), None)


def test_device_agnostic_with_rope(student, reference):
    """MultiHeadSelfAttention: runs on the meta device with RoPE: the angle table is made on x.device (check-only, not scored: a run on meta returns no value the grader could check; attnlab check runs it on your machine)"""
    _on_meta(student, Case(np.zeros((2, 7, 8)), 2, {}, np.array([7, 4])), 10000.0)


# ---------------------------------------------------------------- a query that may see no key

BLIND_DTYPES = ["float64", "float32", "float16", "bfloat16"]
LEFT_PADDED = "with left padding under the causal mask"
HIDDEN_NAN = (
    "A nan the forward pass hides (torch.nan_to_num) still flows backward where the scores were masked by an "
    "addition; mask with masked_fill or torch.where"
)


def left_padded_request(case, seed, **options):
    """A request for ``case`` with the causal mask and a left padding mask (B, T): the first queries
    of sequence 0 may see no key. -> (request, real (B, T), blind (B, T))."""
    real = left_padding_for(np.random.default_rng(seed), case.shape[0], case.shape[1])
    req = request(case, causal=True, **options)
    req["key_padding_mask"] = real
    return req, real, blind_queries(real)


def blind_candidates(case, reference):
    """(uniform, unmasked) outputs (B, T, d_model): what a finite fill (-1e9, finfo.min) gives a
    query that may see no key (the mean of the values, mixed by o_proj), and what a fill added to
    the scores gives it (its row with no mask at all)."""
    values = case.x @ case.weights["v_proj.weight"].T
    uniform = np.broadcast_to(values.mean(axis=1, keepdims=True) @ case.weights["o_proj.weight"].T, case.shape)
    return uniform, expected_output(case, reference, causal=False)


@given(cases(min_t=2), st.sampled_from(BLIND_DTYPES), SEED)
def test_blind_queries(student, reference, case, dtype, seed):
    """MultiHeadSelfAttention: with left padding under the causal mask, a query that may see no key gets a zero output in float64, float32, float16 and bfloat16; the other rows are right"""
    req, real, blind = left_padded_request(case, seed, dtype=dtype)
    answer = run(student, req)
    what = f"the output in {dtype} {LEFT_PADDED}"
    if answer.get("dtype") != dtype:
        raise Mismatch(f"after module.to({dtype}) and a {dtype} input, the output is {answer.get('dtype')}")
    got = np.asarray(answer["output"], dtype=np.float64)
    uniform, unmasked = blind_candidates(case, reference)
    expect_blind_rows(got, blind, what, case.x, uniform=uniform, unmasked=unmasked)
    # The course's rule, whatever torch's own F.scaled_dot_product_attention gives a blind row.
    expected = np.where(blind[..., None], 0.0, expected_output(case, reference, causal=True, keys=real))
    if dtype in HALF_PRECISION_TOLERANCE:
        error = float(np.max(np.abs(got - expected)))
        allowed = HALF_PRECISION_TOLERANCE[dtype] * float(np.max(np.abs(expected)))
        if not error <= allowed:
            raise Mismatch(f"{what} is off by up to {error:.3g} from float64 where queries see a key (allowed {allowed:.3g})")
    else:
        expect_close(got, expected, what, case.x.astype(dtype), passport="(B, T, d_model)")


@given(cases(min_t=2), SEED, st.integers(0, 2**16))
def test_blind_queries_gradients(student, reference, case, seed, grad_seed):
    """MultiHeadSelfAttention: with left padding under the causal mask, a query that may see no key gets no gradient: the gradients of x and of every weight are finite and equal the reference's"""
    req, _, blind = left_padded_request(case, seed, grad_output=normal(grad_seed, case.shape))
    got = run(student, req)
    expected = drive(reference.MultiHeadSelfAttention, req)
    uniform, unmasked = blind_candidates(case, reference)
    expect_blind_rows(got["output"], blind, f"the output {LEFT_PADDED}", case.x, uniform=uniform, unmasked=unmasked)
    # A padding token is a blind query and a hidden key: nothing it holds reaches the output.
    grad_x = expect_array(got.get("grad_x"), "the gradient of x")
    expect_shape(grad_x, case.shape, "the gradient of x", "(B, T, d_model)")
    axes = ("sequence", "token")
    expect_blind_rows(grad_x, blind, f"the gradient of x {LEFT_PADDED}", case.x, axes=axes, also=HIDDEN_NAN)
    gradients = {"x": grad_x, **(got.get("grad_weights") or {})}
    for name in NAMES:
        if name not in gradients:
            raise Mismatch(f"the module has no parameter {name}, so it has no gradient")
        if not np.isfinite(expect_array(gradients[name], f"the gradient of {name}")).all():
            raise Mismatch(f"the gradient of {name} {LEFT_PADDED} holds nan or inf: {RULE}. {NAN}. {HIDDEN_NAN}")
    expect_close(grad_x, expected["grad_x"], f"the gradient of x {LEFT_PADDED}", case.x, passport="(B, T, d_model)")
    for name in NAMES:
        what = f"the gradient of {name} {LEFT_PADDED}"
        expect_close(gradients[name], expected["grad_weights"][name], what, case.x, passport="(d_model, d_model)")
