"""What may travel together to a submission's processes: calls in one message, messages in one life.

A process may hold only what it is given, the inputs of the calls it is asked, and the
processes of one submission could pass that between them while they live; so no call may be
sent while they hold an input that carries the answer to it. Within a test, a call whose input
carries an answer given earlier in the same message goes in a later message
(``split_messages``); across tests and functions, the replay starts the processes afresh before
a message that asks for an answer given earlier (``fresh_starts``; the bundled course needs
none, and a test proves it). An answer that only moves its own input's entries around
(``merge_heads`` of one head) is no secret, and a tiny or constant array (a count, an all-True
mask) says nothing.
"""

from __future__ import annotations

import hashlib

import numpy as np

from attnlab import wire
from attnlab.replay.script import ScriptedCall

# Arrays of at most this many items are too small to carry a secret answer.
TINY = 4


def leaf_digests(value) -> set[bytes]:
    """A digest of every array and scalar in a plain value."""
    return {_digest(leaf) for leaf in _leaves(value)}


def split_messages(calls: list[ScriptedCall]) -> list[list[ScriptedCall]]:
    """A test's calls grouped in the messages they are sent in: consecutive calls of one function,
    but a memory-measured call alone, and a new message wherever a call's inputs hold a value a
    call of the message answered."""
    messages: list[list[ScriptedCall]] = []
    answered: set[bytes] = set()
    for call in calls:
        inputs = leaf_digests((call.args, call.kwargs))
        alone = call.memory_budget is not None
        if (
            not messages
            or alone
            or messages[-1][0].memory_budget is not None
            or messages[-1][0].function != call.function
            or inputs & answered
        ):
            messages.append([])
            answered = set()
        messages[-1].append(call)
        answered |= leaf_digests(call.value) - inputs
    return messages


def secret_answers(call: ScriptedCall) -> set[bytes]:
    """Digests of the arrays of ``call``'s answer that are neither tiny nor its input's entries
    moved around."""
    moved = {_sorted(leaf) for leaf in _leaves((call.args, call.kwargs)) if isinstance(leaf, np.ndarray)}
    return {
        _digest(leaf)
        for leaf in _leaves(call.value)
        if isinstance(leaf, np.ndarray) and leaf.size > TINY and not _constant(leaf) and _sorted(leaf) not in moved
    }


def _constant(array: np.ndarray) -> bool:
    """Every entry the same (an all-True mask): it says nothing its shape does not."""
    flat = array.reshape(-1)
    return bool((flat == flat[0]).all())


def fresh_starts(messages: list[tuple[str, list[ScriptedCall]]]) -> set[int]:
    """The places, among the ``(node id, calls)`` messages in the order the replay sends them,
    before which it must start the submission's processes afresh: where a call asks for an
    answer that a message since the last fresh start gave as an input to another function, or in
    another test (a chain within one test is sent the answer only after it gave it)."""
    starts: set[int] = set()
    given: dict[bytes, set[tuple[str, str]]] = {}
    for place, (nodeid, calls) in enumerate(messages):
        if any(
            given.get(digest, set()) - {(call.function, nodeid)} for call in calls for digest in secret_answers(call)
        ):
            starts.add(place)
            given = {}
        for call in calls:
            for leaf in _leaves((call.args, call.kwargs)):
                if isinstance(leaf, np.ndarray) and leaf.size > TINY and not _constant(leaf):
                    given.setdefault(_digest(leaf), set()).add((call.function, nodeid))
    return starts


def _leaves(value):
    return (leaf for leaf in wire.leaves(value) if leaf is not None)


def _digest(leaf) -> bytes:
    if isinstance(leaf, np.ndarray):
        data = f"{leaf.dtype.str}{leaf.shape}".encode() + np.ascontiguousarray(leaf).tobytes()
    else:
        data = repr(leaf).encode()
    return hashlib.blake2b(data, digest_size=16).digest()


def _sorted(array: np.ndarray) -> bytes:
    return array.dtype.str.encode() + np.sort(array, axis=None).tobytes()
