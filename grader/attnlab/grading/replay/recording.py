"""Record the reference's run of the hidden suite: every call a test made, with its answer.

With hypothesis derandomised, a hidden test is a deterministic function of what
the student's code returns; so the suite is run once against the reference, in
the grader's own process, and each call of a student function is written down
(``script.ScriptedCall``). Files are recorded one by one (``kept`` keeps each), and a class
run shares them out among its cores.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

from attnlab.course import Course
from attnlab.grading.backends import Backend, CallResult, InProcessBackend
from attnlab.grading.hidden_suite import hidden_test_files, run_suite
from attnlab.outcomes import GraderFailure, Outcome, StudentError, SubmissionProblem
from attnlab.lifecycle import ForkedPoolState, die_with
from attnlab.reference import Reference, one_blas_thread
from attnlab.grading.replay.compare import has_float32
from attnlab.grading.replay.script import Script, ScriptedCall, ScriptedTest
from attnlab.wire import copy_plain


class RecordingBackend(Backend):
    """Serves the reference in this process and writes down every call into the current test."""

    mode = "recording the reference's calls"

    def __init__(self, inner: InProcessBackend):
        super().__init__(inner.course, inner.submission, inner.reference)
        self.inner = inner
        self.current: ScriptedTest | None = None
        self.tests: list[ScriptedTest] = []

    def start(self, nodeid: str) -> None:
        self.current = ScriptedTest(nodeid)
        self.tests.append(self.current)

    def run(
        self, function, args, kwargs, *, measure_memory=False, return_inputs=False, memory_budget=None
    ) -> CallResult:
        test = self.current
        inputs = copy_plain((args, kwargs))
        if measure_memory and memory_budget is None:
            test.replayable = False  # a verdict on a peak with no stated budget: only a live run can tell
        try:
            result = self.inner.run(function, args, kwargs, measure_memory=measure_memory, return_inputs=return_inputs)
        except StudentError as refusal:
            # A refusal the test asks for (a ValueError): the student's code must raise the same type.
            if measure_memory:
                test.replayable = False
            test.calls.append(
                ScriptedCall(
                    function,
                    inputs[0],
                    inputs[1],
                    return_inputs,
                    None,
                    None,
                    None,
                    has_float32(inputs),
                    refusal.error_type or "Exception",
                )
            )
            raise
        except (Exception, SubmissionProblem):
            test.replayable = False
            raise
        budget = memory_budget if measure_memory else None
        test.calls.append(
            ScriptedCall(
                function,
                inputs[0],
                inputs[1],
                return_inputs,
                copy_plain(result.value),
                copy_plain(result.inputs_after),
                budget,
                has_float32(inputs),
            )
        )
        return result

    def take_output(self) -> str:
        return self.inner.take_output()

    def close(self) -> None:
        self.inner.close()


class RecordingPlugin:
    """Tells the recording backend which test is running."""

    def __init__(self, backend: RecordingBackend):
        self.backend = backend

    def pytest_runtest_setup(self, item) -> None:
        self.backend.start(item.nodeid)


def record_script(course: Course, reference: Reference | None = None, only: list[str] | None = None) -> Script:
    """Run the hidden suite (of the ``only`` files, default all) against the reference and write
    down every call. A reference that fails its own test is the grader's failure, not every
    student's: ``GraderFailure``. A test it skips is not replayable: it runs live."""
    reference = reference or Reference(course)
    backend = RecordingBackend(InProcessBackend(course, course.solutions_dir, reference))
    try:
        with one_blas_thread():  # as a worker computes, so a student's copy of the reference answers it bit for bit
            plugin = run_suite(
                course, hidden_test_files(course, only), backend, reference, extra_plugins=(RecordingPlugin(backend),)
            )
    finally:
        backend.close()
    results = dict(zip(plugin.nodeids, plugin.results))
    failed = [r for r in plugin.results if r.outcome is not Outcome.PASSED]
    if failed:  # every student would lose those points for the reference's mistake
        raise GraderFailure(
            f"the reference fails its own hidden test {failed[0].name!r} ({failed[0].outcome.value}: {failed[0].feedback.splitlines()[0] if failed[0].feedback else 'no feedback'})"
        )
    for test in backend.tests:
        result = results.get(test.nodeid)
        if result is None or result.outcome is not Outcome.PASSED:
            test.replayable = False
        else:
            test.result = result
    return Script(backend.tests)


_RECORDER = ForkedPoolState("a recording process's course and reference")


def _start_recorder(parent: int, course: Course, reference: Reference) -> None:
    die_with(parent)
    _RECORDER.set_in_this_process((course, reference))


def _record_in_pool(module: str) -> Script:
    return record_script(*_RECORDER.get(), [module])


def record_files(course: Course, reference: Reference, modules: list[str], jobs: int = 1) -> dict[str, Script]:
    """``record_script`` of each of ``modules`` on its own, shared out among ``jobs`` forked
    processes (which die with this one) when there are several: each file's script."""
    if jobs <= 1 or len(modules) < 2:
        return {module: record_script(course, reference, [module]) for module in modules}
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(
        min(jobs, len(modules)),
        mp_context=context,
        initializer=_start_recorder,
        initargs=(os.getpid(), course, reference),
    ) as pool:
        return dict(zip(modules, pool.map(_record_in_pool, modules)))
