"""What the hidden tests did to each mutant, and the mutation score per function.

A mutant is **killed** when a hidden test of its file did not pass (failed, raised, crashed,
ran out of memory), **timed out** when the only tests it lost timed out (a student loses those
points too, so it counts as caught), and **survived** when every test passed. A survivor on the
reviewed list of equivalent mutants is **equivalent** and left out of the score; a listed mutant
that a test kills was listed wrongly, and the audit says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from attnlab.audit.equivalents import EquivalentMutant
from attnlab.audit.mutants import Mutant

KILLED, TIMED_OUT, SURVIVED, EQUIVALENT = "killed", "timed out", "survived", "equivalent"


@dataclass(frozen=True)
class Verdict:
    """One mutant's fate."""

    mutant: Mutant
    status: str
    """``killed``, ``timed out``, ``survived`` or ``equivalent``."""
    caught_by: tuple[str, ...]
    """The hidden tests it lost points on."""
    equivalence: EquivalentMutant | None = None
    """The reviewed entry that lists it, when one does."""

    @property
    def listed_wrongly(self) -> bool:
        """Listed as equivalent, yet a test tells it from the reference."""
        return self.equivalence is not None and self.status in (KILLED, TIMED_OUT)


@dataclass(frozen=True)
class FunctionScore:
    """The mutation score of one function."""

    module: str
    function: str
    killed: int
    timed_out: int
    survived: int
    equivalent: int

    @property
    def mutants(self) -> int:
        return self.killed + self.timed_out + self.survived + self.equivalent

    @property
    def score(self) -> float | None:
        """Caught mutants over non-equivalent ones (None when every mutant is equivalent)."""
        counted = self.killed + self.timed_out + self.survived
        return (self.killed + self.timed_out) / counted if counted else None


def judge(mutant: Mutant, stored: dict | None, equivalents: list[EquivalentMutant]) -> Verdict:
    """``mutant``'s verdict from its stored class result (``ResultStore``'s data)."""
    listed = next((entry for entry in equivalents if entry.matches(mutant)), None)
    if stored is None:
        raise ValueError(f"no result for mutant {mutant.id}")
    if stored.get("error"):  # not gradable at all: every point of its file is lost
        return Verdict(mutant, KILLED, (stored["error"],), listed)
    tests = [t for t in stored["report"]["tests"] if t["module"] == mutant.module]
    lost = [t for t in tests if t["outcome"] != "passed"]
    if not lost:
        return Verdict(mutant, EQUIVALENT if listed else SURVIVED, (), listed)
    status = TIMED_OUT if all(t["outcome"] == "timed out" for t in lost) else KILLED
    return Verdict(mutant, status, tuple(t["name"] for t in lost), listed)


def scores(verdicts: list[Verdict]) -> list[FunctionScore]:
    """The score of every function with a mutant, in the order their mutants come."""
    counts: dict[tuple[str, str], dict[str, int]] = {}
    for verdict in verdicts:
        tally = counts.setdefault(
            (verdict.mutant.module, verdict.mutant.function),
            dict.fromkeys((KILLED, TIMED_OUT, SURVIVED, EQUIVALENT), 0),
        )
        tally[verdict.status] += 1
    return [
        FunctionScore(module, function, tally[KILLED], tally[TIMED_OUT], tally[SURVIVED], tally[EQUIVALENT])
        for (module, function), tally in counts.items()
    ]


def overall(function_scores: list[FunctionScore]) -> FunctionScore:
    """All functions' counts together, as one score."""
    total = {
        field: sum(getattr(s, field) for s in function_scores)
        for field in ("killed", "timed_out", "survived", "equivalent")
    }
    return FunctionScore("(all)", "(all)", **total)


def stale_entries(
    equivalents: list[EquivalentMutant], mutants: list[Mutant], audited_modules: list[str]
) -> list[EquivalentMutant]:
    """Entries of the audited files that match no mutant any more (the code changed under them)."""
    return [
        entry for entry in equivalents if entry.file in audited_modules and not any(entry.matches(m) for m in mutants)
    ]
