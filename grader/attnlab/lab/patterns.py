"""Each head's attention weights, as the student's own module computes them, and its scores.

The module returns only its output, so the weights are recomputed from its own ``q_proj`` and
``k_proj`` (``softmax(q kᵀ / √d_head)`` per head, under the causal mask) applied to the input the
model really gave it, caught by a forward pre-hook. ``rebuilt_output`` puts them back together
(``weights @ v`` per head, merged, ``o_proj``): equal to the module's output, they are its real
patterns. ``Scorers`` holds the two functions that read a head (the student's ``heads.py``: the
lab, which students get, holds no answer to an exercise) and ``score_heads`` applies them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np


def layer_inputs(model, tokens) -> list:
    """What each attention layer of ``model`` was given on ``tokens`` (B, T, d_model), in order."""
    import torch

    caught: list[torch.Tensor] = []
    hooks = [
        a.register_forward_pre_hook(lambda module, args: caught.append(args[0].detach())) for a in model.attentions
    ]
    try:
        with torch.no_grad():
            model(tokens)
    finally:
        for hook in hooks:
            hook.remove()
    return caught


def _heads(projection, x, n_heads: int):
    batch, t, width = x.shape
    return projection(x).view(batch, t, n_heads, width // n_heads).transpose(1, 2)  # (B, h, T, d_head)


def head_weights(attention, x, n_heads: int):
    """(B, T, d_model) -> (B, n_heads, T, T): the causal attention weights of ``attention``'s heads on ``x``."""
    import torch

    with torch.no_grad():
        q, k = _heads(attention.q_proj, x, n_heads), _heads(attention.k_proj, x, n_heads)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])  # (B, h, T, T)
        t = x.shape[1]
        allowed = torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device))
        return torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)


def rebuilt_output(attention, x, weights):
    """The module's output rebuilt from ``weights`` (B, h, T, T): each head's ``weights @ v``, merged, ``o_proj``."""
    import torch

    with torch.no_grad():
        batch, t, width = x.shape
        v = _heads(attention.v_proj, x, weights.shape[1])
        return attention.o_proj((weights @ v).transpose(1, 2).reshape(batch, t, width))


def rebuild_the_modules_output(model, tokens, rtol: float = 1e-4) -> bool:
    """Do the recomputed weights of every layer, put back together, give what the module itself
    returned on ``tokens``? When not, the student's module computes its attention another way (a
    head split or a scale the lesson does not use) and the patterns drawn are not its own."""
    import torch

    inputs = layer_inputs(model, tokens)
    with torch.no_grad():
        for attention, x in zip(model.attentions, inputs):
            expected = attention(x)
            rebuilt = rebuilt_output(attention, x, head_weights(attention, x, model.n_heads))
            scale = float(expected.abs().max()) or 1.0
            if expected.shape != rebuilt.shape or not float((expected - rebuilt).abs().max()) <= rtol * scale:
                return False
    return True


def model_weights(model, tokens) -> np.ndarray:
    """(B, T) tokens -> (n_layers, B, n_heads, T, T) float64: every head's weights on them."""
    import torch

    inputs = layer_inputs(model, tokens)
    stacked = [head_weights(a, x, model.n_heads) for a, x in zip(model.attentions, inputs)]
    return torch.stack(stacked).double().numpy()


@dataclass(frozen=True)
class Scorers:
    """The functions that score a head, the student's own: ``previous(weights (h, T, T)) -> (h,)``
    and ``induction(weights (h, T, T), token_ids (T,)) -> (h,)``."""

    previous: Callable
    induction: Callable


def score_heads(weights: np.ndarray, tokens: np.ndarray, scorers: Scorers) -> dict[str, np.ndarray]:
    """Weights (n_layers, B, h, T, T) and tokens (B, T) -> ``previous`` and ``induction`` scores
    (n_layers, h), each the mean over the sequences of one call per sequence (the shapes every
    ``heads.py`` takes)."""
    n_layers, batch, n_heads = weights.shape[:3]
    previous = np.zeros((n_layers, n_heads))
    induction = np.zeros((n_layers, n_heads))
    for layer in range(n_layers):
        for row in range(batch):
            previous[layer] += np.asarray(scorers.previous(weights[layer, row]), dtype=float).reshape(n_heads)
            induction[layer] += np.asarray(scorers.induction(weights[layer, row], tokens[row]), dtype=float).reshape(
                n_heads
            )
    return {"previous": previous / batch, "induction": induction / batch}
