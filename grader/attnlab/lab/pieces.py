"""The student's own pieces of the lab, from ``induction.py``: the data, the losses and the forward.

``numpy_params`` reads a trained ``AttentionOnly`` model's weights into the layout of
``induction.attention_only_forward`` (the numpy track's ``x @ W``: every ``nn.Linear`` weight
transposed). ``Pieces`` holds the student's functions once ``student.pieces`` has tried them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class Pieces:
    """The student's ``repeated_halves``, ``induction_targets``, ``next_token_loss`` and ``attention_only_forward``."""

    repeated_halves: Callable
    induction_targets: Callable
    next_token_loss: Callable
    attention_only_forward: Callable


def numpy_params(model) -> dict:
    """The model's weights as ``attention_only_forward``'s ``params`` (float64 numpy arrays)."""

    def array(tensor) -> np.ndarray:
        return tensor.detach().cpu().double().numpy()

    return {
        "embed": array(model.embed.weight),
        "position": array(model.position.weight),
        "layers": [
            {
                "gamma": array(norm.weight),
                "beta": array(norm.bias),
                "w_q": array(attention.q_proj.weight).T,
                "w_k": array(attention.k_proj.weight).T,
                "w_v": array(attention.v_proj.weight).T,
                "w_o": array(attention.o_proj.weight).T,
            }
            for norm, attention in zip(model.norms, model.attentions)
        ],
        "final_gamma": array(model.final_norm.weight),
        "final_beta": array(model.final_norm.bias),
        "unembed": array(model.unembed.weight).T,
    }


def forward_difference(model, tokens, forward: Callable) -> float:
    """The largest difference, relative to the logits' largest magnitude, between the model's logits
    on ``tokens`` and ``forward(tokens, numpy_params(model), n_heads)``; inf for a wrong shape or a non-array."""
    import torch

    with torch.no_grad():
        expected = model(tokens).double().numpy()
    got = np.asarray(forward(tokens.numpy(), numpy_params(model), model.n_heads), dtype=float)
    if got.shape != expected.shape:
        return float("inf")
    return float(np.max(np.abs(got - expected)) / max(np.max(np.abs(expected)), 1e-12))
