"""Asking a submission a hidden test's recorded calls, exactly as the test's own run asks them.

A hidden test, hypothesis derandomised, is a deterministic function of what the student's code
returns: while every answer is the reference's, the test makes the calls the reference's run
made, one after another, and passes. So a recorded test is replayed by sending those calls,
one at a time, through the very backend the test's body calls (``SandboxBackend.run``: the same
workers, stand-ins answered by the grader, deadlines and budget). Nothing the worker says about
itself is read: only each answer, judged against the reference's (``compare.same_behaviour``),
and each measured peak against the budget the test stated. A test whose calls all match passed;
any other runs its body, right after, in its place in the suite's order. A test that asks for a
refusal is passed by a replay only after every earlier test of its function was (``Replay``).
"""

from __future__ import annotations

import functools

from attnlab.answer_room import wire_bytes
from attnlab.grading.backends import SandboxBackend
from attnlab.grading.replay.compare import same_behaviour, same_values
from attnlab.grading.replay.script import ScriptedCall, ScriptedTest
from attnlab.outcomes import StudentError, SubmissionProblem


class Replay:
    """One submission's replay, test after test in the suite's order.

    A test that asks for a refusal (a call the reference refuses, ``ScriptedCall.raises``) is
    passed by its replay only once every earlier test of its function was: raising the exception
    asked for takes no computation, but raising it on exactly the inputs the reference refuses,
    while answering every other input of the function as the reference does, is the validation
    the test is about. A function with a test the replay did not pass has its refusals judged by
    the tests' own runs."""

    def __init__(self, backend: SandboxBackend):
        self.backend = backend
        self._vouched: dict[str, bool] = {}
        """Per function: has the replay passed every test of it so far (and one at least)?"""

    def decidable(self, test: ScriptedTest) -> bool:
        """May the replay pass ``test`` now?"""
        if not test.replayable or test.result is None:
            return False
        refusing = {call.function for call in test.calls if call.raises is not None}
        return all(self._vouched.get(function) for function in refusing)

    def test(self, test: ScriptedTest) -> bool:
        """Replay ``test`` when it may be (``decidable``); True when it passed."""
        functions = {call.function for call in test.calls}
        passed = self.decidable(test) and replay_test(test, self.backend)
        for function in functions:
            self._vouched[function] = passed and self._vouched.get(function, True)
        return passed


def replay_test(test: ScriptedTest, backend: SandboxBackend) -> bool:
    """Ask ``backend``'s submission ``test``'s recorded calls in order; True when every answer is
    the reference's (every measured peak within its budget, every refusal the same exception's).
    The first that is not ends the replay: the test's own run then makes the same calls up to there."""
    for call in test.calls:
        try:
            result = backend.run(
                call.function,
                call.args,
                call.kwargs,
                measure_memory=call.memory_budget is not None,
                return_inputs=call.return_inputs,
                memory_budget=call.memory_budget,
                replayed=True,
                answer_bytes=None if call.raises is not None else functools.partial(recorded_answer_bytes, call),
            )
        except StudentError as raised:
            if call.raises is not None and raised.error_type == call.raises:
                continue  # refused as the reference refuses
            return False  # the test's own run meets it again, and says it in its words
        except SubmissionProblem:
            return False
        if call.raises is not None or not answers_as_recorded(call, result):
            return False
    return True


def recorded_answer_bytes(call: ScriptedCall) -> int:
    """The reference's answer to ``call`` as it crossed (with the inputs, when they were asked
    back): the room the student's answer is given, as the test's own run gives it."""
    return wire_bytes(call.value) + (wire_bytes((call.args, call.kwargs)) if call.return_inputs else 0)


def answers_as_recorded(call: ScriptedCall, result) -> bool:
    """Is ``result`` (a ``CallResult``) the reference's answer to ``call``, as no hidden test could tell apart?"""
    if call.memory_budget is not None and (result.peak_bytes is None or result.peak_bytes > call.memory_budget):
        return False
    if not same_behaviour(result.value, call.value, call.float32_inputs):
        return False
    return not call.return_inputs or same_values(result.inputs_after, call.inputs_after)
