"""The trusted side of a program worker (``attnlab.sandbox.program``): starts it, sends it
recorded calls a segment at a time, and reads their results (a few per message) under a deadline."""

from __future__ import annotations

import os
import stat
import struct
import time
from collections.abc import Iterator
from pathlib import Path

from attnlab import wire
from attnlab.outcomes import CallTimedOut, WorkerCrashed
from attnlab.sandbox.host import ForkServer, Limits, WorkerProcess
from attnlab.sandbox.program import FLUSH_SECONDS, STATE_BYTES, mark_codes


class ProgramProcess(WorkerProcess):
    """One sandboxed process running a whole submission's files as a program."""

    kind = "program"

    def __init__(self, server: ForkServer, submission: Path, limits: Limits, start: dict, known: tuple[str, set[str]] | None = None):
        self._start_message = start
        self.known = known
        """The nested results accepted so far (token, keys): the fork server is given them first."""
        codes, _ = mark_codes(start["modules"], start["contract"])
        self._functions = {code: name for name, code in codes.items()}
        self.plan = start.get("plan")
        self.import_failures: dict[str, str] = {}
        """File -> why the program could not import it (its tests run live)."""
        super().__init__(server, submission, "program", {}, limits)

    def _prepare_workdir(self) -> None:
        (self.workdir / "state").write_bytes(bytes(STATE_BYTES))

    def _await_import(self) -> None:
        try:
            wire.send(self.channel, {"op": "start", **self._start_message})
        except wire.PeerClosed:
            raise WorkerCrashed(f"the submission's program worker {self.stop()} before it was started") from None
        seconds = max(self.limits.call_seconds, 2.0)
        for module in self._start_message["modules"]:
            try:
                header, _ = wire.receive(self.channel, time.monotonic() + seconds)
            except TimeoutError:
                self.stop()
                problem = CallTimedOut(f"importing {module}.py took longer than {seconds:g} s")
                # Its own hang: an earlier file that failed to import was stubbed, not imported again.
                problem.module = module
                raise problem from None
            except (wire.PeerClosed, wire.WireError):
                raise WorkerCrashed(f"the submission's program worker {self.stop()} while importing {module}.py") from None
            if header.get("op") != "imported" or header.get("module") != module:
                self.stop()
                raise WorkerCrashed("the submission's program worker broke the protocol while importing")
            if header.get("failed") is not None:
                self.import_failures[module] = str(header["failed"])[:2000]

    def running(self) -> tuple[int, str] | None:
        """What the program marked as running: after a timeout, the index (in its segment) of the
        call and the function the time went to."""
        try:
            # The student owns that folder: never follow a link it put there (to /etc/shadow).
            fd = os.open(self.workdir / "state", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return None
                state = os.read(fd, STATE_BYTES)
            finally:
                os.close(fd)
            index, code = struct.unpack("=ii", state)
            return (index, self._functions[code]) if code in self._functions else None
        except (OSError, struct.error):
            return None

    def run(self, framed: list, count: int) -> Iterator[tuple[dict, list, float]]:
        """Send one segment of ``count`` calls; yield (header, buffers, seconds) per call. Results
        come a few per message, each message within the per-call deadline of the one before.

        Raises ``CallTimedOut`` or ``WorkerCrashed``: its ``function`` is what the program marked
        as running, its ``index`` the call's index in the message (None for both when the
        program had stopped reading before this message: no call of it ran)."""
        try:
            wire.send_framed(self.channel, framed)
        except wire.PeerClosed:
            raise WorkerCrashed(f"the submission's program worker had stopped listening to the grader, and {self.stop()}") from None
        last = time.monotonic()
        answered = 0
        while answered < count:
            try:
                # The program holds results back up to FLUSH_SECONDS: not the student's time.
                header, buffers = wire.receive(self.channel, last + self.limits.call_seconds + FLUSH_SECONDS)
            except TimeoutError:
                running = self.running()
                self.stop()
                index, function = running if running else (answered, "")
                problem = CallTimedOut(f"{function or 'a call'} did not return within {self.limits.call_seconds:g} s", function or None)
                problem.index = index
                raise problem from None
            except wire.PeerClosed:
                running = self.running()  # before stop() takes the folder away
                index, function = running if running else (answered, "")
                problem = WorkerCrashed(f"the submission's program worker {self.stop()}", function or None)
                problem.index = index
                raise problem from None
            except wire.WireError as error:
                self.stop()
                raise WorkerCrashed(f"the submission's program worker sent a malformed message: {error}") from None
            for result, arrays in _split(header, buffers, count - answered):
                answered += 1
                seconds = result.get("seconds")
                yield result, arrays, float(seconds) if isinstance(seconds, (int, float)) else 0.0
            last = time.monotonic()  # the grader's checks between messages are not the student's time


def _split(header: dict, buffers: list, most: int) -> list[tuple[dict, list]]:
    """A results message as (result, its arrays) per call; a malformed one breaks the protocol."""
    results = header.get("results")
    if header.get("op") != "results" or not isinstance(results, list) or not 0 < len(results) <= most:
        raise WorkerCrashed("the submission's program worker broke the protocol")
    parts, start = [], 0
    for result in results:
        count = result.get("buffers", 0) if isinstance(result, dict) else None
        if not isinstance(count, int) or count < 0 or start + count > len(buffers):
            raise WorkerCrashed("the submission's program worker broke the protocol")
        parts.append((result, buffers[start : start + count]))
        start += count
    return parts
