"""The replay's way to a submission: ``WatchingBackend``, over the live ``SandboxBackend``.

The replay asks a test's recorded calls of one watching worker per submission
(``sandbox.inside.watching_worker``: the student's own code throughout, its
nested calls watched), and some of live workers (the reference answering their
stand-ins). ``WatchingBackend`` holds what that costs and learns: a budget of its
own (what the replay spends on tests that then run live never shortens the live
run; what the tests it passed took counts, ``count_as_live``), the timeouts it
met, the functions and files a watching worker may no longer be asked. What it
learns that a live run alone would find too (a function's own code that times
out on the same arguments) it leaves with the sandbox backend for the live run.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

from attnlab.grading.backends import Account, Backend, CallResult, SandboxBackend
from attnlab.outcomes import CallTimedOut, StudentError, SubmissionProblem, WorkerCrashed
from attnlab.sandbox.deadlines import Budget
from attnlab.sandbox.host import Watching
from attnlab.sandbox.batches import BatchPastItsDeadline
from attnlab.sandbox.worker_process import WorkerProcess


class NotReplayed(Exception):
    """A watching worker's call gave no result (it raised, timed out, crashed, or the function
    may not be watched any more). ``own``: the function's own code timed out or crashed, outside
    anything it called, so a live worker would do the same."""

    def __init__(self, function: str, own: bool = False):
        super().__init__(function)
        self.own = own


@dataclass(frozen=True)
class WatchedResult(CallResult):
    """A watching worker's answer to one call, with its notes on the calls it watched."""

    nested: list | None = None
    """Per watched call, [function, digest of its arguments, digest of its result] (the digests
    None, and why in the last place, when it did not return plain data)."""


class WatchingBackend(Backend):
    """The replay of one submission, over ``sandbox`` (the backend its live run uses)."""

    def __init__(self, sandbox: SandboxBackend):
        super().__init__(sandbox.course, sandbox.submission, sandbox.reference)
        self.sandbox = sandbox
        self.mode = sandbox.mode
        self.account = Account(Budget(sandbox.limits.submission_seconds))
        """What the replay spent, and the functions that timed out in it."""
        self._watcher: WorkerProcess | None = None
        self._not_replayable: set[str] = set()  # functions whose watching worker failed
        self._not_watched: set[str] = set()  # functions whose own code timed out or crashed while watched
        self._not_imported: set[str] = set()  # files whose import timed out or crashed a watching worker

    @contextlib.contextmanager
    def replaying(self):
        """While inside, the sandbox backend's calls and the grader's work are charged to the replay."""
        with self.sandbox.charging_to(self.account):
            yield

    def run(self, function, args, kwargs, *, measure_memory=False, return_inputs=False, memory_budget=None):
        """A call in a live worker, charged to the replay; a timeout there is one the live run
        meets on the same arguments without another deadline (``SandboxBackend.seed_timeout``)."""
        with self.replaying():
            return self.sandbox.run(function, args, kwargs, measure_memory=measure_memory, return_inputs=return_inputs)

    def run_batch(
        self, calls: list[tuple[str, tuple, dict, bool]], framed: list | None = None, expected: list | None = None
    ) -> list[CallResult]:
        """``SandboxBackend.run_batch``, charged to the replay."""
        with self.replaying():
            return self.sandbox.run_batch(calls, framed, expected)

    def count_as_live(self, seconds: float, wall_seconds: float = 0.0) -> None:
        """A test the replay passed took ``seconds`` of work (``wall_seconds`` by the clock):
        alone, the live run would have spent them."""
        self.sandbox.live.spent.charge(seconds, wall_seconds)

    def charged(self) -> tuple[float, float]:
        """Seconds of work and of the wall clock charged to the submission's budgets so far (the
        live run's and the replay's together), as deadlines count them."""
        live, own = self.sandbox.live.spent, self.account.spent
        return live.work + own.work, live.wall + own.wall

    @contextlib.contextmanager
    def charging(self):
        """Charge the grader's time spent inside to the replay's budget."""
        with self.replaying(), self.sandbox.charging():
            yield

    def take_output(self) -> str:
        return self.sandbox.take_output()

    def replayable(self, function: str) -> bool:
        """May ``function`` still be asked in a watching worker (nothing went wrong there yet)?"""
        module = self.course.function(function).module
        return (
            function not in self._not_replayable
            and not self.sandbox.import_failed(module)
            and not self.account.spent.used_up()
        )

    def watch_batch(
        self,
        calls: list[tuple[str, tuple, dict, bool]],
        framed: list | None = None,
        expected: list | None = None,
        files: tuple[str, ...] = (),
    ) -> list[WatchedResult]:
        """Several calls ``(function, args, kwargs, return_inputs)`` of one function, in one round
        trip, in the watching worker: the student's own code runs throughout, and each result
        carries its notes on the calls a live run would have stood in for
        (``WatchedResult.nested``). ``framed`` is the calls' message from ``batch_message``;
        ``expected``, per call, the ``Expected`` answer returned as it is when identical to it.

        Raises ``NotReplayed`` when a call did not give a result; what that says is kept for the
        live run: a function whose own code timed out (before any watched call) times out live on
        the same arguments without another deadline, and one that timed out or crashed while
        watched is not run on the student's side again (its callers' tests run live). ``files``:
        the files the watching worker imports, in course order (default: up to the function's);
        one worker serves the submission's replay."""
        function = calls[0][0]
        if any(f != function for f, *_ in calls):
            raise ValueError(f"a batch must call one function, not {sorted({f for f, *_ in calls})}")
        if not self.replayable(function):
            raise NotReplayed(function)
        module = self.course.function(function).module
        files = files or (*self.course.modules_before(module), module)
        worker = self._watching_worker(function, files)
        started, started_work = time.monotonic(), worker.work_seconds()
        worker.notes = []
        try:
            worker.load(files.index(module) + 1)
            values = worker.call_batch(calls, self.sandbox.answer_for, framed, expected)
        except StudentError:
            raise NotReplayed(function) from None  # what it raised, the live run shows
        except SubmissionProblem as problem:
            raise NotReplayed(function, self._learn_from(problem, worker, function, module, files, calls)) from None
        finally:
            with self.replaying():
                self.sandbox.charge(max(0.0, worker.work_seconds() - started_work), time.monotonic() - started)
            self.sandbox.collect_output(worker)
        notes, worker.notes = worker.notes, []
        return [
            _watched_result(value, return_inputs, note)
            for (_, _, _, return_inputs), value, note in zip(calls, values, notes)
        ]

    def _learn_from(
        self,
        problem: SubmissionProblem,
        worker: WorkerProcess,
        function: str,
        module: str,
        files: tuple[str, ...],
        calls: list,
    ) -> bool:
        """What the watching worker's failure on ``function``'s ``calls`` says, kept; returns
        whether the function's own code failed (outside anything it called)."""
        self._not_replayable.add(function)
        importing = worker.file_being_imported()
        if importing is not None and files.index(importing) <= files.index(module):
            # Its word, and only ever about a file it may import now: that file is left out.
            self._not_imported.add(importing)
            self._not_replayable.update(self.course.functions_in(importing))
            return importing == module
        if not isinstance(problem, (CallTimedOut, WorkerCrashed)):
            return False
        index, entered, running = worker.where_it_stopped()
        self._not_watched.add(running or function)
        own = running is None and not entered
        # The results before it may not have come back (they go back together): the worker names
        # the call, which cannot be one that answered.
        stopped = max(len(worker.notes), min(index, len(calls) - 1))
        # A batch past its deadline names no call that took longer than its own (``call_batch``).
        timed_out = isinstance(problem, CallTimedOut) and not isinstance(problem, BatchPastItsDeadline)
        if timed_out and own and stopped < len(calls):
            _, args, kwargs, _ = calls[stopped]
            self.sandbox.seed_timeout(function, args, kwargs, problem.message)
        return own

    def evidence(self, function: str, want: list[tuple[int, int]]) -> list:
        """The arguments and results of the watched calls ``want`` names, from the watching worker
        that answered ``function``'s last message: [(args, kwargs), result] each."""
        worker = self._watcher
        if worker is None or not worker.alive:
            raise NotReplayed(function)
        try:
            with self.replaying(), self.sandbox.working(worker):
                return worker.evidence(want)
        except SubmissionProblem:
            self._not_replayable.add(function)
            raise NotReplayed(function) from None

    def _watching_worker(self, function: str, files: tuple[str, ...]) -> WorkerProcess:
        """The submission's one watching worker, for every file of ``files`` (in course order),
        started again after a timeout or crash, without the files whose import did that."""
        if self._watcher is None or not self._watcher.alive:
            staged = self.sandbox.staged_submission()
            self.sandbox.room_for_a_worker()
            served = [f for module in files for f in self.course.functions_in(module)]
            serves = tuple(f for f in served if f not in self._not_replayable)
            if function not in serves:
                raise NotReplayed(function)
            watching = Watching(
                serves,
                {f: list(self.course.depends_on(f)) for f in serves},
                frozenset(self._not_watched),
                frozenset(self._not_imported),
            )
            needs = tuple(
                dict.fromkeys(
                    n for module in files if module not in self._not_imported for n in self.course.needs_of(module)
                )
            )
            try:
                worker = WorkerProcess(
                    self.sandbox.server,
                    staged,
                    files[-1],
                    function,
                    {m: self.course.functions_in(m) for m in files},
                    self.sandbox.limits,
                    None,
                    needs,
                    watching,
                )
            except SubmissionProblem:
                self._not_replayable.update(served)
                raise NotReplayed(function) from None
            # The sandbox backend stops it with the submission's other processes.
            self._watcher = self.sandbox.adopt(worker)
        return self._watcher

    def fresh_processes(self) -> None:
        """Nothing the submission's code ran so far may go on: the next call starts afresh."""
        self._watcher = None
        self.sandbox.fresh_processes()

    def end(self) -> None:
        """The replay is over and tests will run live: nothing it started may go on, and the live
        run starts afresh, as one submission alone does, with what the replay learnt of timeouts
        and imports."""
        self.fresh_processes()

    def close(self) -> None:
        """The sandbox backend is the live run's: it is closed with the grading, not here."""


def _watched_result(value, return_inputs: bool, nested: list | None) -> WatchedResult:
    if return_inputs:
        value, *inputs_after = value
        return WatchedResult(value, None, tuple(inputs_after), nested)
    return WatchedResult(value, None, None, nested)
