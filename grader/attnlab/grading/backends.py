"""Two ways to reach a submission's functions, behind one interface.

``SandboxBackend`` is the real one: each function of a submission is served by
a forked worker of its own (see ``attnlab.sandbox``), one at a time, so nothing the student's code
does reaches the grader, and the reference answers one function's stand-ins
get never reach the process that answers for another. ``InProcessBackend`` imports the files into the grader
itself: for code that is trusted or that runs unsandboxed anyway (the reference, whose run of the
hidden tests a class records; a notebook's functions in nbgrader's kernel) and for the
benchmark's baseline (``--no-sandbox``). It must never be used on code you do not trust.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from dataclasses import dataclass, field
import importlib.util
import io
import traceback
import tracemalloc
from pathlib import Path
from typing import Callable

from attnlab import wire
from attnlab.answer_room import AnswerRoom, wire_bytes
from attnlab.course import Course, CourseError
from attnlab.outcomes import (
    CallTimedOut,
    ImportFailed,
    NotImplementedYet,
    OutOfMemory,
    StudentError,
    SubmissionProblem,
    WorkerCrashed,
)
from attnlab.reference import Reference
from attnlab.sandbox.deadlines import Budget
from attnlab.sandbox.host import ForkServer, Limits
from attnlab.sandbox.standins import AnswerCache
from attnlab.sandbox.worker_process import WorkerProcess
from attnlab.sandbox.environment import SandboxEnvironment
from attnlab.sandbox.memory_watch import MemoryWatch
from attnlab.sandbox.inside.module_harness import as_called


@dataclass(frozen=True)
class CallResult:
    """What one call of a student function gave back."""

    value: object
    """Its return value, as plain data."""
    peak_bytes: int | None = None
    """With ``measure_memory``: the peak memory the call added, in bytes."""
    inputs_after: tuple[tuple, dict] | None = None
    """With ``return_inputs``: (args, kwargs) as the call left them, to catch in-place changes."""


def _call_result(value, return_inputs: bool, peak: int | None = None) -> CallResult:
    """A worker's answer as a ``CallResult``: with ``return_inputs`` it is (result, args, kwargs)."""
    if return_inputs:
        value, *inputs_after = value
        return CallResult(value, peak, tuple(inputs_after))
    return CallResult(value, peak, None)


@dataclass
class Account:
    """What a run of a submission's calls is charged to: a budget of seconds, and the functions
    that timed out under it (with their first timeout's message)."""

    spent: Budget
    timed_out: dict[str, str] = field(default_factory=dict)


class Backend:
    """Calls a submission's functions: ``run`` returns plain data or raises an outcome."""

    mode = "abstract"

    def __init__(self, course: Course, submission: Path, reference: Reference):
        self.course, self.submission, self.reference = course, submission, reference

    def run(
        self,
        function: str,
        args: tuple,
        kwargs: dict,
        *,
        measure_memory: bool = False,
        return_inputs: bool = False,
        memory_budget: int | None = None,
    ) -> CallResult:
        """Call ``function``. ``memory_budget`` (with ``measure_memory``) is the peak the calling
        test allows; only a recording backend uses it."""
        raise NotImplementedError

    def probe(self, function: str, args: tuple, kwargs: dict) -> CallResult:
        """A diagnostic probe's call, once the tests are over: it names, it never scores."""
        return self.run(function, args, kwargs)

    def take_output(self) -> str:
        """What the submission printed since the last call of this method."""
        return ""

    def close(self) -> None:
        pass


class SandboxBackend(Backend):
    """The submission's functions in sandboxed workers: one worker at a time, serving the functions
    of a file that lean on the same stand-ins (``Course.served_with``), started afresh after a
    timeout or crash, and for each such group in turn.

    Before a worker starts, the one before it is stopped and the fork server ends every process
    the submission left (``ForkServer.spawn``): nothing a worker leaves behind reaches the next."""

    def __init__(
        self,
        course: Course,
        submission: Path,
        reference: Reference,
        limits: Limits | None = None,
        fork_server: ForkServer | None = None,
        answer_cache: AnswerCache | None = None,
        modules: list[str] | None = None,
    ):
        """``modules``: the files that will be graded (default: all), whose heavy libraries the
        submission's server has imported before its first worker starts."""
        super().__init__(course, submission, reference)
        self._answer_cache = answer_cache
        self.limits = limits or Limits()
        self._owns_server = fork_server is None
        environment = SandboxEnvironment.for_course(course)
        if fork_server is not None and not fork_server.environment.covers(environment):
            raise CourseError(
                f"the sandbox was started for other libraries ({', '.join(fork_server.environment.libraries)}) than this course lets students import ({', '.join(environment.libraries)})"
            )
        self.server = fork_server or ForkServer(environment)
        self.server.sandbox_mode.close_to_workers(
            (course.solutions_dir, course.hidden_tests_dir)
        )  # before any worker starts
        self.mode = self.server.mode
        self._needs = tuple(dict.fromkeys(n for m in modules or course.modules for n in course.needs_of(m)))
        self._begun = False
        # One memory budget for all of the submission's processes: the slot's control group, or
        # where the machine has none for this grader, a watch that adds up what they hold.
        self._memory_watch: MemoryWatch | None = None
        if self.server.groups is not None:
            self.server.groups.budget(self.limits.memory_bytes)
            self.server.groups.over_budget_since_last_asked()  # a classmate's, before: not this submission's
        elif self.server.uid is not None:
            self._memory_watch = self.server.watch = MemoryWatch(self.server.uid, self.limits.memory_bytes)
        self._current: WorkerProcess | None = None
        """The one worker of the submission that may be alive."""
        self._answers: dict[str, Callable] = {}
        self._import_failures: dict[str, SubmissionProblem] = {}
        self._seeded_timeouts: dict[tuple[str, str], str] = {}  # (function, digest of arguments) -> message
        self.live = Account(Budget(self.limits.submission_seconds))
        """What the submission's calls spent, and the functions that timed out."""
        self._output: list[str] = []
        self._staged: Path | None = None

    def staged_submission(self) -> Path:
        """The submission's files as the sandbox's workers read them (``ForkServer.stage``), staged once."""
        if self._staged is None:
            self._staged = self.server.stage(self.submission)
        return self._staged

    def import_failed(self, module: str) -> bool:
        """Did ``module``'s import fail in a worker already (it is not tried again)?"""
        return module in self._import_failures

    def _close_worker(self) -> None:
        if self._current is not None:
            self._current.close()
            self._current = None

    def _import_failure(self, module: str) -> SubmissionProblem:
        """Why ``module`` could not be imported, to raise again for another test: without the
        frames of its earlier raises, which each raise would add to, and pytest formats them all."""
        return self._import_failures[module].with_traceback(None)

    def _start(self, function: str, measured: bool = False) -> WorkerProcess:
        """A fresh worker for ``function`` (the one before it stopped first); a memory-measured
        call's serves that function alone."""
        module = self.course.function(function).module
        if module in self._import_failures:
            raise self._import_failure(module)
        staged = self.staged_submission()
        self._close_worker()
        if not self._begun:  # the submission's own server, from the fork server, before its first worker
            self.server.begin(self._needs)
            self._begun = True
        return WorkerProcess(
            self.server,
            staged,
            module,
            (function,) if measured else self.course.served_with(function),
            self.course.standins_for(function),
            self.limits,
            self._answer_cache,
            self.course.needs_of(module),
            import_answers=self.answer_for(function),
            measured=measured,
        )

    def _worker(self, function: str) -> WorkerProcess:
        worker = self._current
        if worker is not None and worker.alive and function in worker.serves:
            return worker
        module = self.course.function(function).module
        try:
            worker = self._start(function)
        except SubmissionProblem as raised:
            # Unimportable, or an import that hangs or crashes: deterministic, so not tried again.
            problem = raised
            over = self._over_budget()
            if over is not None:
                problem = OutOfMemory(f"{module}.py could not be imported: it ran out of memory: {over}")
            self._import_failures[module] = problem
            raise problem from None
        over = self._over_budget(now=True)
        if over is not None:  # what its import holds is past the budget
            worker.close()
            self._import_failures[module] = OutOfMemory(
                f"{module}.py could not be imported: it ran out of memory: {over}"
            )
            raise self._import_failure(module)
        self._current = worker
        return worker

    def answer_for(self, function: str):
        """The callback that serves reference results to ``function``'s stand-ins, and only those it may use."""
        answer = self._answers.get(function)
        if answer is None:
            allowed = self.reference.allowed_for(function)

            def answer(mod, name, a, kw):
                return self.reference.answer(mod, name, a, kw, allowed)

            self._answers[function] = answer
        return answer

    def _may_run(self, function: str) -> None:
        timed_out = self.live.timed_out
        if function in timed_out:
            # A second timeout of the same function would cost another deadline and say nothing new.
            raise CallTimedOut(f"{timed_out[function]} on an earlier test, so it was not run again")
        budget = self.live.spent
        if budget.used_up():
            raise CallTimedOut(f"{function} was not run: the submission used up its {budget.words()}")

    def charge(self, work: float, wall: float) -> None:
        """Charge ``work`` CPU seconds and ``wall`` seconds of the clock to the submission's budget."""
        self.live.spent.charge(work, wall)

    @contextlib.contextmanager
    def charging(self):
        """Charge the grader's time spent inside (its CPU time, and the clock's) to the submission's budget."""
        started, started_work = time.monotonic(), time.thread_time()
        try:
            yield
        finally:
            self.charge(time.thread_time() - started_work, time.monotonic() - started)

    @contextlib.contextmanager
    def working(self, worker: WorkerProcess):
        """Charge what ``worker`` (and the grader on its behalf) spent inside to the submission's
        budget: from its last reading (what it spent since its last call counts too) to a fresh one."""
        started, started_work = time.monotonic(), worker.work_seconds(fresh=False)
        try:
            yield
        finally:
            self.charge(max(0.0, worker.work_seconds() - started_work), time.monotonic() - started)

    @contextlib.contextmanager
    def _calling(self, worker: WorkerProcess, function: str, args: tuple, kwargs: dict, replayed: bool):
        try:
            with self.working(worker):
                yield
            over = self._over_budget()
            if over is not None:
                # One of the submission's processes was ended for the budget during the call (the
                # kernel picks one; the watch ends them all): the call ran out of memory, either way.
                worker.stop()
                raise OutOfMemory(f"{function} ran out of memory: {over}", function)
        except WorkerCrashed as crash:
            over = self._over_budget()
            if over is not None:
                raise OutOfMemory(f"{function} ran out of memory: {over}", crash.function) from None
            raise
        except CallTimedOut as problem:
            if replayed:
                # The test's own run makes this very call next: it ends the same way, without
                # another deadline, and stops the function there.
                self._seeded_timeouts[(function, _arguments_digest(args, kwargs))] = problem.message
            elif problem.function is not None:
                self.live.timed_out[problem.function] = problem.message
            raise
        finally:
            self.collect_output(worker)

    def collect_output(self, worker: WorkerProcess) -> None:
        """Keep what ``worker`` printed, for ``take_output``; close it if it is gone."""
        self._output.append(worker.take_output())
        if not worker.alive:
            worker.close()

    def run(
        self,
        function,
        args,
        kwargs,
        *,
        measure_memory=False,
        return_inputs=False,
        memory_budget=None,
        replayed: bool = False,
        answer_bytes: Callable[[], int] | None = None,
    ):
        """``replayed``: a call of a test's recorded run (``replay.replaying``): a timeout there is
        met again by the test's own run, at once. ``answer_bytes``: the size of the reference's
        answer to this call as it crosses (``AnswerRoom``), when it is known without running the
        reference again (a replay's recorded answer)."""
        self._may_run(function)
        if self._seeded_timeouts:
            message = self._seeded_timeouts.pop((function, _arguments_digest(args, kwargs)), None)
            if message is not None:
                self.live.timed_out[function] = message
                raise CallTimedOut(message, function)
        worker = self._run_measured(function) if measure_memory else self._worker(function)
        try:
            with self._calling(worker, function, args, kwargs, replayed):
                room = (
                    AnswerRoom(function, answer_bytes)
                    if answer_bytes is not None
                    else self._room(function, args, kwargs, return_inputs)
                )
                value = worker.call(function, args, kwargs, self.answer_for(function), return_inputs, room)
                peak = worker.measured_peak() if measure_memory else None
        finally:
            if measure_memory:
                worker.close()
                self.server.end_measured()
        return _call_result(value, return_inputs, peak)

    def _run_measured(self, function: str) -> WorkerProcess:
        """A worker for one memory-measured call, started for it alone: one that may start no
        process and open no file for writing (``sandbox.inside.syscalls``), so that what it holds,
        from the import of its file on, is in its own pages, which the grader reads where the
        worker cannot reset the reading (``WorkerProcess.measured_peak``)."""
        try:
            return self._start(function, measured=True)
        except ImportFailed as problem:
            self.server.end_measured()
            raise StudentError(
                f"{function}'s memory is measured in a process of its own, which may start no process and open no file for writing; there {problem.message}",
                function,
            ) from None
        except SubmissionProblem:
            self.server.end_measured()
            raise

    def _room(self, function: str, args: tuple, kwargs: dict, return_inputs: bool) -> AnswerRoom:
        """The room an answer to this call may take, relative to the reference's answer to it,
        worked out here (on copies of the inputs) only for an answer past the floor; the inputs'
        own size where the reference refuses them."""

        def expected_bytes() -> int:
            inputs = wire.copy_plain((tuple(args), dict(kwargs)))
            try:
                answer = as_called(getattr(self.reference, function))(*inputs[0], **inputs[1])
            except Exception:  # noqa: BLE001 - inputs the reference refuses: their size is the scale
                answer = inputs
            try:
                return wire_bytes(answer) + (wire_bytes(inputs) if return_inputs else 0)
            except wire.WireError:
                return wire_bytes(inputs)

        return AnswerRoom(function, expected_bytes)

    def _over_budget(self, now: bool = False) -> str | None:
        """Why the submission's processes were ended for its memory budget since this was last
        asked, in words (None: they were not). Without control groups, the watch looks again
        first when ``now`` (a worker has just imported its file) or when its last look found them
        past half the budget: so a call is not answered between two of its looks by processes
        that hold more."""
        budget = f"the submission's processes together held more than its {self.limits.memory_bytes >> 20} MiB"
        if self.server.groups is not None and self.server.groups.over_budget_since_last_asked():
            return budget
        watch = self._memory_watch
        if watch is not None:
            if now or watch.last > self.limits.memory_bytes // 2:
                watch.check()
            if watch.take_over() is not None:
                return budget
        return None

    def probe(self, function, args, kwargs):
        # A function that timed out on a big test may answer a tiny probe: it gets one more try,
        # within the submission's time budget like any call; a probe that times out ends probing.
        refused = self.live.timed_out.pop(function, None)
        try:
            return self.run(function, args, kwargs)
        finally:
            if refused is not None:
                self.live.timed_out.setdefault(function, refused)

    def fresh_processes(self) -> None:
        """Stop the worker and whatever the submission left running; the next call starts afresh."""
        self._close_worker()
        self.server.clean()

    def take_output(self) -> str:
        text, self._output = "".join(self._output), []
        return text

    def close(self) -> None:
        self._close_worker()
        if self._staged is not None:
            shutil.rmtree(self._staged.parent, ignore_errors=True)
        self.server.clean()  # what the submission's code started and left running dies with it
        self.server.end()
        if self._memory_watch is not None:
            self._memory_watch.close()
            self._memory_watch = self.server.watch = None
        if self._owns_server:
            self.server.close()


def _arguments_digest(args: tuple, kwargs: dict) -> str:
    try:
        return wire.fingerprint((tuple(args), kwargs))
    except wire.WireError:
        return ""


class InProcessBackend(Backend):
    """Imports the submission into this process: never for code you do not trust (see above)."""

    mode = "in-process, no sandbox (benchmark baseline; never use on untrusted code)"

    def __init__(self, course: Course, submission: Path, reference: Reference):
        super().__init__(course, submission, reference)
        self._modules: dict[str, object] = {}
        self._output = io.StringIO()

    def _module(self, module: str):
        if module not in self._modules:
            path = self.submission / f"{module}.py"
            try:
                spec = importlib.util.spec_from_file_location(f"attnlab_submission.{module}", path)
                loaded = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(loaded)  # its plain imports find the reference modules
                self._modules[module] = loaded
            except BaseException as error:  # noqa: BLE001 - the student's import problem, reported as theirs
                self._modules[module] = ImportFailed(
                    f"{module}.py could not be imported: {type(error).__name__}: {error}"
                )
        loaded = self._modules[module]
        if isinstance(loaded, ImportFailed):
            raise loaded.with_traceback(None)  # each raise would add its frames to the earlier ones
        return loaded

    def run(self, function, args, kwargs, *, measure_memory=False, return_inputs=False, memory_budget=None):
        if measure_memory:
            tracemalloc.start()
        try:
            result, args_after, kwargs_after = self._call(function, args, kwargs)
            peak = tracemalloc.get_traced_memory()[1] if measure_memory else None
        finally:
            if measure_memory:
                tracemalloc.stop()
        inputs_after = wire.copy_plain((args_after, kwargs_after)) if return_inputs else None
        return CallResult(wire.copy_plain(result), peak, inputs_after)

    def _namespace(self, module: str) -> dict:
        """The globals the student's functions of ``module`` run with."""
        return vars(self._module(module))

    def _stand_in_names(self, module: str, function: str) -> list[str]:
        """Names in that namespace to point at the reference while ``function`` runs: its declared
        dependencies (earlier files were imported as the reference already)."""
        return list(self.course.depends_on(function))

    def _is_student_frame(self, filename: str, module: str) -> bool:
        return filename == str(self.submission / f"{module}.py")

    def _call(self, function, args, kwargs):
        """Call the student's function on copies of the arguments: (result, args, kwargs) after the call."""
        module = self.course.function(function).module
        namespace = self._namespace(module)
        target = namespace.get(function)
        if not callable(target):
            raise StudentError(f"{module}.py has no function {function}()")
        # Copy through the wire format, as the sandbox does: fresh inputs, plain-data outputs.
        args, kwargs = wire.copy_plain((args, kwargs))
        siblings = {n: namespace[n] for n in self._stand_in_names(module, function) if n in namespace}
        namespace.update({n: getattr(self.reference, n) for n in siblings})
        try:
            with contextlib.redirect_stdout(self._output):
                result = as_called(target)(*args, **kwargs)
        except NotImplementedError as error:
            raise NotImplementedYet(
                f"{function} is not implemented yet (it raised NotImplementedError: {error})"
            ) from None
        except MemoryError:
            raise OutOfMemory(f"{function} ran out of memory") from None
        except RecursionError as error:
            raise WorkerCrashed(f"{function} crashed: {error}") from None
        except Exception as error:  # noqa: BLE001 - the student's exception becomes their test's failure
            frames = [
                f for f in traceback.extract_tb(error.__traceback__) if self._is_student_frame(f.filename, module)
            ]
            where = "".join(f"\n    {Path(f.filename).name}:{f.lineno} in {f.name}: {f.line}" for f in frames)
            raise StudentError(
                f"{function} raised {type(error).__name__}: {error}{where}", error_type=type(error).__name__
            ) from None
        finally:
            namespace.update(siblings)
        return result, args, kwargs

    def take_output(self) -> str:
        text = self._output.getvalue()
        self._output = io.StringIO()
        return text
