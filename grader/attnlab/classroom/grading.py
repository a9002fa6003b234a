"""Grade a whole class: in parallel, resumable, one sandbox per grading process.

The trusted side runs the hidden suite once against the reference and records
its calls (``grading.replay``), or loads that recording from the last run's results
folder (``grading.replay.kept``). Then ``jobs`` grading processes are forked from this
one with the class's ``ClassSession``, so pytest, hypothesis, the reference and
the recording are loaded once for the class, not per student. Each owns a fork
server (a bubblewrap sandbox as root) that forks workers per submission, and
writes each student's result atomically the moment it is graded. A rerun grades
what is missing or changed.
"""

from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.util
import os
import signal
import time
import warnings
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from attnlab.classroom.gradebook import (
    GRADEBOOK_NAME,
    ResultsNotSaved,
    ResultStore,
    build_gradebook,
    fingerprint_of,
    grader_parts,
    holds_results,
    why_regraded,
)
from attnlab.classroom.jobs import choose_jobs
from attnlab.classroom.rescore import only_points_changed, rescored
from attnlab.classroom.shards import Shard
from attnlab.course import Course
from attnlab.classroom.session import ClassSession
from attnlab.grading.hidden_suite import load_hidden_tests
from attnlab.grading.replay.kept import cache_folder, RESULTS_SUBFOLDER, recorded_run
from attnlab.grading.replay.script import Script
from attnlab.grading.suite import grade_entry
from attnlab.lifecycle import ForkedPoolState, die_with, remove_stale_scratch
from attnlab.outcomes import GraderFailure
from attnlab.points import load_table
from attnlab.reference import Reference
from attnlab.intake.class_folder import survey
from attnlab.intake.roster import Entry, RosterError, SubmissionError, looks_like_submission, safe_id, shown
from attnlab.sandbox.host import Limits, bwrap_path, close_to_workers
from attnlab.wording import count


@dataclass
class ClassPlan:
    """What a class run will do: every entry, and which of them need grading."""

    entries: list[Entry]
    to_grade: list[Entry]
    fingerprints: dict[str, str]
    grader: str
    only: list[str] | None = None
    """The exercise files graded (None: all)."""
    files_of: dict[str, list[str]] = field(default_factory=dict)
    """Students graded on fewer files than ``only``, and those files (``attnlab audit``: each
    mutant on the file it mutates)."""
    not_graded: list[str] = field(default_factory=list)
    """What the class folder holds that is no student's graded submission, and why, one line each."""
    why: dict[str, str] = field(default_factory=dict)
    """Each student to grade -> why (``gradebook.why_regraded``)."""
    before: dict[str, float | None] = field(default_factory=dict)
    """Each student to grade who had a result -> its score then (None: not gradable then)."""
    pick: str | None = None
    """``"newest"``: the newest of a submission's drafts is graded, not refused."""
    grader_parts: dict[str, str] = field(default_factory=dict)
    rescored: dict[str, dict] = field(default_factory=dict)
    """Students whose stored result only the points changed -> its report paid as ``points.toml``
    says now (``rescore``): saved without running their code."""

    @property
    def reused(self) -> int:
        return len(self.entries) - len(self.to_grade) - len(self.rescored)


@dataclass
class ClassOutcome:
    """What a class run did."""

    plan: ClassPlan
    graded: list[dict] = field(default_factory=list)
    """The stored result of each submission graded in this run."""
    failures: list[str] = field(default_factory=list)
    """Submissions the grader itself failed on (not saved: a rerun tries them again)."""
    gradebook: Path | None = None
    wall_seconds: float = 0.0
    rescored: list[dict] = field(default_factory=list)
    """The stored result of each submission rescored in this run (only the points changed)."""


def plan_class(
    course: Course,
    folder: Path,
    store: ResultStore,
    limits: Limits,
    *,
    students: list[str] | None = None,
    assignment: str | None = None,
    only: list[str] | None = None,
    shard: Shard | None = None,
    pick: str | None = None,
    layout: str | None = None,
    roster=None,
) -> ClassPlan:
    """Find the class's submissions and pick those to grade: the named ``students`` (always
    regraded), else every one without a current result (graded on the ``only`` files, default all).
    With a ``shard``, the class is that shard's students only (and what the folder holds that is
    not graded is told by every shard: it is the class's). ``layout`` and ``roster``: as
    ``class_folder.survey`` reads the folder."""
    found = survey(folder, course, assignment, layout, roster)
    # A results folder kept inside the class folder is the grader's own output, not a student.
    entries = [e for e in found.entries if e.source.resolve() != store.folder.resolve() and not holds_results(e.source)]
    if not any(looks_like_submission(e, course) for e in entries):
        expected = ", ".join(f"{m}.py" for m in course.modules)
        if found.layout in ("canvas", "moodle"):
            raise RosterError(
                f"{folder}: a {found.layout.capitalize()} download of {count(len(entries), 'student')}, none of whose files is one of {expected}"
            )
        raise RosterError(
            f"{folder}: not a submission (none of {expected} is in it), nor a class folder (no folder or .zip in it holds them)"
        )
    if shard is not None:
        entries = [e for e in entries if shard.holds(e.student)]
    parts = grader_parts(course, limits, only, pick)
    grader = fingerprint_of(parts)
    fingerprints = {e.student: e.fingerprint(course) for e in entries}
    rescored_now: dict[str, dict] = {}
    if students:
        students = [safe_id(s) for s in students]  # an id as shown, or the folder's name as it is
        unknown = sorted(set(students) - set(fingerprints))
        if unknown:
            where = f"shard {shard} of {folder}" if shard is not None else str(folder)
            raise RosterError(f"no submission for student {', '.join(unknown)} in {where}")
        to_grade = [e for e in entries if e.student in students]
        why = {e.student: "named with --student" for e in to_grade}
    else:
        why = {
            e.student: reason
            for e in entries
            if (reason := why_regraded(store.load(e.student), fingerprints[e.student], parts))
        }
        if any(only_points_changed(store.load(s), fingerprints[s], parts) for s in why):
            table = load_table(course.hidden_tests_dir)
            for student in list(why):
                stored = store.load(student)
                if only_points_changed(stored, fingerprints[student], parts):
                    report = rescored(stored.report, table)
                    if report is not None:
                        rescored_now[student] = report
                        del why[student]
        to_grade = [e for e in entries if e.student in why]
    before = {}
    for student in rescored_now:
        before[student] = store.load(student).report.get("score")
    for entry in to_grade:
        stored = store.load(entry.student)
        if stored is not None:
            before[entry.student] = None if stored.report is None else stored.report.get("score")
    # Those an interrupted run regraded are current now, and their changes are still to be listed.
    before = {**before, **{s: score for s, score in store.before_kept().items() if s in fingerprints}}
    return ClassPlan(
        entries,
        to_grade,
        fingerprints,
        grader,
        only,
        not_graded=found.not_graded,
        why=why,
        before=before,
        pick=pick,
        grader_parts=parts,
        rescored=rescored_now,
    )


_SLOT = ForkedPoolState("a grading process's session, store and plan")


def _start_slot(parent: int, session: ClassSession, store: ResultStore, plan: "ClassPlan") -> None:
    die_with(parent)
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, signal.SIG_IGN)  # the parent handles Ctrl-C, kill and hang-up, and stops us
    warnings.simplefilter("ignore")  # the reference on a student's odd inputs may warn: not for the terminal
    session.start()
    # A pool process ends without the interpreter's own clean-up: its server's folder goes here.
    multiprocessing.util.Finalize(session, session.close, exitpriority=10)
    _SLOT.set_in_this_process((session, store, plan))
    # No automatic collections: a submission's cycles (pytest's, hypothesis's) are collected once
    # when it is graded (_grade_in_slot), so that the class's long-lived caches are not walked each time.
    gc.disable()


def _grade_in_slot(entry: Entry) -> tuple[str, dict | None, str | None]:
    """In a grading process: grade one entry and save its result. (student, stored data, failure)."""
    session, store, plan = _SLOT.get()
    report, error = None, None
    try:
        files = plan.files_of.get(entry.student)
        report = grade_entry(
            session.course, entry, "attnlab-stage", lambda folder: session.grade(folder, only=files), plan.pick
        ).to_dict()
    except (RosterError, SubmissionError) as problem:
        error = str(problem)  # the submission's own fault: saved, with no points
    except GraderFailure:
        raise  # the sandbox or the reference failed: nothing is saved, and the class stops
    except Exception as failure:  # noqa: BLE001 - the grader's fault: reported, not saved, retried next run
        return entry.student, None, f"{entry.student}: {type(failure).__name__}: {failure}"
    finally:
        # This submission's garbage cycles, then what it left alive (the class's caches grow) out
        # of the next collections' sight: each walks one submission's objects only.
        gc.collect()
        gc.freeze()
    return entry.student, _save(store, plan, entry, report, error), None


def _save(store: ResultStore, plan: ClassPlan, entry: Entry, report: dict | None, error: str | None) -> dict:
    """Save ``entry``'s result, with what says when it must be graded again (its fingerprint, the
    grader's); return the stored data."""
    return store.save(
        entry.student,
        source=shown(entry.source),
        fingerprint=plan.fingerprints[entry.student],
        grader=plan.grader,
        report=report,
        error=error,
        grader_parts=plan.grader_parts,
        also=entry.also,
    )


def grade_class(
    course: Course,
    plan: ClassPlan,
    store: ResultStore,
    limits: Limits,
    *,
    jobs: int | None = None,
    on_ready: Callable[[], None] = lambda: None,
    on_graded: Callable[[dict], None] = lambda data: None,
    on_recording: Callable[[], None] = lambda: None,
) -> ClassOutcome:
    """Grade ``plan.to_grade`` with ``jobs`` processes (default: the machine's cores; never more
    than the submissions: ``choose_jobs``), then rebuild the gradebook. Ctrl-C stops the run;
    what finished is kept. ``on_recording`` is called before the reference's run is recorded,
    which a kept recording spares."""
    started = time.perf_counter()
    outcome = ClassOutcome(plan)
    problem = None
    remove_stale_scratch()  # what a killed run left: copies of students' code
    try:
        if "named with --student" not in plan.why.values():  # a named student's own table is their change
            store.remember_before(plan.before)  # before anything changes: a Ctrl-C keeps what to list
        by_student = {e.student: e for e in plan.entries}
        for student, report in plan.rescored.items():  # only the points changed: no code runs
            outcome.rescored.append(_save(store, plan, by_student[student], report, None))
        if plan.to_grade:
            slots, _ = choose_jobs(jobs, len(plan.to_grade), limits)
            _grade_in_parallel(course, plan, store, limits, slots, outcome, on_ready, on_graded, on_recording)
    except BaseException as error:
        problem = error
        raise
    finally:
        remove_stale_scratch()  # the folders of grading processes stopped before they could
        students = [e.student for e in plan.entries]
        try:
            outcome.gradebook = build_gradebook(store.all(students), store.folder / GRADEBOOK_NAME)
        except ResultsNotSaved:
            if problem is None:
                raise  # else the first problem is the one to tell
        outcome.wall_seconds = time.perf_counter() - started
    return outcome


def _script(
    course: Course, reference: Reference, plan: ClassPlan, folder: Path, jobs: int, on_recording: Callable[[], None]
) -> Script:
    """The reference's recorded run of the class's files: each kept in the results folder by the
    last run (or in the user's cache by any grading), when it was made by the same course, engine
    and libraries; else recorded now (``jobs`` processes sharing the files), and kept in both."""
    modules = list(plan.only or course.modules)
    return recorded_run(
        course,
        reference,
        modules,
        folder / RESULTS_SUBFOLDER,
        jobs=jobs,
        on_recording=lambda missing: on_recording(),
        also=cache_folder(),
    )


def _grade_in_parallel(course, plan, store, limits, jobs, outcome, on_ready, on_graded, on_recording) -> None:
    reference = Reference(course)
    store.folder.mkdir(parents=True, exist_ok=True)
    # Without bubblewrap, workers must not read the solutions, the results or the other students'
    # work: closed to other users before any grading process starts.
    close_to_workers(
        (course.solutions_dir, course.hidden_tests_dir, store.folder, *{entry.source.parent for entry in plan.entries}),
        bwrap_path(),
    )
    load_hidden_tests(course, plan.only)  # once here, not in every process forked below
    session = ClassSession(
        course, reference, _script(course, reference, plan, store.folder, jobs, on_recording), limits, plan.only
    )
    # What is loaded now lives as long as the class: out of the collector's sight, a full collection
    # (pytest's, hypothesis's, or the interpreter's own) no longer walks it for every student.
    gc.freeze()
    context = multiprocessing.get_context("fork")
    executor = ProcessPoolExecutor(
        max_workers=jobs, mp_context=context, initializer=_start_slot, initargs=(os.getpid(), session, store, plan)
    )
    # A submission several students share (a Gradescope group's) is graded once: its other
    # members get the same result under their own ids.
    sharing: dict[tuple, list[Entry]] = {}
    for entry in plan.to_grade:  # the files listed too: a download's students share its folder, not their files
        sharing.setdefault((entry.source, entry.files), []).append(entry)
    try:
        pending = {executor.submit(_grade_in_slot, group[0]): group for group in sharing.values()}
        on_ready()
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                first, *others = pending.pop(future)
                student, data, failure = future.result()
                if failure:
                    outcome.failures.append(failure)
                    outcome.failures.extend(
                        f"{other.student}: not graded, as {student} (the same submission) was not" for other in others
                    )
                    continue
                results = [data] + [_save(store, plan, other, data["report"], data["error"]) for other in others]
                for result in results:
                    outcome.graded.append(result)
                    on_graded(result)
    except (GraderFailure, ResultsNotSaved):
        # Grade no more, but let the submissions being graded finish: each is saved, or leaves nothing.
        executor.shutdown(wait=True, cancel_futures=True)
        raise
    except BaseException:
        # Ctrl-C or worse: stop the grading processes now (their sandboxes die with them). Python
        # 3.11's executor has no public way to (3.14 adds kill_workers); multiprocessing's
        # active_children() would kill every child of the caller's, not the pool's alone.
        for process in list(getattr(executor, "_processes", {}).values()):
            process.kill()
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        executor.shutdown(wait=True)
    finally:
        gc.unfreeze()
