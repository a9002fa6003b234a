"""Grade every mutant of the chosen files as one class, through the grader's own class path.

Each mutant is a "student" whose submission is its one mutated file; it is graded on that file
alone (``ClassPlan.files_of``), with the same sandbox, limits, recorded reference run and
replay as a real class, so a mutant is caught exactly when a student who wrote that code would
lose points. The class and its results live in a scratch folder removed afterwards.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from attnlab.audit.equivalents import EquivalentMutant, load_equivalents
from attnlab.audit.mutants import Mutant, mutants_of
from attnlab.audit.verdicts import Verdict, judge, stale_entries
from attnlab.classroom.gradebook import ResultStore
from attnlab.classroom.grading import grade_class, plan_class
from attnlab.classroom.jobs import available_memory, choose_jobs
from attnlab.course import Course, CourseError
from attnlab.lifecycle import scratch_prefix
from attnlab.outcomes import GraderFailure
from attnlab.sandbox.host import Limits
from attnlab.wording import count


@dataclass(frozen=True)
class Audit:
    """One audit of the hidden suite: every mutant's verdict."""

    modules: tuple[str, ...]
    """The exercise files audited."""
    verdicts: tuple[Verdict, ...]
    stale: tuple[EquivalentMutant, ...]
    """Reviewed entries of the audited files that match no mutant any more."""
    seconds: float
    """Wall time of the whole audit, generation and grading."""
    jobs: int


def course_mutants(course: Course, modules: list[str]) -> list[Mutant]:
    """Every mutant of the solution regions of ``modules``' solution files, in course order."""
    mutants = []
    for module in modules:
        path = course.solutions_dir / f"{module}.py"
        if not path.is_file():
            raise CourseError(f"{path} is missing: mutants are made from the solutions")
        mutants.extend(mutants_of(module, path.read_text(encoding="utf-8"), str(path)))
    return mutants


def stage_mutants(mutants: list[Mutant], folder: Path) -> dict[str, list[str]]:
    """Write each mutant as a submission of one file in ``folder``; return the file each is graded on."""
    for mutant in mutants:
        submission = folder / mutant.id
        submission.mkdir()
        (submission / f"{mutant.module}.py").write_text(mutant.source, encoding="utf-8")
    return {mutant.id: [mutant.module] for mutant in mutants}


def run_audit(
    course: Course,
    modules: list[str],
    limits: Limits,
    *,
    jobs: int | None = None,
    on_mutants: Callable[[int, int, str | None], None] = lambda total, slots, memory_note: None,
    on_ready: Callable[[], None] = lambda: None,
    on_judged: Callable[[Verdict], None] = lambda verdict: None,
) -> Audit:
    """Make the mutants of ``modules``, grade them as one class with ``jobs`` processes (default:
    one per core, as memory allows: ``choose_jobs``), judge each. ``on_mutants`` hears how many
    there are, the processes chosen and a note when memory is short, before grading starts;
    ``on_judged`` each verdict as its mutant is graded. A failure of the grader
    itself (``GraderFailure``) propagates: no score is made of it."""
    started = time.perf_counter()
    equivalents = load_equivalents(course.solutions_dir)
    mutants = course_mutants(course, modules)
    slots, memory_note = choose_jobs(jobs, len(mutants), limits, available=available_memory())
    on_mutants(len(mutants), slots, memory_note)
    with tempfile.TemporaryDirectory(prefix=scratch_prefix("attnlab-audit")) as scratch:
        class_folder = Path(scratch) / "mutants"
        class_folder.mkdir()
        files_of = stage_mutants(mutants, class_folder)
        store = ResultStore(Path(scratch) / "results")
        plan = plan_class(course, class_folder, store, limits, only=modules)
        plan.files_of.update(files_of)
        by_id = {mutant.id: mutant for mutant in mutants}
        outcome = grade_class(
            course,
            plan,
            store,
            limits,
            jobs=slots,
            on_ready=on_ready,
            on_graded=lambda data: on_judged(judge(by_id[data["student"]], data, equivalents)),
        )
        if outcome.failures:  # the grader's own failures: no verdict can be made of them
            raise GraderFailure(
                f"the grader failed on {count(len(outcome.failures), 'mutant')} (first: {outcome.failures[0]})"
            )
        stored = {result.student: result.data for result in store.all([m.id for m in mutants])}
    verdicts = tuple(judge(mutant, stored.get(mutant.id), equivalents) for mutant in mutants)
    return Audit(
        tuple(modules),
        verdicts,
        tuple(stale_entries(equivalents, mutants, modules)),
        time.perf_counter() - started,
        slots,
    )
