# Exercise stub of torch_attention.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
"""Exercise 9 (the PyTorch track): a multi-head self-attention module with RoPE.

Everything from the numpy files in one ``nn.Module``: three projections,
heads as a batch axis, a causal mask, an optional key padding mask, and
optional rotary position embeddings on queries and keys. Two things are new
in PyTorch. ``nn.Linear`` stores its weight as (out, in) and computes
``x @ W.T``, the transpose of the numpy track's ``W_Q``. And a module must
work on whatever device and dtype it is moved to: masks and angle tables are
made on ``x.device``, for whatever ``T`` comes in, never once on the CPU.
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
        # YOUR CODE HERE
        # Hint: four nn.Linear(d_model, d_model, bias=False) named q_proj, k_proj, v_proj, o_proj; keep n_heads, causal and rope_theta for forward.
        raise NotImplementedError("MultiHeadSelfAttention.__init__ is not implemented yet")

    def forward(self, x, key_padding_mask=None):
        """(B, T, d_model), optional (B, T) bool mask (True = real token) -> (B, T, d_model)."""
        # YOUR CODE HERE
        # Hint: split heads with view(B, T, n_heads, d_head).transpose(1, 2); build every mask and angle table on x.device, for this T (angle tables in float32 or wider, then cast to x.dtype); softmax over the keys (dim=-1). Fill masked scores with -inf (a finite fill such as -1e9 or finfo(dtype).min leaves a row with no visible key uniform, and -1e9 does not even fit in float16); leave such a row finite for the softmax and zero its output after it (masked_fill), so no nan reaches the output or the gradients.
        raise NotImplementedError("MultiHeadSelfAttention.forward is not implemented yet")
