"""The reference's recorded run of the hidden suite: plain, picklable data and nothing else.

A ``Script`` is made once per class (``recording``) and kept beside the results
(``kept``). It lives in the trusted grader only: a worker is sent the inputs of
the calls it is asked, when it is asked them, never the script.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from attnlab.results import TestResult


@dataclass(frozen=True)
class ScriptedCall:
    """One call a hidden test made of a student function, and what the reference gave back."""

    function: str
    args: tuple
    kwargs: dict
    return_inputs: bool
    value: object
    inputs_after: tuple | None
    memory_budget: int | None = None
    """The peak (bytes) the test allowed this call, when it measured memory: the replayed call
    passes only when its own peak is within it too."""
    float32_inputs: bool = False
    """Some argument is a float32 array: hidden tests then compare at float32's tolerance."""
    raises: str | None = None
    """The type of the exception the reference raised (a refusal the test asks for, such as
    ``ValueError``); ``value`` is then None. A replay passes such a call only on the same type
    raised, and the test only once its function's earlier tests passed (``replaying.Replay``)."""


@dataclass
class ScriptedTest:
    """One hidden test as the reference went through it."""

    nodeid: str
    calls: list[ScriptedCall] = field(default_factory=list)
    replayable: bool = True
    """False when a call measured memory with no stated budget, or the reference's call timed out
    or crashed: such a test always runs live."""
    result: TestResult | None = None
    """The reference's own (passing) result: name, function, file and points."""


@dataclass
class Script:
    """The hidden suite as the reference went through it, in the suite's order."""

    tests: list[ScriptedTest]
