"""Public tests for torch_attention.py (the PyTorch track).

Run them with ``attnlab check`` or plain ``pytest``. The hidden tests check much more: equality
with ``nn.MultiheadAttention``, padding, RoPE's relative positions, gradients, any T.
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
    """MultiHeadSelfAttention: runs on the meta device (masks and tables made on x.device)"""
    module = MultiHeadSelfAttention(8, 2, rope_theta=10000.0).to("meta")
    out = module(torch.empty(2, 5, 8, device="meta"), torch.ones(2, 5, dtype=torch.bool, device="meta"))
    assert out.device.type == "meta" and tuple(out.shape) == (2, 5, 8), f"expected a (2, 5, 8) output on 'meta', got {tuple(out.shape)} on {out.device}"


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "torch_attention")
