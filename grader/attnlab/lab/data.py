"""The lab's sequences: a random half, then the same half again.

The first half is uniform random tokens, unpredictable whatever the model; the second repeats
it, so each of its tokens is predictable, but only by looking back at what followed the same
token the first time: the job of an induction head.
"""

from __future__ import annotations


def repeated_halves(batch: int, half: int, vocab: int, generator, repeat=None):
    """(batch, 2 * half) int64 tokens in [0, vocab): each row a random half (tokens drawn uniformly,
    with replacement), then the same half again. Drawn from ``generator``, so a seed gives the same rows.

    ``repeat`` makes the rows from the drawn halves: the student's ``induction.repeated_halves``
    ((batch, half) int64 numpy -> (batch, 2 * half)) when the lab runs on their code; without it,
    the lab's own. Only the halves are drawn, so a right ``repeat`` gives the same rows."""
    import torch  # here: the package imports without torch

    if batch < 1 or half < 1 or vocab < 2:
        raise ValueError(f"need batch >= 1, half >= 1 and vocab >= 2, got {batch}, {half}, {vocab}")
    first = torch.randint(0, vocab, (batch, half), generator=generator, dtype=torch.long)
    if repeat is None:
        return torch.cat([first, first], dim=1)
    import numpy as np

    rows = np.asarray(repeat(first.numpy().copy()))
    if rows.shape != (batch, 2 * half) or rows.dtype.kind not in "iu":
        raise ValueError(
            f"repeated_halves returned {rows.dtype} of shape {rows.shape} for halves of shape ({batch}, {half}); "
            f"the lab needs integer token ids of shape ({batch}, {2 * half})"
        )
    return torch.from_numpy(rows.astype(np.int64))


def seeded(seed: int):
    """A CPU ``torch.Generator`` started from ``seed``."""
    import torch

    generator = torch.Generator()
    generator.manual_seed(seed)
    return generator
