"""Every function of torch_attention.py raises ValueError at once: it computes nothing. A refusal the
hidden tests ask for passes, and earns nothing: such a test is paid only with the values of its
function.

file: torch_attention.py
"""


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads, causal=True, rope_theta=None):
        super().__init__()
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x, key_padding_mask=None):
        raise ValueError("nothing computed")
