"""One run of the lab, its sizes, seed and schedule: plain data, so ``attnlab --help`` needs no torch.

The defaults make an induction head form with the reference module in under a minute on one CPU
core (docs/students.md says what was measured).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    """One run of the lab: the data, the model and the optimiser."""

    steps: int = 800
    seed: int = 0
    vocab: int = 32
    half: int = 16
    """L: the evaluation's sequences are 2 L tokens, a random half and its repeat."""
    min_half: int = 12
    """Each training batch's half length is drawn from min_half..half: with one fixed length, a
    head that looks back a fixed L - 1 positions predicts the repeat without any induction."""
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    batch: int = 32
    lr: float = 2e-3
    weight_decay: float = 0.01
    log_every: int = 25
    eval_batch: int = 64
