"""Two ways to reach a submission's functions, behind one interface.

``SandboxBackend`` is the real one: each submission file is served by its own
forked worker (see ``attnlab.sandbox``), so nothing the student's code does
reaches the grader. ``InProcessBackend`` imports the files into the grader
itself; it exists so that the benchmark can measure what the sandbox costs,
and must never be used on code you do not trust.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
import importlib.util
import io
import traceback
import tracemalloc
from pathlib import Path

from attnlab import wire
from attnlab.course import Course
from attnlab.outcomes import CallTimedOut, ImportFailed, NotImplementedYet, OutOfMemory, StudentError, SubmissionProblem, WorkerCrashed
from attnlab.reference import Reference
from attnlab.sandbox.host import ForkServer, Limits, WorkerProcess, close_to_workers
from attnlab.sandbox.module_harness import as_called
from attnlab.sandbox.program_host import ProgramProcess


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
    return CallResult(value, peak)


class Backend:
    """Calls a submission's functions: ``run`` returns plain data or raises an outcome."""

    mode = "abstract"

    def __init__(self, course: Course, submission: Path, reference: Reference):
        self.course, self.submission, self.reference = course, submission, reference

    def run(self, function: str, args: tuple, kwargs: dict, *, measure_memory: bool = False, return_inputs: bool = False, memory_budget: int | None = None) -> CallResult:
        """Call ``function``. ``memory_budget`` (with ``measure_memory``) is the peak the calling
        test allows; only a recording backend uses it."""
        raise NotImplementedError

    def take_output(self) -> str:
        """What the submission printed since the last call of this method."""
        return ""

    def close(self) -> None:
        pass


class SandboxBackend(Backend):
    """One forked worker per submission file, restarted after a timeout or crash."""

    def __init__(self, course: Course, submission: Path, reference: Reference, limits: Limits | None = None, fork_server: ForkServer | None = None, callback_cache: dict | None = None):
        super().__init__(course, submission, reference)
        self._callback_cache = callback_cache
        self.limits = limits or Limits()
        self._owns_server = fork_server is None
        self.server = fork_server or ForkServer()
        close_to_workers((course.solutions_dir, course.hidden_tests_dir), self.server.bwrap)  # before any worker starts
        self.mode = self.server.mode
        self._workers: dict[str, WorkerProcess] = {}
        self._import_failures: dict[str, SubmissionProblem] = {}
        self._timed_out: dict[str, str] = {}  # function -> first timeout's message
        self._seeded_timeouts: dict[tuple[str, str], str] = {}  # (function, digest of arguments) -> message
        self._spent = 0.0  # seconds of calls so far, against limits.submission_seconds
        self._output: list[str] = []
        self._standins = {m: course.functions_in(m) for m in course.modules}

    def _worker(self, module: str) -> WorkerProcess:
        if module in self._import_failures:
            raise self._import_failures[module]
        worker = self._workers.get(module)
        if worker is None or not worker.alive:
            standins = {m: self._standins[m] for m in (*self.course.modules_before(module), module)}
            try:
                worker = WorkerProcess(self.server, self.submission, module, standins, self.limits, self._callback_cache, self.course.needs_of(module))
            except SubmissionProblem as problem:
                # Unimportable, or an import that hangs or crashes: deterministic, so not tried again.
                self._import_failures[module] = problem
                raise
            self._workers[module] = worker
        return worker

    def _answer_for(self, function: str):
        """The callback that serves reference results to ``function``'s stand-ins, and only those it may use."""
        allowed = self.reference.allowed_for(function)

        def answer(mod, name, a, kw):
            return self.reference.answer(mod, name, a, kw, allowed)

        return answer

    def _may_run(self, function: str) -> None:
        if function in self._timed_out:
            # A second timeout of the same function would cost another deadline and say nothing new.
            raise CallTimedOut(f"{self._timed_out[function]} on an earlier test, so it was not run again")
        if self._spent > self.limits.submission_seconds:
            raise CallTimedOut(f"{function} was not run: the submission used up its {self.limits.submission_seconds:g} s of grading time")

    def start_program(self, start: dict, known: tuple[str, set[str]] | None = None) -> ProgramProcess:
        """A program worker for the class's fast path (``program_replay``), with the nested results
        accepted so far (token, keys); its time is charged."""
        started = time.monotonic()
        try:
            return ProgramProcess(self.server, self.submission, self.limits, start, known)
        except CallTimedOut as problem:
            if problem.module is not None:  # a file whose import hangs would hang live too: not tried again
                self._import_failures[problem.module] = problem
            raise
        finally:
            self._spent += time.monotonic() - started

    @contextlib.contextmanager
    def charging(self):
        """Charge the time spent inside to the submission's budget."""
        started = time.monotonic()
        try:
            yield
        finally:
            self._spent += time.monotonic() - started

    def seed_timeout(self, function: str, args: tuple, kwargs: dict, message: str) -> None:
        """``function`` timed out on these arguments already (in the fast path): the live call
        with the same arguments ends the same way, without another deadline."""
        self._seeded_timeouts[(function, _arguments_digest(args, kwargs))] = message

    @contextlib.contextmanager
    def _calling(self, worker: WorkerProcess):
        started = time.monotonic()
        try:
            yield
        except CallTimedOut as problem:
            if problem.function is not None:
                self._timed_out[problem.function] = problem.message
            raise
        finally:
            self._spent += time.monotonic() - started
            self._output.append(worker.take_output())
            if not worker.alive:
                worker.close()

    def run(self, function, args, kwargs, *, measure_memory=False, return_inputs=False, memory_budget=None):
        self._may_run(function)
        if self._seeded_timeouts:
            message = self._seeded_timeouts.pop((function, _arguments_digest(args, kwargs)), None)
            if message is not None:
                self._timed_out[function] = message
                raise CallTimedOut(message, function)
        worker = self._worker(self.course.function(function).module)
        with self._calling(worker):
            baseline = worker.reset_peak_memory() if measure_memory else 0
            value = worker.call(function, args, kwargs, self._answer_for(function), return_inputs)
            peak = worker.peak_memory() - baseline if measure_memory else None
        return _call_result(value, return_inputs, peak)

    def run_batch(self, calls: list[tuple[str, tuple, dict, bool]], framed: list | None = None) -> list[CallResult]:
        """Several calls ``(function, args, kwargs, return_inputs)`` of one file's functions, in
        one round trip. The first call that fails raises its outcome, as ``run`` would.
        ``framed`` is their message from ``batch_message``, when the caller keeps it."""
        modules = {self.course.function(function).module for function, *_ in calls}
        if len(modules) != 1:
            raise ValueError(f"a batch must call one file's functions, not {sorted(modules)}")
        for function, *_ in calls:
            self._may_run(function)
        worker = self._worker(modules.pop())
        with self._calling(worker):
            values = worker.call_batch(calls, self._answer_for, framed)
        return [_call_result(value, return_inputs) for (_, _, _, return_inputs), value in zip(calls, values)]

    def take_output(self) -> str:
        text, self._output = "".join(self._output), []
        return text

    def close(self) -> None:
        for worker in self._workers.values():
            worker.close()
        self._workers.clear()
        self.server.clean()  # what the submission's code started and left running dies with it
        if self._owns_server:
            self.server.close()


def _arguments_digest(args: tuple, kwargs: dict) -> str:
    try:
        return wire.fingerprint((tuple(args), kwargs))
    except wire.WireError:
        return ""


class InProcessBackend(Backend):
    """Imports the submission into this process: for measuring the sandbox's cost only."""

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
                self._modules[module] = ImportFailed(f"{module}.py could not be imported: {type(error).__name__}: {error}")
        loaded = self._modules[module]
        if isinstance(loaded, ImportFailed):
            raise loaded
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
        """Names in that namespace to point at the reference while ``function`` runs: its
        siblings (earlier files were imported as the reference already)."""
        return [n for n in self.course.functions_in(module) if n != function]

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
            raise NotImplementedYet(f"{function} is not implemented yet (it raised NotImplementedError: {error})") from None
        except MemoryError:
            raise OutOfMemory(f"{function} ran out of memory") from None
        except RecursionError as error:
            raise WorkerCrashed(f"{function} crashed: {error}") from None
        except Exception as error:  # noqa: BLE001 - the student's exception becomes their test's failure
            frames = [f for f in traceback.extract_tb(error.__traceback__) if self._is_student_frame(f.filename, module)]
            where = "".join(f"\n    {Path(f.filename).name}:{f.lineno} in {f.name}: {f.line}" for f in frames)
            raise StudentError(f"{function} raised {type(error).__name__}: {error}{where}", error_type=type(error).__name__) from None
        finally:
            namespace.update(siblings)
        return result, args, kwargs

    def take_output(self) -> str:
        text = self._output.getvalue()
        self._output = io.StringIO()
        return text
