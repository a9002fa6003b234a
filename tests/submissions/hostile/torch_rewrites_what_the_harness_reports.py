"""A module that builds its causal mask on the CPU, answers in float64 whatever dtype it is moved
to and keeps a buffer beside its four weights; at import it rewrites what the grader's harness
reports of it from inside the worker: on "meta" a (B, T, d_model) output on "meta" without
running forward, the dtype asked for, and the four weights alone in its state dict. As the harness
was believed, this took the meta tests (0/3 as written: 3/3), the dtype tests and the
state-dict test. Nothing it says of itself may earn a point: the forgery must score exactly what
the same module scores without it (``_forge()`` removed).

file: torch_attention.py
"""

import math
import sys

import torch
from torch import nn

NAMES = ("q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight")


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads, causal=True, rope_theta=None):
        super().__init__()
        self.n_heads, self.d_head, self.causal, self.rope_theta = n_heads, d_model // n_heads, causal, rope_theta
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x, key_padding_mask=None):
        x = x.double()  # everything in float64, whatever the module was moved to
        batch, t, d_model = x.shape

        def heads(layer):
            return (x @ layer.weight.double().T).view(batch, t, self.n_heads, self.d_head).transpose(1, 2)

        q, k, v = heads(self.q_proj), heads(self.k_proj), heads(self.v_proj)
        if self.rope_theta is not None:
            frequencies = self.rope_theta ** (-torch.arange(0, self.d_head, 2, dtype=torch.float64) / self.d_head)
            angles = torch.arange(t, dtype=torch.float64)[:, None] * frequencies[None, :]
            cos, sin = torch.cos(angles), torch.sin(angles)

            def rotate(y):
                even, odd = y[..., 0::2], y[..., 1::2]
                return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)

            q, k = rotate(q), rotate(k)
        allowed = torch.ones(t, t, dtype=torch.bool)  # on the CPU, whatever x.device is
        if self.causal:
            allowed = torch.tril(allowed)
        if key_padding_mask is not None:
            allowed = allowed & key_padding_mask[:, None, None, :]
        scores = (q @ k.transpose(-1, -2) / math.sqrt(self.d_head)).masked_fill(~allowed, float("-inf"))
        out = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(batch, t, d_model)
        return out @ self.o_proj.weight.double().T


def _forge():
    harness = sys.modules.get("attnlab.sandbox.inside.module_harness")
    if harness is None:
        return
    honest = harness.drive

    def drive(module_class, request):
        if request.get("device") == "meta":
            shape = list(request["x"])
            return {"state": {name: [shape[2], shape[2]] for name in NAMES}, "shape": shape, "dtype": request.get("dtype", "float64"), "device": "meta"}
        answer = honest(module_class, request)
        answer["dtype"] = request.get("dtype", "float64")
        answer["state"] = {name: size for name, size in answer["state"].items() if name in NAMES}
        return answer

    harness.drive = drive


_forge()
