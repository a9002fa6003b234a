"""Every masked score filled with -inf, the blind rows' output zeroed after: the forward is right, the softmax of a blind row is nan and so are the gradients.

file: torch_attention.py
breaks: MultiHeadSelfAttention
"""

import math

import torch
from torch import nn


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads, causal=True, rope_theta=None):
        super().__init__()
        assert d_model % n_heads == 0
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.causal = causal
        self.rope_theta = rope_theta
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def apply_rope(self, t):
        n, d = t.shape[-2], t.shape[-1]
        work = torch.promote_types(t.dtype, torch.float32)
        inv_freq = self.rope_theta ** (-torch.arange(0, d, 2, device=t.device, dtype=work) / d)
        angles = torch.arange(n, device=t.device, dtype=work)[:, None] * inv_freq[None, :]
        cos, sin = angles.cos().to(t.dtype), angles.sin().to(t.dtype)
        a, b = t[..., 0::2], t[..., 1::2]
        return torch.stack((a * cos - b * sin, a * sin + b * cos), dim=-1).flatten(-2)

    def forward(self, x, key_padding_mask=None):
        B, T, D = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_heads, self.head_dim).transpose(1, 2)
        if self.rope_theta is not None:
            q, k = self.apply_rope(q), self.apply_rope(k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        keep = torch.ones(T, T, dtype=torch.bool, device=x.device)
        if self.causal:
            keep = torch.tril(keep)
        if key_padding_mask is not None:
            keep = keep & key_padding_mask[:, None, None, :]
        blind = ~keep.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~keep, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        out = (weights @ v).masked_fill(blind, 0.0)
        out = out.transpose(1, 2).reshape(B, T, D)
        return self.o_proj(out)
