"""torch.triu(..., diagonal=1) taken as the keys a query may see.

file: torch_attention.py
breaks: MultiHeadSelfAttention
"""

import math

import torch
from torch import nn


class MultiHeadSelfAttention(nn.Module):
    """Multi-head self-attention with an optional causal mask, key padding mask and RoPE.

    Shapes: forward(x (B, T, d_model), key_padding_mask (B, T) bool or None) -> (B, T, d_model).
    ``key_padding_mask`` is ``True`` at real tokens. Submodules ``q_proj``, ``k_proj``,
    ``v_proj`` and ``o_proj`` are ``nn.Linear(d_model, d_model, bias=False)``. With
    ``rope_theta``, queries and keys (B, n_heads, T, d_head) are rotated by position after the
    projections (adjacent pairs, as ``positions.rope`` with d = d_head); values never are.
    A query that may see no key (every key masked: a padding query under the causal mask, with
    left padding) gets a zero output and no gradient, in every dtype, as in
    ``F.scaled_dot_product_attention``.
    """

    def __init__(self, d_model, n_heads, causal=True, rope_theta=None):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        self.causal, self.rope_theta = causal, rope_theta
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, key_padding_mask=None):
        """(B, T, d_model), optional (B, T) bool mask (True = real token) -> (B, T, d_model)."""
        batch, t, d_model = x.shape
        # Heads are a batch axis: (B, T, d_model) -> (B, T, h, d_head) -> (B, h, T, d_head).
        q, k, v = (proj(x).view(batch, t, self.n_heads, self.d_head).transpose(1, 2) for proj in (self.q_proj, self.k_proj, self.v_proj))
        if self.rope_theta is not None:
            # Made here, on x.device and for this T: a table built once in __init__ breaks both. Built
            # in float32 at least, then cast: float16 angles are off by up to a radian at T = 2048,
            # and bfloat16 cannot even count the positions past 256.
            table = torch.promote_types(x.dtype, torch.float32)
            frequencies = self.rope_theta ** (-torch.arange(0, self.d_head, 2, device=x.device, dtype=table) / self.d_head)  # (d_head/2,)
            angles = torch.arange(t, device=x.device, dtype=table)[:, None] * frequencies[None, :]  # (T, d_head/2)
            cos, sin = torch.cos(angles).to(x.dtype), torch.sin(angles).to(x.dtype)

            def rotate(y):  # (B, h, T, d_head): adjacent pairs (0,1), (2,3), ... turn together
                even, odd = y[..., 0::2], y[..., 1::2]
                return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)

            q, k = rotate(q), rotate(k)  # never v: values carry content, not position
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.d_head)  # (B, h, T, T)
        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)
        if self.causal:
            allowed = torch.triu(allowed, diagonal=1)
        if key_padding_mask is not None:
            allowed = allowed & key_padding_mask[:, None, None, :]  # (B, 1, 1, T): masks keys only
        # A query that may see no key (left padding under the causal mask) keeps its finite scores,
        # and its output row is zeroed: -inf everywhere would give nan, forward and backward.
        sees_a_key = allowed.any(dim=-1, keepdim=True)  # (B or 1, 1, T, 1)
        weights = torch.softmax(scores.masked_fill(~allowed & sees_a_key, float("-inf")), dim=-1)  # over the keys
        heads = (weights @ v).masked_fill(~sees_a_key, 0.0)  # (B, h, T, d_head)
        out = heads.transpose(1, 2).reshape(batch, t, d_model)  # merge heads: (B, T, d_model)
        return self.o_proj(out)
