"""What may travel together to a watching worker: calls in one message, functions in one worker.

A worker may hold only what it is given, the inputs of the calls it is asked; so no call may
be sent while the worker holds an input that carries the answer to it. Within a test, a call
whose input carries an answer given earlier in the same message goes in a later message
(``split_messages``); across functions, two functions of one file share a worker only when
neither was ever given an answer of the other as an input in the recorded run
(``worker_groups``). An answer that only moves its own input's entries around (``merge_heads``
of one head) is no secret, and a tiny or constant array (a count, an all-True mask) says nothing.
"""

from __future__ import annotations

import hashlib

import numpy as np

from attnlab import wire
from attnlab.course import Course
from attnlab.replay.script import Script, ScriptedCall

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
        if not messages or alone or messages[-1][0].memory_budget is not None or messages[-1][0].function != call.function or inputs & answered:
            messages.append([])
            answered = set()
        messages[-1].append(call)
        answered |= leaf_digests(call.value) - inputs
    return messages


def secret_answers(call: ScriptedCall) -> set[bytes]:
    """Digests of the arrays of ``call``'s answer that are neither tiny nor its input's entries
    moved around."""
    moved = {_sorted(leaf) for leaf in _leaves((call.args, call.kwargs)) if isinstance(leaf, np.ndarray)}
    return {_digest(leaf) for leaf in _leaves(call.value) if isinstance(leaf, np.ndarray) and leaf.size > TINY and not _constant(leaf) and _sorted(leaf) not in moved}


def _constant(array: np.ndarray) -> bool:
    """Every entry the same (an all-True mask): it says nothing its shape does not."""
    flat = array.reshape(-1)
    return bool((flat == flat[0]).all())


def given_answers(script: Script) -> dict[str, set[str]]:
    """For each function, the functions one of whose answers it was given as an input."""
    answered_by: dict[bytes, set[str]] = {}
    for test in script.tests:
        for call in test.calls:
            for digest in secret_answers(call):
                answered_by.setdefault(digest, set()).add(call.function)
    given: dict[str, set[str]] = {}
    for test in script.tests:
        for call in test.calls:
            for leaf in _leaves((call.args, call.kwargs)):
                if isinstance(leaf, np.ndarray) and leaf.size > TINY:
                    given.setdefault(call.function, set()).update(answered_by.get(_digest(leaf), set()) - {call.function})
    return given


def worker_groups(script: Script, course: Course) -> dict[str, tuple[str, ...]]:
    """Each function of the script, with the functions of its file one watching worker serves
    with it: in course order, each joins the first group none of whose members it was given an
    answer of, or that was given one of its answers."""
    given = given_answers(script)
    used = {call.function for test in script.tests for call in test.calls}
    groups: dict[str, tuple[str, ...]] = {}
    for module in course.modules:
        formed: list[list[str]] = []
        for function in (f for f in course.functions_in(module) if f in used):
            for group in formed:
                if not any(other in given.get(function, ()) or function in given.get(other, ()) for other in group):
                    group.append(function)
                    break
            else:
                formed.append([function])
        for group in formed:
            for function in group:
                groups[function] = tuple(group)
    return groups


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
