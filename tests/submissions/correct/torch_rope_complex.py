"""RoPE as multiplication by complex exponentials (torch.polar); a query that may see no key is softmaxed as a row of zeros and its output multiplied by 0.

file: torch_attention.py
"""

import math

import torch
from torch import nn


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads, causal=True, rope_theta=None):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.causal = causal
        self.rope_theta = rope_theta
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def rotate(self, x):
        T, d = x.shape[-2], x.shape[-1]
        table = torch.float32 if x.dtype in (torch.float16, torch.bfloat16) else x.dtype  # half precision cannot count positions
        inv_freq = 1.0 / (self.rope_theta ** (torch.arange(0, d, 2, device=x.device, dtype=table) / d))
        angles = torch.outer(torch.arange(T, device=x.device, dtype=table), inv_freq)
        turn = torch.polar(torch.ones_like(angles), angles)  # e^{i * angle}, (T, d/2)
        pairs = torch.view_as_complex(x.to(table).reshape(*x.shape[:-1], d // 2, 2).contiguous())  # no complex half on the CPU
        return torch.view_as_real(pairs * turn).flatten(-2).to(x.dtype)

    def forward(self, x, key_padding_mask=None):
        B, T, D = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        if self.rope_theta is not None:
            q = self.rotate(q)
            k = self.rotate(k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        visible = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if self.causal:
            visible = torch.tril(visible)
        if key_padding_mask is not None:
            visible = visible & key_padding_mask[:, None, None, :]
        seen = visible.any(dim=-1, keepdim=True)  # False for a query that may see no key
        scores = scores.masked_fill(~visible, float("-inf")).masked_fill(~seen, 0.0)
        out = ((torch.softmax(scores, dim=-1) @ v) * seen).transpose(1, 2).reshape(B, T, D)
        return self.o_proj(out)
