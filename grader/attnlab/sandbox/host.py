"""The trusted side of the sandbox: a fork server and the workers it forks.

``ForkServer`` starts the clean fork server once per grading run. ``WorkerProcess``
is one forked worker serving one submission file: it crosses calls over a
socket with a deadline, answers the worker's requests for reference results,
and on a timeout or crash kills the worker's whole process group and says
what happened in words a student understands.
"""

from __future__ import annotations

import json
import select
import struct
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from attnlab import wire
from attnlab.outcomes import (
    BadReturn,
    CallTimedOut,
    ImportFailed,
    NotImplementedYet,
    OutOfMemory,
    StudentError,
    WorkerCrashed,
)
from attnlab.sandbox.forkserver import SHARED_FOLDERS
from attnlab.sandbox.worker import LEFT_A_THREAD

# The fork server's only way into the engine: the folder that holds the attnlab package, of
# which the sandbox sees these files only.
_ENGINE_DIR = str(Path(__file__).resolve().parents[2])
_ENGINE_FILES = ("attnlab/__init__.py", "attnlab/wire.py", "attnlab/sandbox/__init__.py", "attnlab/sandbox/forkserver.py", "attnlab/sandbox/worker.py", "attnlab/sandbox/module_harness.py", "attnlab/sandbox/program.py")
# What workers may import from site-packages: numpy, torch with what its import and its
# functional API load (bound only when installed; imported only when a file needs it), and
# orjson, which the wire writes its headers with.
_SITE_ENTRIES = (
    "numpy", "numpy.libs", "torch", "torchgen", "functorch", "typing_extensions.py",
    "sympy", "mpmath", "networkx", "jinja2", "markupsafe", "filelock", "fsspec", "orjson",
)
_SANDBOX_ENGINE = "/attnlab/engine"
TMP_BYTES = 256 << 20
"""Size of the memory folder a bubblewrap sandbox has as /tmp (workers have their own over it)."""
_SANDBOX_SITE = "/attnlab/site"
PRIVATE_UID_BASE = 1_900_000_000
_KILL_USER = "import os, signal, sys; u = int(sys.argv[1]); os.setgroups([]); os.setgid(u); os.setuid(u); os.kill(-1, signal.SIGKILL)"


def _boot(*path: str) -> str:
    return f"import sys; sys.path[:0] = {list(path)!r}; from attnlab.sandbox.forkserver import main; main(int(sys.argv[1]))"

CALLBACK_CACHE_ENTRIES = 50_000
_UCRED = struct.Struct("iII")  # struct ucred: pid, uid, gid

_SIGNAL_WORDS = {
    signal.SIGSEGV: "a segmentation fault",
    signal.SIGBUS: "a bus error",
    signal.SIGABRT: "an abort",
    signal.SIGFPE: "a floating-point exception",
    signal.SIGXCPU: "the CPU-time limit",
}


@dataclass(frozen=True)
class Limits:
    """What one worker may use."""

    call_seconds: float = 2.0
    """Wall-clock deadline of one call (and of importing the file)."""
    memory_bytes: int = 1 << 30
    """Address space the student's code may add to the worker's own."""
    output_chars: int = 64 << 10
    """Characters of printed output kept per worker; the rest is counted and dropped."""
    file_bytes: int = 1 << 20
    """Largest file the worker may write (its captured output included)."""
    processes: int = 16
    """RLIMIT_NPROC once the worker runs as an unprivileged user."""
    cpu_seconds: int = 60
    """CPU time of one worker over all its calls: a backstop behind the deadline."""
    submission_seconds: float = 60.0
    """Wall-clock time all of one submission's calls may take together; later calls are not run."""
    folder_bytes: int = 64 << 20
    """Bytes of files a worker may write in all (its scratch folder and /tmp), where the kernel
    lets the sandbox mount a memory folder of that size (root with CAP_SYS_ADMIN)."""

    def as_request(self) -> dict:
        return {
            "memory_bytes": self.memory_bytes,
            "output_chars": self.output_chars,
            "file_bytes": self.file_bytes,
            "processes": self.processes,
            "cpu_seconds": self.cpu_seconds,
            "folder_bytes": self.folder_bytes,
        }


def worker_environment() -> dict:
    """A small, secret-free environment; one BLAS thread per worker keeps timing fair."""
    keep = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TZ") if k in os.environ}
    return {**keep, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "HOME": "/nonexistent"}


def private_uid() -> int | None:
    """The user this grader's workers run as, when it runs as root: one no account uses, and
    one per grading process, so that killing "everything of this user" hits only its own."""
    if os.geteuid() != 0:
        return None
    return private_uid_of(os.getpid())


def private_uid_of(pid: int) -> int:
    """The private user of the grading process ``pid``."""
    return PRIVATE_UID_BASE + pid % 1_000_000


def bwrap_path() -> str | None:
    """bubblewrap, when it is installed and this grader may use it as it needs (as root)."""
    if os.geteuid() != 0 or os.environ.get("ATTNLAB_SANDBOX") == "plain":
        return None
    return shutil.which("bwrap")


def close_to_workers(paths, bwrap: str | None) -> list[Path]:
    """Without bubblewrap (``bwrap`` None), workers (another user) see what other users may read:
    as root, close each of ``paths`` to other users (chmod o-rwx) before any worker starts.
    Returns those changed."""
    if os.geteuid() != 0 or bwrap is not None:
        return []
    closed = []
    for path in paths:
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            continue
        if mode & 0o007:
            os.chmod(path, mode & 0o7770)
            closed.append(Path(path))
    return closed


def private_mounts_possible() -> bool:
    """Can workers have mounts and an IPC namespace of their own (root with CAP_SYS_ADMIN)?"""
    if os.geteuid() != 0:
        return False
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) >> 21 & 1)
    return False


def python_readable_by_others() -> bool:
    """Can an unprivileged user read this interpreter's standard library (every folder on the way)?"""
    folder = Path(os.__file__).resolve().parent
    if not os.stat(folder).st_mode & 0o004:
        return False
    return all(os.stat(parent).st_mode & 0o001 for parent in folder.parents)


class ForkServer:
    """The clean, pre-imported process that forks workers.

    With bubblewrap (as root), it runs in a fresh mount, pid, network, IPC and UTS
    namespace where only the Python runtime, numpy, the sandbox's own three files
    and one work folder exist; no network, and nothing of the grader, the
    solutions or other submissions. Without it, workers still run as a private
    user with resource limits.
    """

    def __init__(self):
        self.process: subprocess.Popen | None = None
        self.control: socket.socket | None = None
        self.uid = private_uid()
        self.bwrap = bwrap_path()
        self.workroot = Path(tempfile.mkdtemp(prefix="attnlab-sandbox-"))
        self.workroot.chmod(0o711)  # workers pass through to their own folder, and cannot list the others
        self.plans: dict[str, list[list]] = {}
        """Recorded calls programs may run, by key: per segment, its framed "run" message."""
        self._loaded: set[str] = set()  # the plans this server process holds
        self._known: dict[str, set[str]] = {}  # the accepted nested results it holds, per token
        self._start()

    @property
    def mode(self) -> str:
        """What this mode guarantees, in one line for the report (docs/security.md says more)."""
        if self.uid is None:
            return (f"forked workers as the grader's own user (uid {os.geteuid()}), with rlimits and a deadline per call; "
                    "NOT isolated: student code can read and write whatever the grader can (run as root to isolate it)")
        user = f"a private user (uid {self.uid})"
        measure = "a memory-measured call counts every process of that user and may start none"
        if private_mounts_possible():
            folders = (f"each worker writes only into a memory folder of its own ({Limits.folder_bytes >> 20} MiB in all: "
                       f"its scratch folder and {', '.join(SHARED_FOLDERS)}) and has an IPC namespace of its own, both gone with it")
        else:
            folders = (f"no CAP_SYS_ADMIN (a container?): files are capped at {Limits.file_bytes >> 20} MiB each, not in number, "
                       f"and after each submission its System V IPC objects and files in {', '.join(SHARED_FOLDERS)} are removed")
        if self.bwrap:
            return (f"bubblewrap sandbox (no network, only the Python runtime and the submission visible), workers as {user}, "
                    f"with rlimits and a deadline per call; {folders}; {measure}")
        mode = (f"forked workers as {user}, with rlimits and a deadline per call (no bubblewrap: the network is reachable, and files "
                f"readable by all users are readable; the course's solutions and the results are closed to other users before grading); "
                f"{folders}; {measure}")
        if not python_readable_by_others():
            mode += " (this Python is in a folder other users cannot read: workers can import numpy and the common standard modules only)"
        return mode

    def _command(self, fd: int) -> list[str]:
        if not self.bwrap:
            return [sys.executable, "-I", "-c", _boot(_ENGINE_DIR), str(fd)]
        import numpy

        site = Path(numpy.__file__).resolve().parent.parent
        python = os.path.realpath(sys.executable)
        # Every namespace but the user namespace: as root, a user namespace would map only root,
        # and the fork server must be able to become the private user.
        command = [self.bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        # /tmp is memory of a fixed size: a submission that fills it fails its own writes, not the disk.
        command += ["--die-with-parent", "--new-session", "--proc", "/proc", "--dev", "/dev", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
        made: set[str] = set()

        def bind(source: str, target: str, how: str = "--ro-bind") -> None:
            # Folders on the way are made world-traversable: /root would otherwise keep its 0700.
            for parent in reversed(Path(target).parents[:-1]):
                if str(parent) not in made and not str(parent).startswith(("/usr", "/tmp/")) and str(parent) != "/tmp":
                    command.extend(["--perms", "0755", "--dir", str(parent)])
                    made.add(str(parent))
            command.extend([how, source, target])

        for name in ("usr", "lib", "lib64", "lib32", "bin", "sbin"):
            path = Path("/") / name
            if path.is_symlink():
                command += ["--symlink", os.readlink(path), str(path)]
            elif path.is_dir():
                bind(str(path), str(path))
        bind(sys.base_prefix, sys.base_prefix)
        for entry in _SITE_ENTRIES:
            if (site / entry).exists():
                bind(str(site / entry), f"{_SANDBOX_SITE}/{entry}")
        for relative in _ENGINE_FILES:
            bind(str(Path(_ENGINE_DIR) / relative), f"{_SANDBOX_ENGINE}/{relative}")
        bind(str(self.workroot), str(self.workroot), "--bind")
        command += ["--chdir", "/"]
        # Root inside keeps only what the fork server needs: to hand a work folder to the private
        # user, to give each worker its own mounts and IPC namespace, and to become the user.
        # Workers drop even those (setuid to a user other than root clears every capability).
        for capability in ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_SYS_ADMIN"):
            command += ["--cap-add", capability]
        return [*command, python, "-I", "-c", _boot(_SANDBOX_ENGINE, _SANDBOX_SITE), str(fd)]

    def _start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process = subprocess.Popen(
            self._command(theirs.fileno()),
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            env=worker_environment(),
            cwd="/",
        )
        theirs.close()
        self.control = ours
        self._loaded = set()
        self._known = {}

    def _request(self, request: dict, fds: list[int] = (), stream: list[list] = ()) -> dict:
        """Send ``request`` with ``fds`` and return the server's reply. ``stream``: framed messages
        too large for a control message, written to a socket of their own passed along last."""
        for attempt in (1, 2):
            ours, theirs = socket.socketpair() if stream else (None, None)
            try:
                sent = [*fds, theirs.fileno()] if stream else list(fds)
                socket.send_fds(self.control, [json.dumps(request).encode()], sent)
                if stream:
                    theirs.close()
                    for framed in stream:
                        wire.send_framed(ours, framed)
                    ours.close()
                reply = self.control.recv(1 << 16)
                if reply:
                    return json.loads(reply)
            except (OSError, wire.PeerClosed):
                pass
            finally:
                for end in (ours, theirs):
                    if end is not None:
                        end.close()
            if attempt == 1:  # a student may have killed the fork server: start a fresh one
                self.close()
                self._start()
        raise RuntimeError("the sandbox's fork server stopped answering")

    def _load(self, key: str) -> None:
        """Hand the server a plan's segments (a few MB, more than a control message holds); it
        keeps them decoded for the programs it forks."""
        self._request({"op": "plan", "key": key, "segments": len(self.plans[key])}, stream=self.plans[key])
        self._loaded.add(key)

    def _share_known(self, token: str, known: set[str]) -> None:
        """Give the server the keys of ``known`` (accepted nested results, ``token``'s set) it does
        not hold yet: programs forked after it inherit them."""
        held = self._known.get(token, set())
        new = known - held
        if new:
            control = self.control
            self._request({"op": "known", "token": token}, stream=[wire.frame({"keys": sorted(new)})])
            # A server started again meanwhile holds only these: the rest goes with the next spawn.
            self._known[token] = held | new if self.control is control else new

    def workdir(self) -> Path:
        """A fresh folder for one worker, inside what the sandbox can see."""
        return Path(tempfile.mkdtemp(prefix="worker-", dir=self.workroot))

    def spawn(self, workdir: Path, module: str, standins: dict, limits: Limits, fds: list[int], needs: tuple[str, ...] = (), kind: str = "file", plan: str | None = None, known: tuple[str, set[str]] | None = None) -> int:
        """Fork a worker: ``kind`` "file" serves one file's calls, "program" runs the whole
        submission (``attnlab.sandbox.program``) with the recorded calls of ``plan`` (one of
        ``plans``) and the accepted nested results ``known`` (token, keys), which the server is
        given first where it does not hold them."""
        request = {
            "plan": plan,
            "op": "spawn",
            "kind": kind,
            "needs": list(needs),
            "workdir": str(workdir),
            "module": module,
            "standins": standins,
            "limits": limits.as_request(),
            "uid": self.uid,
        }
        for _attempt in (1, 2):
            if plan is not None and plan not in self._loaded:
                self._load(plan)
            if known is not None:
                self._share_known(*known)
            reply = self._request(request, fds)
            if "pid" in reply:
                return reply["pid"]
            # The server was started again in between (it says it lacks the plan): give it the
            # plan and the accepted keys again.
            self._loaded.discard(plan)
            self._known.clear()
        raise RuntimeError("the sandbox's fork server lost the recorded calls twice")

    def reap(self, pid: int) -> dict:
        try:
            return self._request({"op": "reap", "pid": pid})
        except RuntimeError:
            return {}

    def forbid_new_processes(self) -> None:
        """As root: no process of the workers' user may start a process or a thread from now on
        (RLIMIT_NPROC 0 in each, which only a capability this grader lacks could raise again)."""
        if self.uid is not None:
            self._request({"op": "seal", "uid": self.uid})

    def clean(self) -> None:
        """Kill every process the workers left behind (as root: everything of the private user)."""
        try:
            self._request({"op": "clean", "uid": self.uid})
        except RuntimeError:
            pass

    def close(self) -> None:
        if self.control is not None:
            self.control.close()
        if self.process is not None:
            self.process.kill()
            self.process.wait()
        if self.process is not None and self.uid is not None and not self.bwrap:
            # Without a pid namespace to die with the server, leftovers of the private user are
            # killed by a short-lived helper that becomes that user.
            subprocess.run([sys.executable, "-I", "-c", _KILL_USER, str(self.uid)], check=False)

    def __del__(self):
        if getattr(self, "workroot", None) is not None and shutil is not None:
            shutil.rmtree(self.workroot, ignore_errors=True)


def describe_mode() -> str:
    """The mode new fork servers run in, in words (each has a private user of its own)."""
    server = ForkServer.__new__(ForkServer)
    server.uid, server.bwrap = private_uid(), bwrap_path()
    return server.mode.replace(f"a private user (uid {server.uid})", "a private user per grading process")


def _copy_submission(submission: Path, target: Path) -> None:
    """Copy the submission's regular top-level .py files: a symlink to /etc/shadow is not copied."""
    target.mkdir()
    for path in submission.iterdir():
        if path.suffix == ".py" and path.is_file() and not path.is_symlink():
            shutil.copyfile(path, target / path.name)


def batch_message(calls: list[tuple[str, tuple, dict, bool]]) -> list:
    """The framed message that asks a worker for several calls at once."""
    buffers: list = []
    requests = [{"function": f, "args": wire.encode((a, kw), buffers), "return_inputs": r} for f, a, kw, r in calls]
    return wire.frame({"op": "batch", "calls": requests}, buffers)


def _problem_message(header: dict) -> str:
    where = "".join(f"\n    {frame}" for frame in header.get("frames", []))
    message = str(header.get("message", ""))
    if "[Errno 28]" in message and private_mounts_possible():  # ENOSPC: the worker's memory folder is full, not a disk
        message += f" (your code wrote more than {Limits.folder_bytes >> 20} MiB of files, all it may write in its folder and /tmp together)"
    return f"{header.get('type', 'Error')}: {message}{where}"


class WorkerProcess:
    """One live worker serving one submission file."""

    kind = "file"
    plan: str | None = None
    known: tuple[str, set[str]] | None = None

    def __init__(self, server: ForkServer, submission: Path, module: str, standins: dict, limits: Limits, callback_cache: dict | None = None, needs: tuple[str, ...] = ()):
        self.server, self.module, self.limits = server, module, limits
        self.callback_cache = callback_cache
        """Reference answers to stand-in calls, shared by the workers of a class (None: no caching)."""
        self.workdir = server.workdir()
        self._output = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]  # stdout, stderr
        self._output_read = [0, 0]
        self.alive = True
        _copy_submission(submission, self.workdir / "submission")
        self._prepare_workdir()
        self.channel, theirs = socket.socketpair()
        self.channel.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.server_pid = server.spawn(self.workdir, module, standins, limits, [theirs.fileno(), *(f.fileno() for f in self._output)], needs, self.kind, self.plan, self.known)
        """The worker's pid as the fork server sees it (in the sandbox's pid namespace), for reaping."""
        theirs.close()
        self.pid = self.server_pid
        """The worker's pid as this process sees it, for signals and /proc."""
        self._await_hello()
        self._await_import()

    def _prepare_workdir(self) -> None:
        """Put what the worker needs besides the submission into its folder (before it starts)."""

    def _await_hello(self) -> None:
        """Read the worker's first message, sent before any student code ran, and the pid the
        kernel attached to it: the worker's pid in this process's namespace."""
        if select.select([self.channel], [], [], max(self.limits.call_seconds, 2.0))[0]:
            data, ancillary, _flags, _address = self.channel.recvmsg(5, socket.CMSG_SPACE(_UCRED.size))
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and data == b"hello":
                    self.pid = _UCRED.unpack(payload[: _UCRED.size])[0]
                    return
        self.stop()
        raise WorkerCrashed(f"the worker for {self.module}.py did not start")

    def _await_import(self) -> None:
        deadline = time.monotonic() + max(self.limits.call_seconds, 2.0)
        try:
            header, _ = wire.receive(self.channel, deadline)
        except TimeoutError:
            self.stop()
            raise CallTimedOut(f"importing {self.module}.py took longer than {max(self.limits.call_seconds, 2.0):g} s") from None
        except (wire.PeerClosed, wire.WireError):
            raise ImportFailed(f"{self.module}.py could not be imported: the worker {self.stop()} while importing it") from None
        if header.get("op") == "import_failed":
            self.stop()
            raise ImportFailed(f"{self.module}.py could not be imported: {_problem_message(header)}")

    def call(self, function: str, args: tuple, kwargs: dict, answer_callback: Callable[[str, str, tuple, dict], object], return_inputs: bool = False):
        """Run ``function(*args, **kwargs)`` in the worker and return its plain-data result
        (with ``return_inputs``: the triple result, args, kwargs as the call left them)."""
        buffers: list = []
        request = {"op": "call", "function": function, "args": wire.encode((args, kwargs), buffers), "return_inputs": return_inputs}
        self._send(wire.frame(request, buffers), function)
        return self._await_result(function, return_inputs, answer_callback)

    def call_batch(self, calls: list[tuple[str, tuple, dict, bool]], answer_for: Callable[[str], Callable[[str, str, tuple, dict], object]], framed: list | None = None) -> list:
        """Run several calls ``(function, args, kwargs, return_inputs)`` with one message.

        Each call keeps its own deadline. The first call that fails raises its outcome, as
        ``call`` would, and the worker runs none of the calls after it. ``framed`` is the
        message ``batch_message(calls)`` made, when the caller keeps it to send again.
        """
        self._send(framed or batch_message(calls), calls[0][0])
        return [self._await_result(function, return_inputs, answer_for(function)) for function, _, _, return_inputs in calls]

    def _send(self, framed: list, function: str) -> None:
        """Send a message of calls, the first of them to ``function``. A worker that stopped
        reading (its code shut the line to the grader) or is gone is a crash, as on the way back."""
        try:
            wire.send_framed(self.channel, framed)
        except wire.PeerClosed:
            raise WorkerCrashed(f"{function} could not be called: the worker for {self.module}.py had stopped listening to the grader, and {self.stop()}", function) from None

    def _await_result(self, function: str, return_inputs: bool, answer_callback):
        deadline = time.monotonic() + self.limits.call_seconds
        while True:
            try:
                header, buffers = wire.receive(self.channel, deadline)
                op = header.get("op")
                if op == "callback":
                    started = time.monotonic()
                    self._answer_callback(header, buffers, answer_callback, function)
                    deadline += time.monotonic() - started  # the reference's time is not the student's
                    continue
                if op == "result":
                    value = wire.decode(header.get("value"), buffers)
                    if return_inputs and not (isinstance(value, tuple) and len(value) == 3):
                        raise wire.WireError("a result without the inputs that were asked for")
                    return value
            except TimeoutError:
                self.stop()
                raise CallTimedOut(f"{function} did not return within {self.limits.call_seconds:g} s", function) from None
            except wire.PeerClosed:
                raise WorkerCrashed(f"{function} crashed the worker: it {self.stop()}") from None
            except wire.WireError as error:
                self.stop()
                raise BadReturn(f"{function} returned something that is not plain data: {error}") from None
            if op == "raised":
                message = _problem_message(header)
                if header.get("not_implemented"):
                    raise NotImplementedYet(f"{function} is not implemented yet (it raised {message})")
                if header.get("memory"):
                    raise OutOfMemory(f"{function} ran out of memory (more than {self.limits.memory_bytes >> 20} MiB): {message}")
                raise StudentError(f"{function} raised {message}", error_type=str(header.get("type", "")))
            if op == "bad_return":
                raise BadReturn(str(header.get("message", "a value that is not plain data")))
            self.stop()
            raise BadReturn(f"{function}'s worker broke the protocol (sent {op!r})")

    def _answer_callback(self, header: dict, buffers: list, answer_callback, caller: str) -> None:
        # The reference is deterministic, so a class's submissions asking the same question get the
        # same answer: keyed by the calling function too, since that decides what it may ask.
        key = None
        if self.callback_cache is not None:
            key = (caller, str(header.get("module")), str(header.get("function")), wire.digest(header.get("args"), buffers))
            if key in self.callback_cache:
                wire.send_framed(self.channel, self.callback_cache[key])
                return
        try:
            args, kwargs = wire.decode(header.get("args"), buffers)
            value = answer_callback(str(header.get("module")), str(header.get("function")), args, kwargs)
            reply_buffers: list = []
            reply = {"op": "callback_result", "value": wire.encode(value, reply_buffers)}
        except wire.WireError as error:
            reply, reply_buffers = {"op": "callback_raised", "type": "TypeError", "message": str(error)}, []
        except Exception as error:  # noqa: BLE001 - the reference failed on the student's arguments: their error, sent back to them
            replayable = ("ValueError", "TypeError", "IndexError", "KeyError", "ZeroDivisionError")
            kind = type(error).__name__ if type(error).__name__ in replayable else "RuntimeError"
            reply, reply_buffers = {"op": "callback_raised", "type": kind, "message": f"{type(error).__name__}: {error}"[:2000]}, []
        framed = wire.frame(reply, reply_buffers)
        if key is not None and len(self.callback_cache) < CALLBACK_CACHE_ENTRIES:
            framed = [b"".join(framed)]
            self.callback_cache[key] = framed
        wire.send_framed(self.channel, framed)

    def reset_peak_memory(self) -> int:
        """Reset the worker's peak resident memory to its current size; return that size in bytes.

        As root, the measure covers every process of the workers' user, which may start no new
        one from here on: a child building the answer in its own memory is counted, or cannot be.
        """
        self._measured = {}
        if self.server.uid is not None:
            self.server.forbid_new_processes()
            for pid in _pids_of(self.server.uid):
                if pid != self.pid:
                    try:
                        Path(f"/proc/{pid}/clear_refs").write_text("5")
                        self._measured[pid] = _proc_status_bytes(pid, "VmRSS")
                    except (OSError, RuntimeError):
                        pass  # gone already: it cannot take part in the call
        Path(f"/proc/{self.pid}/clear_refs").write_text("5")
        return _proc_status_bytes(self.pid, "VmRSS")

    def peak_memory(self) -> int:
        """The worker's peak resident memory since ``reset_peak_memory``, plus what each other
        process of its user added to its own (bytes)."""
        peak = _proc_status_bytes(self.pid, "VmHWM")
        measured = getattr(self, "_measured", {})
        if self.server.uid is not None and set(_pids_of(self.server.uid)) - {self.pid} != set(measured):
            raise ProcessesDuringMeasure("a process your code started ended during a call whose memory is measured, so its memory could not be counted: do the work in the call itself")
        for pid, baseline in measured.items():
            try:
                peak += max(0, _proc_status_bytes(pid, "VmHWM") - baseline)
            except (OSError, RuntimeError):
                raise ProcessesDuringMeasure("a process your code started ended during a call whose memory is measured, so its memory could not be counted: do the work in the call itself") from None
        return peak

    def take_output(self, upto: list[int] | None = None) -> str:
        """What the worker printed since the last call of this method (up to the ``upto``
        positions of stdout and stderr, when given), cut to the output limit."""
        parts = []
        for index, (stream, label) in enumerate(zip(self._output, ("", "[stderr]\n"))):
            end = stream.seek(0, os.SEEK_END)
            if upto is not None:
                end = min(end, max(int(upto[index]), self._output_read[index]))
            start = self._output_read[index]
            if end == start:
                continue
            stream.seek(start)
            # The worker keeps output_chars characters plus its own "output cut" marker line.
            data = stream.read(min(end - start, 4 * self.limits.output_chars + 1024))
            self._output_read[index] = end
            cut = end - start - len(data)
            parts.append(label + data.decode("utf-8", "replace") + (f"\n[... {cut} more bytes not shown]" if cut else ""))
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
        for stream in self._output:
            stream.close()


class ProcessesDuringMeasure(StudentError):
    """Processes of the submission came or went during a memory-measured call."""


def _pids_of(uid: int) -> list[int]:
    """The processes of ``uid`` (ids as this process sees them)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.stat(f"/proc/{name}").st_uid == uid:
                found.append(int(name))
        except OSError:
            pass
    return found


def _proc_status_bytes(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/{pid}/status has no {field}")
