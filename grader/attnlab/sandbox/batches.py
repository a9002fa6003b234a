"""One message of several calls to a worker, and the answers it is expected to give.

``batch_message`` frames the calls; ``Expected`` is an answer encoded once, so that a result of
the same wire form is that answer without being decoded; ``BatchPastItsDeadline`` is a batch that
did not all come back within one call's deadline.
"""

from __future__ import annotations

from attnlab import wire
from attnlab.outcomes import CallTimedOut


def batch_message(calls: list[tuple[str, tuple, dict, bool]]) -> list:
    """The framed message that asks a worker for several calls at once."""
    buffers: list = []
    requests = [{"function": f, "args": wire.encode((a, kw), buffers), "return_inputs": r} for f, a, kw, r in calls]
    return wire.frame({"op": "batch", "calls": requests}, buffers)


class Expected:
    """An answer a call is expected to give, encoded once: a result whose wire form is identical
    (the same tree, the same bytes) is that answer, and need not be decoded or compared."""

    def __init__(self, value):
        self.value = value
        buffers: list = []
        # As JSON text: ``True`` is not ``1``, nor ``1`` ``1.0``, as ``==`` on trees would say.
        self.text = wire.dumps(wire.encode(value, buffers))
        self.payloads = [bytes(wire.as_bytes(b)) for b in buffers]
        self.nbytes = len(self.text) + sum(len(p) for p in self.payloads)
        """What the answer takes on the wire (``answer_room.wire_bytes``)."""

    def matches(self, tree, buffers: list) -> bool:
        return (
            len(buffers) == len(self.payloads)
            and wire.dumps(tree) == self.text
            and all(got == want for got, want in zip(buffers, self.payloads))
        )


class BatchPastItsDeadline(CallTimedOut):
    """A batch's calls did not all come back within one call's deadline: no call of it is known
    to have taken longer than its own deadline, nor known not to have (``call_batch``)."""
