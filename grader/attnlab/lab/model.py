"""A two-layer, attention-only decoder built from the student's ``MultiHeadSelfAttention``.

Token and learned position embeddings start a residual stream; each layer adds its attention's
output to it (``x = x + attention(norm(x))``, no MLPs), and a last LayerNorm and an unembedding
read V logits off it. With no MLPs, what the model does is what its heads do, which is what
makes it a lab: the heads are the whole story.
"""

from __future__ import annotations

import functools


def attention_only(attention_class, vocab: int, context: int, d_model: int, n_heads: int, n_layers: int = 2):
    """The model: tokens (B, T) int64, T <= context -> logits (B, T, vocab); every layer causal."""
    return _model_class()(attention_class, vocab, context, d_model, n_heads, n_layers)


@functools.cache
def _model_class():
    """The model's class, made on first use: the package imports without torch (the student
    release may not have it; ``student.load`` says how to install it)."""
    import torch
    from torch import nn

    class AttentionOnly(nn.Module):
        """tokens (B, T) int64, T <= context -> logits (B, T, vocab); every layer causal."""

        def __init__(self, attention_class, vocab: int, context: int, d_model: int, n_heads: int, n_layers: int = 2):
            super().__init__()
            self.n_heads = n_heads
            self.embed = nn.Embedding(vocab, d_model)
            self.position = nn.Embedding(context, d_model)
            self.norms = nn.ModuleList(nn.LayerNorm(d_model) for _ in range(n_layers))
            self.attentions = nn.ModuleList(attention_class(d_model, n_heads, causal=True) for _ in range(n_layers))
            self.final_norm = nn.LayerNorm(d_model)
            self.unembed = nn.Linear(d_model, vocab, bias=False)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            positions = torch.arange(tokens.shape[1], device=tokens.device)
            x = self.embed(tokens) + self.position(positions)  # (B, T, d_model): the residual stream
            for norm, attention in zip(self.norms, self.attentions):
                x = x + attention(norm(x))  # each layer writes into the stream; later layers read it
            return self.unembed(self.final_norm(x))  # (B, T, vocab)

        def head_names(self) -> list[str]:
            """``L1H0``, ``L1H1``, ...: layer from 1, head from 0, in the order the patterns are stacked."""
            return [f"L{layer + 1}H{head}" for layer in range(len(self.attentions)) for head in range(self.n_heads)]

    return AttentionOnly
