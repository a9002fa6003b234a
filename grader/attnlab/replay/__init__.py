"""Grade a class fast: record the hidden tests' calls once, replay them on each submission.

With hypothesis derandomised, a hidden test is a deterministic function of what
the student's code returns. A submission that returns what the reference
returned, call for call, walks through exactly the run the reference walked
through, and passes. So a class run first runs the hidden suite once against
the reference and records every call it made of a student function
(``recording``). Each submission is then asked those calls, in the suite's
order, a test's calls of one function in one message, by one watching worker
(``sandbox.inside.watching_worker``) that runs the student's own code
throughout and names, by digests, each nested call a live run would have
answered with the reference; those must be the reference's (``nested``). A
test whose every value matches ("the same behaviour", ``compare``: far tighter
than any test's tolerance) passes without running pytest; one whose nested
calls do not hold is asked again of live workers (the reference answering
their stand-ins). Every other test runs live, so feedback and misconception
naming are unchanged.

What the untrusted side receives is the inputs of the calls it is asked now, and
nothing of the reference: a call whose input holds an answer given earlier in
the same message is sent after that answer came back, and the submission's
processes start afresh before any message that asks for an answer they were
given (``grouping``).

Modules: ``script`` (the recording as plain data), ``recording`` (making it),
``kept`` (keeping it beside the results), ``compare`` (the same behaviour),
``grouping`` (what may travel together), ``backend`` (the watching worker and
the replay's own budget, over the live run's sandbox backend), ``nested``
(checking the watched calls against the reference), and here the replay and
the ``ClassSession`` a class run shares.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from attnlab.grading.backends import SandboxBackend
from attnlab.course import Course
from attnlab.grading.suite import grade
from attnlab.outcomes import StudentError, SubmissionProblem
from attnlab.reference import Reference
from attnlab.replay.backend import NotReplayed, WatchingBackend
from attnlab.replay.compare import same_behaviour, same_values
from attnlab.replay.grouping import fresh_starts, split_messages
from attnlab.replay.nested import NestedChecks
from attnlab.replay.script import Script, ScriptedCall, ScriptedTest
from attnlab.results import GradeReport, TestResult
from attnlab.sandbox.environment import SandboxEnvironment
from attnlab.sandbox.host import ForkServer, Limits
from attnlab.sandbox.standins import AnswerCache
from attnlab.sandbox.batches import Expected, batch_message


@dataclass
class _Message:
    """Calls of one function a test makes in a row, sent together; or one memory-measured call."""

    calls: list[ScriptedCall]
    framed: list | None
    """The calls as one message (None for a memory-measured call, which goes alone)."""
    expected: list[Expected] | None = None
    """The recorded answers as they travel (with the inputs after the call, where asked)."""


def messages_of(test: ScriptedTest) -> list[_Message]:
    """A test's calls in the messages they are sent in (``grouping.split_messages``)."""
    return [_message(calls) for calls in split_messages(test.calls)]


def _message(calls: list[ScriptedCall]) -> _Message:
    if calls[0].memory_budget is not None:
        return _Message(calls, None)
    framed = batch_message([(c.function, c.args, c.kwargs, c.return_inputs) for c in calls])
    return _Message(
        calls, framed, [Expected((c.value, *c.inputs_after) if c.return_inputs else c.value) for c in calls]
    )


class Replayer:
    """Replays a script on submissions, one after another; keeps each test's messages, framed
    once for the class."""

    def __init__(self, script: Script, reference: Reference):
        self.script = script
        self.nested = NestedChecks(reference)
        self._messages = {test.nodeid: messages_of(test) for test in script.tests}
        in_order = [(test.nodeid, message.calls) for test in script.tests for message in self._messages[test.nodeid]]
        starts = fresh_starts(in_order)
        places = iter(range(len(in_order)))
        self._fresh = {
            id(message) for test in script.tests for message in self._messages[test.nodeid] if next(places) in starts
        }
        """The messages before which the submission's processes start afresh (``fresh_starts``)."""
        course = reference.course
        self._modules = course.modules
        self._files_for = {
            test.nodeid: max(
                (course.modules.index(course.function(c.function).module) + 1 for c in test.calls), default=0
            )
            for test in script.tests
        }
        """For each test, how many files (in course order) a worker needs to answer its calls."""
        self._standins = {
            f.name: {name for names in course.standins_for(f.name).values() for name in names} for f in course.functions
        }
        """For each function, the functions a live worker serving it has the reference answer."""

    def decide(self, sandbox: SandboxBackend, test_files: list[Path]) -> tuple[list[str], dict[str, TestResult]]:
        """The tests of ``test_files`` in suite order, and those the replay passed (the rest run
        live, in ``sandbox``, which the replay leaves as a submission alone starts)."""
        backend = WatchingBackend(sandbox)
        prefixes = tuple(f"{f.name}::" for f in test_files)
        chosen = [t for t in self.script.tests if t.nodeid.startswith(prefixes)]
        passed: dict[str, TestResult] = {}
        self._sent = False
        self._stood_in: set[str] = set()
        self._pending: set[str] = set()
        """Functions with a test the replay did not pass, so far: their tests run live, later."""
        self.nested.new_submission()
        # One watching worker replays the submission: it imports every file up to the last asked.
        self._files = tuple(self._modules[: max((self._files_for[t.nodeid] for t in chosen), default=0)])
        with backend.replaying():
            for test in chosen:
                self._decide_test(test, backend, passed)
        if len(passed) < len(chosen):
            backend.end()
        return [t.nodeid for t in chosen], passed

    def _decide_test(self, test: ScriptedTest, backend: WatchingBackend, passed: dict[str, TestResult]) -> None:
        """Replay ``test``; put its result in ``passed`` when the replay passed it."""
        if any(c.raises is not None for c in test.calls):
            # A refusal is one exception type, which code that can tell the replay asks it (its
            # worker's frames, a message of one call) gives for the asking: a live run decides it.
            return
        functions = {c.function for c in test.calls}
        if not test.replayable or test.result is None or not all(backend.replayable(f) for f in functions):
            self._pending |= functions
            return
        started, charged = time.perf_counter(), backend.charged()
        verdict = self._replay_test(test, backend, watching=True)
        if verdict is _DEPENDENCIES and not self._awaits_live(functions):
            backend.take_output()
            verdict = self._replay_test(test, backend, watching=False)
        if verdict is _PASSED:
            duration = round(time.perf_counter() - started, 4)
            work, wall = (now - before for now, before in zip(backend.charged(), charged))
            backend.count_as_live(work, wall)
            passed[test.nodeid] = TestResult(
                **{**vars(test.result), "output": backend.take_output(), "duration": duration}
            )
        else:
            self._pending |= functions
            backend.take_output()  # the live run prints again

    def _awaits_live(self, functions: set[str]) -> bool:
        """Would a live worker for one of ``functions`` (the reference answering its stand-ins)
        come before the live run of an earlier test of what those stand-ins answer? Alone, a
        stand-in is never answered before the tests of its function ran; what a process learns
        can outlive it (the kernel's page cache can carry bits), so here neither."""
        return any(self._standins[f] & self._pending for f in functions)

    def _replay_test(self, test: ScriptedTest, backend: WatchingBackend, watching: bool) -> object:
        """Ask ``test``'s recorded calls: in watching workers (the student's own code throughout),
        or (not ``watching``) in the live run's workers, whose stand-ins the reference answers.
        ``_PASSED``; ``_OWN`` when the function under test itself answered otherwise; or, from a
        watching worker, ``_DEPENDENCIES`` when what it called may be to blame, which the live
        run's workers (the reference's answers for those calls) then decide."""
        for message in self._messages[test.nodeid]:
            function = message.calls[0].function
            if self._sent and (id(message) in self._fresh or function in self._stood_in):
                backend.fresh_processes()
                self._stood_in = set()
            self._sent = True
            if message.framed is None or not watching:
                # A live worker: the reference answers its stand-ins, whatever it asks within
                # bounds. No later message may ask one of those while it (or what it told the
                # submission's other processes) lives.
                self._stood_in |= self._standins[function]
            calls = [(c.function, c.args, c.kwargs, c.return_inputs) for c in message.calls]
            try:
                if message.framed is None:
                    if self._awaits_live({function}):
                        return _OWN
                    call = message.calls[0]
                    result = backend.run(
                        call.function, call.args, call.kwargs, measure_memory=True, return_inputs=call.return_inputs
                    )
                    if result.peak_bytes > call.memory_budget or not self._same(call, result):
                        return _OWN
                    continue
                if watching:
                    results = backend.watch_batch(calls, message.framed, message.expected, self._files)
                else:
                    results = backend.run_batch(calls, message.framed, message.expected)
            except NotReplayed as problem:
                return _OWN if problem.own else _DEPENDENCIES
            except (SubmissionProblem, StudentError):
                return _DEPENDENCIES if watching else _OWN
            answered = all(self._same(call, result) for call, result in zip(message.calls, results))
            if not watching:
                if not answered:
                    return _OWN
                continue
            if not self.nested.hold(message.calls[0].function, calls, results, backend):
                return _DEPENDENCIES
            if not answered:
                return _OWN  # everything it called answered as the reference does: its own answer differs
        return _PASSED

    @staticmethod
    def _same(call: ScriptedCall, result) -> bool:
        if result.value is call.value:
            return True  # identical on the wire to the recorded answer
        if not same_behaviour(result.value, call.value, call.float32_inputs):
            return False
        return not call.return_inputs or same_values(result.inputs_after, call.inputs_after)


# What replaying a test found.
_PASSED, _OWN, _DEPENDENCIES = object(), object(), object()


@dataclass
class ClassSession:
    """What the grading of a class shares: the course, the reference, its recorded run, the
    limits; and, per grading process (``start``), a fork server and the reference's answers to
    stand-in calls."""

    course: Course
    reference: Reference
    script: Script
    limits: Limits
    only: list[str] | None = None
    fork_server: ForkServer | None = None
    answer_cache: AnswerCache = field(default_factory=AnswerCache)
    replayer: Replayer = field(init=False)

    def __post_init__(self):
        self.replayer = Replayer(self.script, self.reference)

    def start(self) -> None:
        """In a grading process: its own fork server (a sandbox per grading process)."""
        self.fork_server = ForkServer(SandboxEnvironment.for_course(self.course))
        self.answer_cache = AnswerCache()

    def grade(self, submission: Path, only: list[str] | None = None) -> GradeReport:
        """Grade one staged submission on ``only`` these files (default: the class's): the replay
        first, then the tests it did not pass, live."""
        return grade(
            self.course,
            submission,
            only=only or self.only,
            limits=self.limits,
            fork_server=self.fork_server,
            reference=self.reference,
            answer_cache=self.answer_cache,
            decide=self.replayer.decide,
        )

    def close(self) -> None:
        if self.fork_server is not None:
            self.fork_server.close()
            self.fork_server = None
