"""One worker of a submission, as the trusted side sees it: ``WorkerProcess``.

A ``WorkerProcess`` is a worker the fork server (``host``) forked to serve some functions of a
submission file (those that lean on the same stand-ins). It crosses calls over a socket with a deadline, one at a time, answers the
worker's requests for reference results (bounded by the call being graded, ``standins``, and
charged to its deadline), and on a timeout or crash kills the worker's whole process group and
says what happened in words a student understands.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import socket
import struct
import tempfile
import time
from pathlib import Path
from typing import Callable

from attnlab import wire
from attnlab.answer_room import (
    AnswerRoom,
    AnswerTooLarge,
)
from attnlab.outcomes import (
    BadReturn,
    CallTimedOut,
    GraderFailure,
    ImportFailed,
    NotImplementedYet,
    OutOfMemory,
    StudentError,
    WorkerCrashed,
)
from attnlab.sandbox.deadlines import CpuMeter, Deadline
from attnlab.sandbox.host import ForkServer
from attnlab.sandbox.inside.worker import LEFT_A_THREAD
from attnlab.sandbox.limits import Limits
from attnlab.sandbox.mode import SandboxMode
from attnlab.sandbox.standins import AnswerCache, StandinBounds

HELLO_SECONDS = 10.0

_UCRED = struct.Struct("iII")  # struct ucred: pid, uid, gid


_SIGNAL_WORDS = {
    signal.SIGSEGV: "a segmentation fault",
    signal.SIGBUS: "a bus error",
    signal.SIGABRT: "an abort",
    signal.SIGFPE: "a floating-point exception",
    signal.SIGXCPU: "the CPU-time limit",
}


def _problem_message(header: dict, mode: SandboxMode) -> str:
    where = "".join(f"\n    {frame}" for frame in header.get("frames", []))
    message = mode.explain_problem(str(header.get("message", "")))
    return f"{header.get('type', 'Error')}: {message}{where}"


def _with_inputs(value, given: tuple | None) -> bool:
    """A result with the arguments as the call left them: (result, args, kwargs), as many args as
    were ``given`` (args, kwargs) and a dict of the same keywords, as the worker sends them
    (anything else its code made up: an empty list of args would leave a test nothing to compare)."""
    if not (isinstance(value, tuple) and len(value) == 3):
        return False
    args, kwargs = value[1], value[2]
    if not (isinstance(args, (tuple, list)) and isinstance(kwargs, dict)):
        return False
    return given is None or (len(args) == len(given[0]) and kwargs.keys() == given[1].keys())


class WorkerProcess:
    """One worker serving some functions of a submission file, all with the same stand-ins."""

    def __init__(
        self,
        server: ForkServer,
        staged: Path,
        module: str,
        serves: tuple[str, ...],
        standins: dict,
        limits: Limits,
        answer_cache: AnswerCache | None = None,
        needs: tuple[str, ...] = (),
        import_answers: Callable | None = None,
        measured: bool = False,
    ):
        """``staged``: the submission as ``ForkServer.stage`` copied it. ``import_answers``: the
        callback that answers the stand-in calls the file makes while it is imported.
        ``measured``: a worker for one memory-measured call (``measured_peak``)."""
        self.measured = measured
        self.server, self.module, self.limits = server, module, limits
        self.serves = tuple(serves)
        """The functions it may be asked (every one may use all its stand-ins)."""
        self.function = self.serves[0]
        self.answer_cache = answer_cache
        """Reference answers to stand-in calls, shared by the workers of a class (None: no caching)."""
        try:
            self.workdir = server.workdir()
            self._output = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]  # stdout, stderr
        except OSError as error:  # a full or missing temporary folder: the grader's, not the student's
            raise server.fail(
                f"the sandbox could not prepare a worker's folder for {module}.py: {error.strerror or error}"
            ) from None
        self._output_read = [0, 0]
        self.charged = 0.0
        """Seconds the grader spent on this worker's behalf (its stand-ins' answers)."""
        self.alive = True
        self.channel, theirs = socket.socketpair()
        self.channel.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        try:
            self.server_pid = server.spawn(
                self.workdir,
                staged,
                module,
                self.serves,
                standins,
                limits,
                [theirs.fileno(), *(f.fileno() for f in self._output)],
                needs,
                measured,
            )
            """The worker's pid as the fork server sees it (in the sandbox's pid namespace), for reaping."""
        finally:
            theirs.close()
        self.pid = self.server_pid
        """The worker's pid as this process sees it, for signals and /proc."""
        self._await_hello()
        self._await_import(import_answers)

    def _await_hello(self) -> None:
        """Read the worker's first message, sent before any student code ran, and the pid the
        kernel attached to it: the worker's pid in this process's namespace."""
        # Not the student's time (none of its code runs before): generous, so a loaded machine is not a failure.
        if select.select([self.channel], [], [], max(self.limits.call_seconds, HELLO_SECONDS))[0]:
            data, ancillary, _flags, _address = self.channel.recvmsg(5, socket.CMSG_SPACE(_UCRED.size))
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and data == b"hello":
                    self.pid = _UCRED.unpack(payload[: _UCRED.size])[0]
                    self._admit_to_slot()
                    return
        if self.server.sandbox_mode.bwrap:
            # Its pid as seen here is unknown (the server's is another namespace's, maybe a host
            # process's): the worker goes with the sandbox, started afresh.
            self.alive = False
            self.channel.close()
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.server.restart()
        else:
            self.stop()
        # No code of the submission ran before that message: the sandbox failed, not the student.
        raise self.server.fail(
            f"the sandbox could not start a worker for {self.module}.py (it ended before any of the submission's code ran)"
        )

    def _admit_to_slot(self) -> None:
        """The worker said hello and waits: put it in the slot's groups, note what it holds before
        anything of the submission runs, and let it go on."""
        try:
            self.server.admit(self.pid, self.measured)
            self.meter = CpuMeter(self.pid)
            self._resident_at_start = _proc_status_bytes(self.pid, "VmRSS") if self.measured else 0
            self.channel.sendall(b"g")
        except GraderFailure:
            self.stop()
            raise
        except (OSError, RuntimeError):
            self.stop()  # gone between its hello and the grader's word: nothing of the submission ran
            raise self.server.fail(
                f"the sandbox could not start a worker for {self.module}.py (it ended before any of the submission's code ran)"
            ) from None

    def _await_import(self, answer_callback: Callable | None) -> None:
        """Wait for the import of the worker's file, answering the stand-in calls it makes at
        module level (``StandinBounds.for_import``), all within an import's deadline."""
        deadline = self.deadline(max(self.limits.call_seconds, 2.0))
        bounds = StandinBounds.for_import()
        while True:
            try:
                header, buffers = wire.receive(self.channel, deadline)
            except TimeoutError:
                self.stop()
                raise CallTimedOut(f"importing {self.module}.py took longer than {deadline.words()}") from None
            except (wire.PeerClosed, wire.WireError):
                raise ImportFailed(
                    f"{self.module}.py could not be imported: the worker {self.stop()} while importing it"
                ) from None
            op = header.get("op")
            if op == "callback" and answer_callback is not None:
                try:
                    self._answer_callback(header, buffers, answer_callback, self.function, bounds, deadline)
                except TimeoutError:
                    self.stop()
                    raise CallTimedOut(f"importing {self.module}.py took longer than {deadline.words()}") from None
                continue
            if op == "import_failed":
                self.stop()
                raise ImportFailed(
                    f"{self.module}.py could not be imported: {_problem_message(header, self.server.sandbox_mode)}"
                )
            if op != "ready":
                self.stop()
                raise ImportFailed(
                    f"{self.module}.py could not be imported: the worker broke the protocol (sent {str(op)[:40]!r})"
                )
            return

    def call(
        self,
        function: str,
        args: tuple,
        kwargs: dict,
        answer_callback: Callable[[str, str, tuple, dict], object],
        return_inputs: bool = False,
        room: AnswerRoom | None = None,
    ):
        """Run ``function(*args, **kwargs)`` in the worker and return its plain-data result
        (with ``return_inputs``: the triple result, args, kwargs as the call left them). An
        answer past its ``room`` is refused, unread (``BadReturn``, the worker stopped)."""
        buffers: list = []
        request = {
            "op": "call",
            "function": function,
            "args": wire.encode((args, kwargs), buffers),
            "return_inputs": return_inputs,
        }
        deadline = self.deadline()  # one for the call: sending it, its stand-ins, its answer
        self._send(wire.frame(request, buffers), function, deadline)
        bounds = StandinBounds(args, kwargs)
        admit = self._answer_admission(room)
        return self._await_result(
            function, return_inputs, answer_callback, bounds, deadline, admit=admit, given=(args, kwargs)
        )

    def _send(self, framed: list, function: str, deadline: Deadline) -> None:
        """Send a call of ``function``. A worker that stopped
        reading (its code shut the line to the grader) or is gone is a crash, as on the way back."""
        try:
            wire.send_framed(self.channel, framed, deadline)
        except wire.PeerClosed:
            # How the worker then ended is a race with its own exit, not worth a different message.
            self.stop()
            raise WorkerCrashed(
                f"{function} could not be called: the worker for {self.module}.py had stopped listening to the grader, so it was stopped",
                function,
            ) from None
        except TimeoutError:
            self.stop()
            raise CallTimedOut(
                f"{function} could not be called: the worker for {self.module}.py did not read its call within {deadline.words()}",
                function,
            ) from None

    def _answer_admission(self, room: AnswerRoom | None):
        """What ``wire.receive`` asks of a message before reading its data: a result past its
        ``room`` raises ``AnswerTooLarge``."""
        if room is None:
            return None

        def admit(header: dict, nbytes: int) -> None:
            if header.get("op") != "result":
                return
            refusal = room.refusal(nbytes)
            if refusal is not None:
                raise AnswerTooLarge(refusal)

        return admit

    def _await_result(
        self,
        function: str,
        return_inputs: bool,
        answer_callback,
        bounds: StandinBounds,
        deadline: "Deadline | None" = None,
        admit: Callable | None = None,
        given: tuple | None = None,
    ):
        # The reference's time on stand-in calls counts against the call's deadline: it is work the
        # grader does on the student's behalf, and a loop of them must not cost more than the call.
        deadline = deadline or self.deadline()
        while True:
            try:
                header, buffers = wire.receive(self.channel, deadline, admit)
                op = header.get("op")
                if op == "callback":
                    self._answer_callback(header, buffers, answer_callback, function, bounds, deadline)
                    continue
                if op == "result":
                    value = wire.decode(header.get("value"), buffers)
                    if return_inputs and not _with_inputs(value, given):
                        raise wire.WireError("a result without the inputs that were asked for")
                    return value
            except TimeoutError:
                self.stop()
                raise CallTimedOut(f"{function} did not return within {deadline.words()}", function) from None
            except wire.PeerClosed:
                raise WorkerCrashed(f"{function} crashed the worker: it {self.stop()}") from None
            except wire.WireError as error:
                self.stop()
                raise BadReturn(f"{function} returned something that is not plain data: {error}") from None
            except AnswerTooLarge as refused:
                self.stop()  # its data is left unread: the channel is of no more use
                raise BadReturn(str(refused), function) from None
            if op == "raised":
                message = _problem_message(header, self.server.sandbox_mode)
                if header.get("not_implemented"):
                    raise NotImplementedYet(f"{function} is not implemented yet (it raised {message})")
                if header.get("memory"):
                    raise OutOfMemory(
                        f"{function} ran out of memory (more than {self.limits.memory_bytes >> 20} MiB): {message}"
                    )
                raise StudentError(f"{function} raised {message}", error_type=str(header.get("type", "")))
            if op == "bad_return":
                raise BadReturn(str(header.get("message", "a value that is not plain data")))
            self.stop()
            raise BadReturn(f"{function}'s worker broke the protocol (sent {op!r})")

    def _answer_callback(
        self, header: dict, buffers: list, answer_callback, caller: str, bounds: StandinBounds, deadline: Deadline
    ) -> None:
        """Answer one stand-in call, the reply sent by ``deadline`` (``TimeoutError``: the worker
        did not read it, and the call it made is over); the grader's time on it is charged there."""
        started = time.thread_time()
        try:
            self._answer_stand_in(header, buffers, answer_callback, caller, bounds, deadline)
        finally:
            spent = time.thread_time() - started
            deadline.charge(spent)
            self.charged += spent

    def _answer_stand_in(
        self, header: dict, buffers: list, answer_callback, caller: str, bounds: StandinBounds, deadline: Deadline
    ) -> None:
        module, function = str(header.get("module")), str(header.get("function"))
        key = None
        try:
            # Bounds first, cached or not: whether a call is answered must not depend on the class.
            refusal = bounds.refusal(function, header.get("args"))
            if refusal is not None:
                raise _Refused(refusal)
            if self.answer_cache is not None:
                key = (caller, module, function, wire.digest(header.get("args"), buffers))
                cached = self.answer_cache.get(key)
                if cached is not None:
                    wire.send_framed(self.channel, [cached], deadline)
                    return
            args, kwargs = wire.decode(header.get("args"), buffers)
            value = answer_callback(module, function, args, kwargs)
            reply_buffers: list = []
            reply = {"op": "callback_result", "value": wire.encode(value, reply_buffers)}
        except _Refused as refused:
            reply, reply_buffers = {"op": "callback_raised", "type": "ValueError", "message": str(refused)}, []
        except wire.WireError as error:
            reply, reply_buffers = {"op": "callback_raised", "type": "TypeError", "message": str(error)}, []
        except Exception as error:  # noqa: BLE001 - the reference failed on the student's arguments: their error, sent back to them
            replayable = ("ValueError", "TypeError", "IndexError", "KeyError", "ZeroDivisionError")
            kind = type(error).__name__ if type(error).__name__ in replayable else "RuntimeError"
            reply, reply_buffers = (
                {"op": "callback_raised", "type": kind, "message": f"{type(error).__name__}: {error}"[:2000]},
                [],
            )
        framed = wire.frame(reply, reply_buffers)
        if key is not None:
            message = b"".join(framed)
            self.answer_cache.add(key, message)
            framed = [message]
        wire.send_framed(self.channel, framed, deadline)

    def deadline(self, seconds: float | None = None) -> Deadline:
        """``seconds`` (default: a call's) of this worker's work from now (``deadlines``)."""
        return Deadline(self.meter, self.limits.call_seconds if seconds is None else seconds)

    def work_seconds(self, fresh: bool = True) -> float:
        """CPU seconds this worker's processes spent, and the grader's on its behalf, so far (not
        ``fresh``: as the meter was last read)."""
        return (self.meter.seconds() if fresh else self.meter.last) + self.charged

    def measured_peak(self) -> int:
        """A memory-measured worker (``measured``), its call answered: the most memory it held
        since it started, the submission's import included (bytes). Where the slot has control
        groups, the kernel's peak of the group made for it; else its peak resident size less what
        it held when it started (``VmHWM``, which it cannot reset: it may open no file for writing)."""
        peak = self.server.groups.measured_peak() if self.server.groups is not None else None
        if peak is None:
            peak = _proc_status_bytes(self.pid, "VmHWM") - self._resident_at_start
        return max(0, peak)

    def take_output(self) -> str:
        """What the worker printed since the last call of this method, cut to the output limit."""
        parts = []
        for index, (stream, label) in enumerate(zip(self._output, ("", "[stderr]\n"))):
            # pread and fstat, never seek or read: the worker writes at the file offset it shares
            # with this process, and moving it made the next print overwrite the last one's middle.
            fd = stream.fileno()
            end = os.fstat(fd).st_size
            start = self._output_read[index]
            if end <= start:
                continue
            # The worker keeps output_chars characters plus its own "output cut" marker line.
            data = os.pread(fd, min(end - start, 4 * self.limits.output_chars + 1024), start)
            self._output_read[index] = end
            cut = end - start - len(data)
            parts.append(
                label + data.decode("utf-8", "replace") + (f"\n[... {cut} more bytes not shown]" if cut else "")
            )
        return "".join(parts)

    def stop(self) -> str:
        """Kill the worker and everything in its process group; return how it ended, in words."""
        if not self.alive:
            return "stopped"
        self.alive = False
        for kill in (os.killpg, os.kill):
            try:
                kill(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        status = self.server.reap(self.server_pid)
        self.channel.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
        if status.get("exit") == LEFT_A_THREAD:
            return "was ended because the code left a thread running (the grader cannot stop a thread: join yours before returning)"
        if "exit" in status:
            return f"exited with status {status['exit']}"
        number = status.get("signal")
        if number in (None, signal.SIGKILL):
            return "was stopped"
        return f"was killed by {_SIGNAL_WORDS.get(number, f'signal {number}')} (signal {number})"

    def close(self) -> None:
        self.stop()
        if hasattr(self, "meter"):  # none when the worker never reached its slot
            self.meter.close()
        for stream in self._output:
            stream.close()


class _Refused(Exception):
    """A stand-in call the reference will not run: its message goes to the student as a ValueError."""


def _proc_status_bytes(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/{pid}/status has no {field}")
