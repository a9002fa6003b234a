"""Masks the scores by multiplying them with the masks: the hidden keys get a score of 0, not -inf.

file: torch_attention.py
breaks: MultiHeadSelfAttention
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
        cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)

    def forward(self, x, key_padding_mask=None):
        B, T, D = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        if self.rope_theta is not None:
            q = self.rotate(q)
            k = self.rotate(k)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if self.causal:
            causal = torch.tril(torch.ones(T, T, dtype=torch.bool, device=x.device))
            scores = scores * causal
        if key_padding_mask is not None:
            scores = scores * key_padding_mask[:, None, None, :]
        weights = torch.softmax(scores, dim=-1)
        out = (weights @ v).transpose(1, 2).reshape(B, T, D)
        return self.o_proj(out)
