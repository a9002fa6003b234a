"""Training the lab's model, and what it logs as it goes.

``train`` runs AdamW on
next-token prediction over fresh batches, and every ``log_every`` steps (and at the start and the
end) measures a fixed evaluation batch: the loss on the first half's tokens, the loss on the
repeated half's, and every head's previous-token and induction scores. It reports each record to a
callback and draws nothing itself.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Callable

from attnlab.lab.data import repeated_halves, seeded
from attnlab.lab.model import attention_only
from attnlab.lab.patterns import Scorers, model_weights, rebuild_the_modules_output, score_heads
from attnlab.lab.pieces import Pieces, forward_difference
from attnlab.lab.settings import Settings
from attnlab.lab.student import first_line


@dataclass(frozen=True)
class Record:
    """What one logged step measured on the evaluation batch."""

    step: int
    loss_first: float
    """Mean cross-entropy on the first half's tokens 2..L (random: ln V at best)."""
    loss_repeated: float
    """Mean cross-entropy on the repeated half's tokens L+2..2L (each predictable by induction)."""
    previous: list[list[float]]
    """Previous-token score of each head, [layer][head]."""
    induction: list[list[float]]
    """Induction score of each head, [layer][head]."""


@dataclass
class Run:
    """A finished run: its settings, its head names, its records, and how long it took."""

    settings: Settings
    heads: list[str]
    records: list[Record] = field(default_factory=list)
    seconds: float = 0.0
    patterns_are_its_own: bool = True
    """Did the recomputed patterns rebuild the module's own output after training?"""
    forward_difference: float | None = None
    """How far the student's ``attention_only_forward`` was from the trained model's logits on the
    evaluation batch (relative to their largest magnitude); None when it was not run."""
    forward_problem: str = ""
    """Why the student's ``attention_only_forward`` gave no logits (one line), when it raised."""

    def to_json(self) -> dict:
        return {
            "settings": asdict(self.settings),
            "heads": self.heads,
            "seconds": round(self.seconds, 2),
            "records": [asdict(r) for r in self.records],
            "forward_difference": self.forward_difference,
        }


def half_losses(logits, tokens):
    """The mean next-token loss over the whole sequence (what training minimises), over the first
    half's tokens 2..L, and over the repeated half's tokens after its first (L+2..2L: each one
    predictable by induction; the repeat's first token follows nothing that was seen before)."""
    import torch.nn.functional as F

    half = tokens.shape[1] // 2
    per_token = F.cross_entropy(logits[:, :-1].transpose(1, 2), tokens[:, 1:], reduction="none")  # (B, T - 1)
    return per_token.mean(), per_token[:, : half - 1].mean(), per_token[:, half:].mean()


def student_half_losses(logits, tokens, pieces: Pieces) -> tuple[float, float]:
    """The first half's and the repeat's losses as ``half_losses`` has them, computed with the
    student's ``next_token_loss`` over the student's ``induction_targets`` (the repeat) and over
    the first half's predictions of its tokens 2..L."""
    import numpy as np

    logits, tokens = logits.double().numpy(), tokens.numpy()
    half = tokens.shape[1] // 2
    first_half = np.arange(2 * half - 1) < half - 1
    repeat = np.asarray(pieces.induction_targets(half))
    return float(pieces.next_token_loss(logits, tokens, first_half)), float(
        pieces.next_token_loss(logits, tokens, repeat)
    )


def measure(model, tokens, scorers: Scorers, step: int, pieces: Pieces | None = None) -> Record:
    """Losses and head scores of ``model`` on the evaluation batch ``tokens``; with ``pieces``, the
    losses are the student's ``next_token_loss`` over the student's ``induction_targets``."""
    import torch

    with torch.no_grad():
        logits = model(tokens)
        if pieces is None:
            _, first, repeated = half_losses(logits, tokens)
        else:
            first, repeated = student_half_losses(logits, tokens, pieces)
    scores = score_heads(model_weights(model, tokens), tokens.numpy(), scorers)
    return Record(
        step,
        float(first),
        float(repeated),
        scores["previous"].round(4).tolist(),
        scores["induction"].round(4).tolist(),
    )


def build(attention_class, settings: Settings):
    """The run's model, its weights drawn from the run's seed."""
    import torch

    torch.manual_seed(settings.seed)
    return attention_only(
        attention_class,
        settings.vocab,
        2 * settings.half,
        settings.d_model,
        settings.n_heads,
        settings.n_layers,
    )


def train(
    attention_class,
    settings: Settings,
    scorers: Scorers,
    on_record: Callable[[Record], None] | None = None,
    on_step: Callable[[int], None] | None = None,
    pieces: Pieces | None = None,
) -> Run:
    """Train a fresh model and log it; the same settings give the same numbers (one CPU thread).

    With ``pieces`` (the student's ``induction.py``), the batches are made by their
    ``repeated_halves``, the logged losses are their ``next_token_loss`` over their
    ``induction_targets``, and at the end their ``attention_only_forward`` is run on the trained
    weights and compared with the model's logits (``Run.forward_difference``)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: the same sums in the same order, run after run
    try:
        started = time.perf_counter()
        model = build(attention_class, settings)
        run = Run(settings, model.head_names())
        optimiser = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
        data = seeded(settings.seed + 1)
        repeat = None if pieces is None else pieces.repeated_halves
        evaluation = repeated_halves(
            settings.eval_batch, settings.half, settings.vocab, seeded(settings.seed + 2), repeat
        )

        def log(step: int) -> None:
            model.eval()
            record = measure(model, evaluation, scorers, step, pieces)
            model.train()
            run.records.append(record)
            if on_record is not None:
                on_record(record)

        log(0)
        for step in range(1, settings.steps + 1):
            half = int(torch.randint(settings.min_half, settings.half + 1, (1,), generator=data))
            tokens = repeated_halves(settings.batch, half, settings.vocab, data, repeat)
            loss, _, _ = half_losses(model(tokens), tokens)
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            if step % settings.log_every == 0 or step == settings.steps:
                log(step)
            if on_step is not None:
                on_step(step)
        run.seconds = time.perf_counter() - started
        model.eval()
        run.patterns_are_its_own = rebuild_the_modules_output(model, evaluation)
        if pieces is not None:
            try:
                run.forward_difference = forward_difference(model, evaluation, pieces.attention_only_forward)
            except Exception as error:  # noqa: BLE001 - the student's forward: said in one line
                run.forward_problem = first_line(error)
        return run
    finally:
        torch.set_num_threads(threads)
