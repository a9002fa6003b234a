"""forward answers with an empty tensor on the meta device, whatever x's device: reading its
values failed in the grader's harness as a NotImplementedError, "not implemented yet".

file: torch_attention.py
"""

import torch


class MultiHeadSelfAttention(torch.nn.Module):
    def __init__(self, d_model, n_heads, causal=True, rope_theta=None):
        super().__init__()
        self.q_proj = torch.nn.Linear(d_model, d_model, bias=False)
        self.k_proj = torch.nn.Linear(d_model, d_model, bias=False)
        self.v_proj = torch.nn.Linear(d_model, d_model, bias=False)
        self.o_proj = torch.nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, key_padding_mask=None):
        return torch.empty(x.shape, device="meta")
