"""Public tests for torch_attention.py (the PyTorch track).

Run them with ``attnlab check`` or plain ``pytest``. They use every option the hidden tests grade:
causal or not, a padding mask, left padding (a query that may see no key), RoPE, scores near ±1e4,
float64, float32, float16 and bfloat16, gradients, a long T, and the device rule (the meta device,
and a GPU where your machine has one). The hidden tests use other sizes and values.
"""

import pytest

torch = pytest.importorskip("torch", reason="the PyTorch track needs torch: pip install torch==2.13.0")

from torch_attention import MultiHeadSelfAttention  # noqa: E402 - after the skip above

from attnlab.check.probe_book import probe_tests  # noqa: E402

NAMES = ["q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight"]


def test_state_dict():
    """MultiHeadSelfAttention: its state dict holds q_proj, k_proj, v_proj and o_proj weights, (8, 8) each"""
    module = MultiHeadSelfAttention(8, 2)
    state = module.state_dict()
    assert sorted(state) == sorted(NAMES), f"the state dict has {sorted(state)}, expected exactly {NAMES} (nn.Linear(..., bias=False))"
    assert all(tuple(w.shape) == (8, 8) for w in state.values()), "each projection's weight should be (d_model, d_model) = (8, 8)"


def test_shape_and_dtype():
    """MultiHeadSelfAttention: (2, 5, 8) float64 in gives (2, 5, 8) float64 out"""
    module = MultiHeadSelfAttention(8, 2, rope_theta=10000.0).to(torch.float64)
    out = module(torch.randn(2, 5, 8, dtype=torch.float64))
    assert tuple(out.shape) == (2, 5, 8), f"the output has shape {tuple(out.shape)}, expected (B, T, d_model) = (2, 5, 8)"
    assert out.dtype == torch.float64, f"a float64 input gave a {out.dtype} output"


def test_one_head_equals_the_formula():
    """MultiHeadSelfAttention: one head, causal, equals softmax(q kᵀ / √d + mask) v, projected"""
    torch.manual_seed(0)
    module = MultiHeadSelfAttention(4, 1).to(torch.float64)
    x = torch.randn(1, 3, 4, dtype=torch.float64)
    q, k, v = module.q_proj(x), module.k_proj(x), module.v_proj(x)  # nn.Linear: x @ W.T
    scores = (q @ k.transpose(-1, -2) / 2.0).masked_fill(~torch.ones(3, 3, dtype=torch.bool).tril(), float("-inf"))
    expected = module.o_proj(torch.softmax(scores, dim=-1) @ v)
    torch.testing.assert_close(module(x), expected, msg="the output differs from o_proj(softmax(q kᵀ/√d_head, causal) v)")


def test_no_future_leakage():
    """MultiHeadSelfAttention: with causal=True, changing the last token changes no earlier output"""
    module = MultiHeadSelfAttention(8, 2).to(torch.float64)
    x = torch.randn(1, 4, 8, dtype=torch.float64)
    changed = x.clone()
    changed[:, -1] += 10.0
    torch.testing.assert_close(module(changed)[:, :-1], module(x)[:, :-1], msg="changing token 3 changed the outputs at positions 0..2: the future leaks in")


def test_padding_is_ignored():
    """MultiHeadSelfAttention: what sits at a padded position does not change the real tokens' outputs"""
    module = MultiHeadSelfAttention(8, 2, causal=False).to(torch.float64)
    x = torch.randn(1, 4, 8, dtype=torch.float64)
    real = torch.tensor([[True, True, True, False]])
    changed = x.clone()
    changed[:, 3] = 100.0
    torch.testing.assert_close(module(changed, real)[:, :3], module(x, real)[:, :3], msg="a padded key got weight: the real outputs changed")


def test_meta_device():
    """MultiHeadSelfAttention: runs on the meta device (masks and tables made on x.device): the device rule, which the grader does not score (docs/students.md)"""
    module = MultiHeadSelfAttention(8, 2, rope_theta=10000.0).to("meta")
    out = module(torch.empty(2, 5, 8, device="meta"), torch.ones(2, 5, dtype=torch.bool, device="meta"))
    assert out.device.type == "meta" and tuple(out.shape) == (2, 5, 8), f"expected a (2, 5, 8) output on 'meta', got {tuple(out.shape)} on {out.device}"


def by_hand(module, n_heads, x, key_padding_mask=None, causal=True, rope_theta=None, gradients=False):
    """The module's answer written out with its own projections and F.scaled_dot_product_attention,
    in float64: the oracle (a query that may see no key gets zeros, as torch gives it). With
    ``gradients``, autograd follows x and the weights through it."""
    n_batch, length, width = x.shape
    h = n_heads
    w = {name: getattr(module, name).weight.double() for name in ("q_proj", "k_proj", "v_proj", "o_proj")}
    xd = x.double()
    if not gradients:
        w, xd = {name: value.detach() for name, value in w.items()}, xd.detach()

    def heads(y):
        return y.reshape(n_batch, length, h, width // h).permute(0, 2, 1, 3)

    q, k, v = heads(xd @ w["q_proj"].T), heads(xd @ w["k_proj"].T), heads(xd @ w["v_proj"].T)
    if rope_theta is not None:
        d = width // h
        angles = torch.arange(length, dtype=torch.float64)[:, None] * rope_theta ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)[None, :]
        turn = torch.polar(torch.ones_like(angles), angles)  # e^(i angle), one per adjacent pair

        def rotate(y):
            # Each adjacent pair (y[2i], y[2i+1]) as the complex number y[2i] + i y[2i+1], turned.
            pairs = torch.view_as_complex(y.reshape(*y.shape[:-1], d // 2, 2).contiguous())
            return torch.view_as_real(pairs * turn).reshape(y.shape)

        q, k = rotate(q), rotate(k)
    position = torch.arange(length)
    allowed = position[None, :] <= position[:, None] if causal else torch.ones(length, length, dtype=torch.bool)
    allowed = allowed if key_padding_mask is None else allowed & key_padding_mask[:, None, None, :].cpu()
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
    return out.permute(0, 2, 1, 3).reshape(n_batch, length, width) @ w["o_proj"].T


def made(d_model, n_heads, **options):
    """A module with weights drawn from a seed of its own."""
    torch.manual_seed(d_model * 10 + n_heads)
    return MultiHeadSelfAttention(d_model, n_heads, **options)


LEFT_PADDED = torch.tensor([[False, False, True, True], [True, True, True, True]])  # sequence 0: two padding tokens first


def test_left_padding_in_every_dtype():
    """MultiHeadSelfAttention: left padding under the causal mask, in float64, float32, float16 and bfloat16: a query that may see no key gets a zero output (never nan, never a uniform row); the others equal F.scaled_dot_product_attention"""
    for dtype in ("float64", "float32", "float16", "bfloat16"):
        check_left_padding(dtype)


def check_left_padding(dtype):
    module = made(8, 2).to(getattr(torch, dtype))
    x = torch.randn(2, 4, 8, generator=torch.Generator().manual_seed(4)).to(getattr(torch, dtype))
    with torch.no_grad():
        out = module(x, LEFT_PADDED)
    assert out.dtype == getattr(torch, dtype), f"a {dtype} input gave a {out.dtype} output"
    assert torch.isfinite(out.float()).all(), f"the {dtype} output holds nan or inf: the padding queries of sequence 0 may see no key (fill with -inf, and zero such a row after the softmax)"
    assert (out[0, :2] == 0).all(), f"the outputs of sequence 0's padding queries (they may see no key) should be 0 in {dtype}, got {out[0, :2].float()}"
    tolerance = {"float64": 1e-10, "float32": 1e-5, "float16": 2e-2, "bfloat16": 1e-1}[dtype]
    module64 = made(8, 2).double()
    module64.load_state_dict({name: value.double() for name, value in module.state_dict().items()})
    expected = by_hand(module64, 2, x.double(), LEFT_PADDED)
    torch.testing.assert_close(out.double()[:, 2:], expected[:, 2:], rtol=tolerance, atol=tolerance, msg=f"the {dtype} outputs of the real tokens")


def test_left_padding_gradients():
    """MultiHeadSelfAttention: on a left-padded batch the gradients of x and of every weight are finite and equal the written-out module's (a query that may see no key has none)"""
    module = made(8, 2).double()
    x = torch.randn(2, 4, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(5), requires_grad=True)
    grad_output = torch.randn(2, 4, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(6))
    module(x, LEFT_PADDED).backward(grad_output)
    mine = [x.grad.clone()] + [getattr(module, n).weight.grad.clone() for n in ("q_proj", "k_proj", "v_proj", "o_proj")]
    assert all(torch.isfinite(g).all() for g in mine), "a gradient holds nan or inf: the softmax of a row with no visible key must not be nan, even where its output is zeroed"
    x2 = x.detach().clone().requires_grad_(True)
    weights = {n: getattr(module, n).weight.detach().clone().requires_grad_(True) for n in ("q_proj", "k_proj", "v_proj", "o_proj")}
    oracle = made(8, 2).double()
    for n, w in weights.items():
        getattr(oracle, n).weight = torch.nn.Parameter(w)
    by_hand(oracle, 2, x2, LEFT_PADDED, gradients=True).backward(grad_output)
    torch.testing.assert_close(mine[0], x2.grad, msg="the gradient of x")
    for n, g in zip(weights, mine[1:]):
        torch.testing.assert_close(g, getattr(oracle, n).weight.grad, msg=f"the gradient of {n}.weight")


def test_rope_not_causal_and_padded():
    """MultiHeadSelfAttention: with rope_theta = 100, not causal, with a padding mask: queries and keys (never values) rotated in adjacent pairs by position"""
    module = made(8, 2, causal=False, rope_theta=100.0).double()
    x = torch.randn(2, 4, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(7))
    real = torch.tensor([[True, True, True, False], [True, True, True, True]])
    with torch.no_grad():
        out = module(x, real)
    torch.testing.assert_close(out[:, :3], by_hand(module, 2, x, real, causal=False, rope_theta=100.0)[:, :3], msg="the output with RoPE (theta = 100), not causal, padded")


def test_scores_near_1e4():
    """MultiHeadSelfAttention: inputs that make scores near ±1e4 give a finite output equal to the written-out module's"""
    module = made(8, 2).double()
    x = 60.0 * torch.randn(1, 5, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(8))
    with torch.no_grad():
        out = module(x)
    assert torch.isfinite(out).all(), "the output holds nan or inf with scores near ±1e4"
    torch.testing.assert_close(out, by_hand(module, 2, x), msg="the output with scores near ±1e4")


def test_a_long_sequence_with_rope_in_half_precision():
    """MultiHeadSelfAttention: T = 600 (longer than a mask fixed at 512), RoPE in float16: within 2% of the float64 answer (angle tables in float32, then cast)"""
    module = made(16, 1, causal=False, rope_theta=10000.0)
    x = torch.randn(1, 600, 16, generator=torch.Generator().manual_seed(9))
    with torch.no_grad():
        half = module.to(torch.float16)(x.half()).double()
        full = module.double()(x.double())
    scale = full.abs().max()
    assert (half - full).abs().max() <= 0.02 * scale, f"in float16 the output is off by {float((half - full).abs().max()):.3g}, over 2% of its largest value {float(scale):.3g}"


def test_on_a_gpu():
    """MultiHeadSelfAttention: on a GPU, if this machine has one, with a padding mask and RoPE, the same output as on the CPU (without a GPU it checks nothing: the meta device test checks the rule)"""
    if not torch.cuda.is_available():
        return
    module = made(8, 2, rope_theta=10000.0).double()
    x = torch.randn(2, 4, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(10))
    with torch.no_grad():
        expected = module(x, LEFT_PADDED)
        got = module.to("cuda")(x.cuda(), LEFT_PADDED.cuda()).cpu()
    torch.testing.assert_close(got, expected, msg="the output on the GPU")


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "torch_attention")
