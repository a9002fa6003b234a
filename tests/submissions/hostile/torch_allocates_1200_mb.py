"""The module's constructor allocates 1.2 GB: torch reports the memory limit as a RuntimeError
of its own ("DefaultCPUAllocator: can't allocate memory"), which must read as out of memory.

file: torch_attention.py
"""

import torch


class MultiHeadSelfAttention(torch.nn.Module):
    def __init__(self, d_model, n_heads, causal=True, rope_theta=None):
        super().__init__()
        self.big = torch.ones(300_000_000)
