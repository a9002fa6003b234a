"""How many submissions of a class to grade at once: one per core, as many as memory allows."""

from __future__ import annotations

import os

from attnlab.sandbox.host import Limits

# What a grading slot needs besides its student's code: the grading process (about 130 MiB at its
# peak over a class), its fork server and the program's own interpreter.
SLOT_BYTES = 256 << 20


def available_memory() -> int | None:
    """Bytes the kernel says new work can have (MemAvailable), or None where it does not say."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def choose_jobs(
    asked: int | None, submissions: int, limits: Limits, cores: int | None = None, available: int | None = None
) -> tuple[int, str | None]:
    """The slots to grade with, and a note for the instructor when memory is short.

    Each slot may need its student's memory limit on top of ``SLOT_BYTES``. The default (one per
    core) is lowered to what fits; a ``--jobs`` asked for is kept, with a warning."""
    cores = cores or os.cpu_count() or 1
    wanted = min(asked or cores, max(submissions, 1))
    per_slot = limits.memory_bytes + SLOT_BYTES
    if available is None or wanted * per_slot <= available:
        return wanted, None
    fits = max(1, available // per_slot)
    need = f"each may need {per_slot >> 20} MiB (the student's code {limits.memory_bytes >> 20} MiB, --memory; the grader {SLOT_BYTES >> 20} MiB), and {available / (1 << 30):.1f} GiB is available"
    if asked is None:
        return fits, f"Grading {fits} at once, not one per core ({wanted}): {need}."
    return (
        wanted,
        f"Warning: --jobs {asked}: {need}; at most {fits} fit. A student at the memory limit in every slot at once would run the machine short.",
    )
