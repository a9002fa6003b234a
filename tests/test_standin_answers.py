"""A worker asks the grader once for each distinct stand-in call: the same call again is answered
from what the grader sent, as fresh arrays, never a refusal kept, and never in a memory-measured
worker (whose memory is the student's)."""

import socket
import threading

import numpy as np

from attnlab import wire
from attnlab.sandbox.inside.worker import StandinAnswers, Worker


def grader_side(channel, replies):
    """Answer each stand-in call with the next of ``replies`` (a header and a value); return what was asked."""
    asked = []

    def serve():
        for header, value in replies:
            asked.append(wire.receive(channel)[0]["function"])
            buffers: list = []
            wire.send(
                channel, {**header, "value": wire.encode(value, buffers)} if value is not None else header, buffers
            )

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return asked, thread


def worker_with_softmax(remember=True):
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    worker = Worker(theirs, "/nonexistent", "scores", ["attention_scores"], {"softmax": ["softmax"]}, remember=remember)
    return ours, worker.standins[("softmax", "softmax")]


def test_the_same_call_again_is_answered_without_asking_and_as_a_fresh_array():
    grader, softmax = worker_with_softmax()
    answer = np.array([[0.25, 0.75]])
    asked, thread = grader_side(grader, [({"op": "callback_result"}, answer), ({"op": "callback_result"}, answer * 0)])
    x = np.array([[1.0, 2.0]])
    first = softmax(x)
    first *= 100  # the student's own copy: changing it changes nothing kept
    again = softmax(x.copy())
    np.testing.assert_array_equal(again, answer)
    assert asked == ["softmax"]
    assert again.flags.writeable and again is not first
    other = softmax(x + 1)  # another call is asked
    thread.join(5)
    assert asked == ["softmax", "softmax"] and not other.any()


def test_a_refusal_is_asked_again_and_a_measured_worker_keeps_nothing():
    grader, softmax = worker_with_softmax()
    refused = {"op": "callback_raised", "type": "ValueError", "message": "far larger"}
    asked, thread = grader_side(grader, [(refused, None), ({"op": "callback_result"}, np.ones(2))])
    x = np.zeros(2)
    try:
        softmax(x)
        raise AssertionError("the refusal was not raised")
    except ValueError:
        pass
    np.testing.assert_array_equal(softmax(x), np.ones(2))
    thread.join(5)
    assert asked == ["softmax", "softmax"]

    grader, softmax = worker_with_softmax(remember=False)
    asked, thread = grader_side(grader, [({"op": "callback_result"}, np.ones(2))] * 2)
    softmax(x), softmax(x)
    thread.join(5)
    assert asked == ["softmax", "softmax"]


def test_what_a_worker_keeps_is_bounded():
    kept = StandinAnswers()
    big = [memoryview(bytes(StandinAnswers.MAX_ENTRY_BYTES + 1))]
    kept.add(b"big", ({"value": None}, big))
    assert kept.get(b"big") is None and kept.bytes == 0
    entry = [memoryview(bytes(StandinAnswers.MAX_ENTRY_BYTES // 2))]
    for index in range(4 * StandinAnswers.MAX_BYTES // StandinAnswers.MAX_ENTRY_BYTES):
        kept.add(bytes([index]), ({"value": None}, entry))
    assert StandinAnswers.MAX_BYTES // 2 < kept.bytes <= StandinAnswers.MAX_BYTES
