"""How a test can end, and the exceptions that carry a submission's problems to the test.

A problem with the submission itself (not implemented, timed out, crashed,
out of memory, unimportable) is a ``SubmissionProblem``. It derives from
``BaseException`` on purpose: hypothesis shrinks and replays ordinary
exceptions, and replaying a function that timed out would cost a deadline per
replay. An exception the student's code raised on some input is a
``StudentError``, an ordinary ``Exception``, so hypothesis does shrink it to
the smallest input that triggers it.
"""

from __future__ import annotations

import enum


class Outcome(str, enum.Enum):
    """The named ways a test ends, in words a student understands."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_IMPLEMENTED = "not implemented"
    TIMED_OUT = "timed out"
    OUT_OF_MEMORY = "out of memory"
    CRASHED = "crashed"
    ERROR = "error"


class SubmissionProblem(BaseException):
    """The submission could not answer a call at all; ``outcome`` names how."""

    outcome = Outcome.ERROR

    def __init__(self, message: str, function: str | None = None):
        super().__init__(message)
        self.message = message
        self.function = function
        """The contract function whose call ended this way, when it is known."""


class NotImplementedYet(SubmissionProblem):
    outcome = Outcome.NOT_IMPLEMENTED


class CallTimedOut(SubmissionProblem):
    outcome = Outcome.TIMED_OUT


class OutOfMemory(SubmissionProblem):
    outcome = Outcome.OUT_OF_MEMORY


class WorkerCrashed(SubmissionProblem):
    outcome = Outcome.CRASHED


class ImportFailed(SubmissionProblem):
    outcome = Outcome.ERROR


class BadReturn(SubmissionProblem):
    """The function returned something that is not plain data (or the channel was abused)."""

    outcome = Outcome.ERROR


class StudentError(Exception):
    """The student's function raised on this input; the message has their frames only."""

    def __init__(self, message: str, function: str | None = None, error_type: str | None = None):
        super().__init__(message)
        self.message = message
        self.function = function
        """The contract function whose call ended this way, when it is known."""
        self.error_type = error_type
        """The name of the exception the student's code raised (``RuntimeError``), when known."""


class GraderFailure(Exception):
    """The grader or its sandbox failed, not the submission (a worker that could not start, a
    reference that fails its own tests): no grade may be recorded for what it touched. The
    message is one line that says why."""
