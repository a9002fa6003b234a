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
from attnlab.lab.settings import Settings


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

    def to_json(self) -> dict:
        return {
            "settings": asdict(self.settings),
            "heads": self.heads,
            "seconds": round(self.seconds, 2),
            "records": [asdict(r) for r in self.records],
        }


def half_losses(logits, tokens):
    """The mean next-token loss over the whole sequence (what training minimises), over the first
    half's tokens 2..L, and over the repeated half's tokens after its first (L+2..2L: each one
    predictable by induction; the repeat's first token follows nothing that was seen before)."""
    import torch.nn.functional as F

    half = tokens.shape[1] // 2
    per_token = F.cross_entropy(logits[:, :-1].transpose(1, 2), tokens[:, 1:], reduction="none")  # (B, T - 1)
    return per_token.mean(), per_token[:, : half - 1].mean(), per_token[:, half:].mean()


def measure(model, tokens, scorers: Scorers, step: int) -> Record:
    """Losses and head scores of ``model`` on the evaluation batch ``tokens``."""
    import torch

    with torch.no_grad():
        _, first, repeated = half_losses(model(tokens), tokens)
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
) -> Run:
    """Train a fresh model and log it; the same settings give the same numbers (one CPU thread)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: the same sums in the same order, run after run
    try:
        started = time.perf_counter()
        model = build(attention_class, settings)
        run = Run(settings, model.head_names())
        optimiser = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
        data = seeded(settings.seed + 1)
        evaluation = repeated_halves(settings.eval_batch, settings.half, settings.vocab, seeded(settings.seed + 2))

        def log(step: int) -> None:
            model.eval()
            record = measure(model, evaluation, scorers, step)
            model.train()
            run.records.append(record)
            if on_record is not None:
                on_record(record)

        log(0)
        for step in range(1, settings.steps + 1):
            half = int(torch.randint(settings.min_half, settings.half + 1, (1,), generator=data))
            tokens = repeated_halves(settings.batch, half, settings.vocab, data)
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
        return run
    finally:
        torch.set_num_threads(threads)
