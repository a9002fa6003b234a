"""Checking a watching worker's nested calls against the reference, for a whole class.

A live run answers a function's calls of earlier files and of its declared
dependencies with the reference (stand-ins). The fast path runs the student's
own code for them instead, and the worker names each such call by a digest of
its arguments and of its result. The test's verdict is the live one only when
every such result is the reference's on the same arguments: then the function
under test saw what a live run would have given it.

``NestedChecks`` keeps, for the class, the reference's result digest for each
(function, arguments) it has worked out, and the (function, arguments, result)
triples it has accepted; a digest it does not know is settled by asking the
worker for the values behind it (``evidence``), checking they are what the
digests say, and running the reference on them, within the bounds of the call
being graded. Only digests computed here go into its tables.
"""

from __future__ import annotations

from attnlab import wire
from attnlab.replay.backend import NotReplayed
from attnlab.replay.compare import has_float32, same_behaviour
from attnlab.sandbox.standins import StandinBounds

# Entries the class's tables may hold (a digest pair each, about 200 bytes), and how many one
# submission may add: its made-up but right nested calls must not fill the grader's memory.
MAX_ENTRIES = 200_000
MAX_ADDED_PER_SUBMISSION = 2_000
# Nested calls a graded call may claim, and values the grader works out per message: past them,
# the test runs live (a correct submission makes tens).
MAX_NOTES_PER_CALL = 256
MAX_EVIDENCE_PER_MESSAGE = 512


class NestedChecks:
    """What the class has learnt of the reference's answers to nested calls, by digest."""

    def __init__(self, reference):
        self.reference = reference
        self.answers: dict[tuple[str, str], str] = {}
        """(function, digest of its arguments) -> digest of the reference's result."""
        self.accepted: set[tuple[str, str, str]] = set()
        """(function, arguments, result) digests of results judged the same behaviour as the reference's."""
        self.added = 0
        """Entries the submission being graded added to the tables (``new_submission`` resets it)."""

    def new_submission(self) -> None:
        self.added = 0

    def hold(self, function: str, calls: list[tuple[str, tuple, dict, bool]], results: list, backend) -> bool:
        """Are the nested results of ``function``'s ``calls`` (just answered by ``backend``'s
        watching worker, with ``results``) all the reference's? Asks the worker for what it must."""
        want: list[tuple[int, int]] = []
        for index, result in enumerate(results):
            if len(result.nested or ()) > MAX_NOTES_PER_CALL:
                return False
            for place, note in enumerate(result.nested or ()):
                if not (isinstance(note, list) and len(note) == 3 and all(isinstance(n, str) for n in note)):
                    return False  # it raised, was missing, or could not be sent: live decides
                name, arguments, answer = note
                if (name, arguments, answer) in self.accepted or self.answers.get((name, arguments)) == answer:
                    continue
                want.append((index, place))
        if not want:
            return True
        if len(want) > MAX_EVIDENCE_PER_MESSAGE:
            return False
        try:
            evidence = backend.evidence(function, want)
        except NotReplayed:
            return False
        allowed = self.reference.allowed_for(function)
        with backend.charging():
            for (index, place), item in zip(want, evidence):
                if not self._holds(results[index].nested[place], item, calls[index], allowed):
                    return False
        return True

    def _holds(self, note: list, item, call: tuple, allowed: set) -> bool:
        name, arguments, answer = note
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], tuple) and len(item[0]) == 2):
            return False
        (args, kwargs), got = item
        if not (isinstance(args, tuple) and isinstance(kwargs, dict)):
            return False
        # The worker's digests are its word: they must describe the values it sent.
        if wire.fingerprint((args, kwargs)) != arguments or wire.fingerprint(got) != answer:
            return False
        _, graded_args, graded_kwargs, _ = call
        buffers: list = []
        if StandinBounds(graded_args, graded_kwargs).refusal(name, wire.encode((args, kwargs), buffers)) is not None:
            return False
        module = self.reference.course.function(name).module
        try:
            expected = self.reference.answer(module, name, args, kwargs, allowed)
            expected_digest = wire.fingerprint(expected)
        except Exception:  # noqa: BLE001 - the reference refuses these arguments: live decides
            return False
        room = len(self.answers) < MAX_ENTRIES and self.added < MAX_ADDED_PER_SUBMISSION
        if room:
            self.answers[(name, arguments)] = expected_digest
            self.added += 1
        if expected_digest == answer or same_behaviour(got, expected, has_float32((args, kwargs))):
            if room and len(self.accepted) < MAX_ENTRIES:
                self.accepted.add((name, arguments, answer))
                self.added += 1
            return True
        return False
