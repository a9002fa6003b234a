"""Asking a submission a hidden test's recorded calls, exactly as the test's own run asks them.

A hidden test, hypothesis derandomised, is a deterministic function of what the student's code
returns: while every answer is the reference's, the test makes the calls the reference's run
made, one after another, and passes. So a recorded test is replayed by sending those calls,
one at a time, through the very backend the test's body calls (``SandboxBackend.run``: the same
workers, stand-ins answered by the grader, deadlines and budget). Nothing the worker says about
itself is read: only each answer, judged against the reference's (``compare.same_behaviour``),
and each measured peak against the budget the test stated. A test whose calls all match passed;
any other runs its body, right after, in its place in the suite's order.
"""

from __future__ import annotations

from attnlab.grading.backends import SandboxBackend
from attnlab.grading.replay.compare import same_behaviour, same_values
from attnlab.grading.replay.script import ScriptedCall, ScriptedTest
from attnlab.outcomes import StudentError, SubmissionProblem


def decidable(test: ScriptedTest) -> bool:
    """May a replay pass ``test``? Not one the reference's run could not record whole, and not one
    that asks for a refusal: raising the exception asked for takes no computation, so only the
    test's own run, where every call is judged, may pay for it."""
    return test.replayable and test.result is not None and all(call.raises is None for call in test.calls)


def replay_test(test: ScriptedTest, backend: SandboxBackend) -> bool:
    """Ask ``backend``'s submission ``test``'s recorded calls in order; True when every answer is
    the reference's (and every measured peak within its budget). The first that is not ends the
    replay: the test's own run then makes the same calls up to there."""
    if not decidable(test):
        return False
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
            )
        except (SubmissionProblem, StudentError):
            return False  # the test's own run meets it again, and says it in its words
        if not answers_as_recorded(call, result):
            return False
    return True


def answers_as_recorded(call: ScriptedCall, result) -> bool:
    """Is ``result`` (a ``CallResult``) the reference's answer to ``call``, as no hidden test could tell apart?"""
    if call.memory_budget is not None and (result.peak_bytes is None or result.peak_bytes > call.memory_budget):
        return False
    if not same_behaviour(result.value, call.value, call.float32_inputs):
        return False
    return not call.return_inputs or same_values(result.inputs_after, call.inputs_after)
