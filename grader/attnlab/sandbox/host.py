"""The trusted side of the sandbox: a fork server and the workers it forks.

``ForkServer`` starts the clean fork server once per grading run. ``WorkerProcess``
is one forked worker serving one function of a submission file: it crosses
calls over a socket with a deadline, answers the worker's requests for
reference results (bounded by the call being graded, and charged to its
deadline), and on a timeout or crash kills the worker's whole process group
and says what happened in words a student understands.
"""

from __future__ import annotations

import json
import math
import mmap
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

import numpy as np
from pathlib import Path
from typing import Callable

from attnlab import wire
from attnlab.answer_room import KEPT_PER_TEST_BYTES, AnswerRoom, AnswerTooLarge, KeptBudget, size_in_words
from attnlab.lifecycle import scratch_prefix
from attnlab.sandbox.cgroups import SlotGroups
from attnlab.sandbox.deadlines import CpuMeter, Deadline
from attnlab.sandbox.environment import SandboxEnvironment
from attnlab.sandbox.memory_watch import MemoryWatch
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
from attnlab.sandbox.inside.leftovers import SHARED_FOLDERS
from attnlab.sandbox.inside.watching_worker import IMPORTING, MARKER, WATCHED
from attnlab.sandbox.inside.worker import LEFT_A_THREAD

# The fork server's only way into the engine: the folder that holds the attnlab package, of
# which the sandbox sees these files only.
_ENGINE_DIR = str(Path(__file__).resolve().parents[2])
_ENGINE_FILES = ("attnlab/__init__.py", "attnlab/wire.py", "attnlab/sandbox/__init__.py", *(f"attnlab/sandbox/inside/{path.name}" for path in sorted((Path(__file__).parent / "inside").glob("*.py"))))
_SANDBOX_ENGINE = "/attnlab/engine"
IMPORTS_FOLDER = "imports"
"""Without bubblewrap: the folder of a fork server's work folder that holds what it may import."""
TMP_BYTES = 256 << 20
"""Size of the memory folder a bubblewrap sandbox has as /tmp (workers have their own over it)."""
_SANDBOX_SITE = "/attnlab/site"
PRIVATE_UID_BASE = 1_900_000_000
_KILL_USER = "import os, signal, sys; u = int(sys.argv[1]); os.setgroups([]); os.setgid(u); os.setuid(u); os.kill(-1, signal.SIGKILL)"


def _boot(*path: str) -> str:
    return f"import sys; sys.path[:0] = {list(path)!r}; from attnlab.sandbox.inside.forkserver import main; main(int(sys.argv[1]))"

# The reference's answers to stand-in calls a grading process keeps for the class, in bytes, and
# the largest answer worth keeping.
ANSWER_CACHE_BYTES = 64 << 20
ANSWER_CACHE_ENTRY_BYTES = 1 << 20
HELLO_SECONDS = 10.0
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
    """Deadline of one call (and of importing the file), in CPU time of the worker's processes and
    the grader's on its behalf; the wall clock ends it ``deadlines.BACKSTOP`` times later."""
    memory_bytes: int = 1 << 30
    """Memory all of one submission's processes may hold together beyond what the fork server
    gave them (the slot's control group, or the grader's watch: ``memory_watch``), and the
    address space one worker may add to its own."""
    output_chars: int = 64 << 10
    """Characters of printed output kept per worker; the rest is counted and dropped."""
    file_bytes: int = 1 << 20
    """Largest file the worker may write (its captured output included)."""
    processes: int = 16
    """RLIMIT_NPROC once the worker runs as an unprivileged user."""
    cpu_seconds: int = 60
    """CPU time of one worker over all its calls: a backstop behind the deadline."""
    submission_seconds: float = 60.0
    """CPU time all of one submission's calls may take together, counted as their deadlines are
    (with the wall-clock backstop); later calls are not run."""
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


def workroot_base(private_user: bool) -> str:
    """Where a fork server's work folder goes: the temporary folder, when the workers can reach it.

    A private user must traverse every folder on the way (pam_tmpdir's 0700 ``/tmp/user/0`` it
    cannot), and bubblewrap makes the missing folders of a mount point below its own ``/tmp``
    0700 too: then ``/tmp`` itself, which is open to all and seen in the sandbox."""
    base = tempfile.gettempdir()
    if not private_user:
        return base
    for candidate in (base, "/tmp", "/var/tmp"):
        path = Path(candidate).absolute()
        if str(path) != "/tmp" and str(path).startswith("/tmp/"):
            continue
        try:
            real = path.resolve(strict=True)
            if real.is_dir() and all(os.stat(folder).st_mode & 0o001 for folder in (real, *real.parents)):
                return str(path)
        except OSError:
            continue
    return base


class ForkServer:
    """The clean, pre-imported process that forks workers.

    With bubblewrap (as root), it runs in a fresh mount, pid, network, IPC and UTS
    namespace where only the Python runtime, numpy, the sandbox's own three files
    and one work folder exist; no network, and nothing of the grader, the
    solutions or other submissions. Without it, workers still run as a private
    user with resource limits.
    """

    def __init__(self, environment: SandboxEnvironment | None = None):
        """``environment``: what student code may import (default: numpy and the standard library)."""
        self.environment = environment or SandboxEnvironment.for_libraries()
        self.process: subprocess.Popen | None = None
        self.control: socket.socket | None = None
        self.uid = private_uid()
        self.bwrap = bwrap_path()
        self.workroot = Path(tempfile.mkdtemp(prefix=scratch_prefix("attnlab-sandbox"), dir=workroot_base(self.uid is not None)))
        self.workroot.chmod(0o711)  # workers pass through to their own folder, and cannot list the others
        if not self.bwrap:
            self._link_imports()
        self.failure: GraderFailure | None = None
        """Why the sandbox failed since ``take_failure`` was last asked: then no worker is started."""
        self.groups = SlotGroups.make()
        """This slot's control groups (None: the machine lets this grader make none)."""
        self.watch: "MemoryWatch | None" = None
        """Without groups: the watch that adds up what the submission being graded holds."""
        self._start()

    @property
    def mode(self) -> str:
        """What this mode guarantees, in one line for the report (docs/security.md says more)."""
        if self.uid is None:
            return (f"forked workers as the grader's own user (uid {os.geteuid()}), with rlimits and a deadline per call; "
                    "NOT isolated: student code can read and write whatever the grader can (run as root to isolate it)")
        user = f"a private user (uid {self.uid})"
        groups = getattr(self, "groups", None)
        measure = ("a memory-measured call runs alone in a worker of its own that may start no process and open no file for writing, "
                   + ("its peak read from a control group made for it; all of a submission's processes share one memory budget and one CPU share (control groups)"
                      if groups is not None else "its peak read from its peak resident size; no control groups: a watch adds up what a submission's processes hold, and ends them past its memory budget"))
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
            mode += " (this Python is in a folder other users cannot read: workers can import numpy, the course's packages and the common standard modules only)"
        return mode

    def _link_imports(self) -> None:
        """Without bubblewrap: what the sandbox would mount, as links in folders of the work
        folder (the engine's inside files, and the environment's site-packages entries), so that
        the fork server's Python, started without its site-packages, imports what it would in
        bubblewrap and nothing else."""
        imports = self.workroot / IMPORTS_FOLDER
        links = [(Path(_ENGINE_DIR) / relative, imports / "engine" / relative) for relative in _ENGINE_FILES]
        links += [(entry, imports / "site" / entry.name) for entry in self.environment.entries]
        for target, link in links:
            for folder in reversed(link.relative_to(self.workroot).parents[:-1]):
                (self.workroot / folder).mkdir(mode=0o755, exist_ok=True)
            link.symlink_to(target)

    def _command(self, fd: int) -> list[str]:
        # -S: no site-packages but the environment's, in either mode (the base Python's own
        # site-packages, visible in bubblewrap under sys.base_prefix, held pytest and hypothesis).
        config = json.dumps(self.environment.as_config())
        if not self.bwrap:
            imports = self.workroot / IMPORTS_FOLDER
            return [sys.executable, "-I", "-S", "-c", _boot(str(imports / "engine"), str(imports / "site")), str(fd), config]
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
        for entry in self.environment.entries:
            bind(str(entry), f"{_SANDBOX_SITE}/{entry.name}")
        for relative in _ENGINE_FILES:
            bind(str(Path(_ENGINE_DIR) / relative), f"{_SANDBOX_ENGINE}/{relative}")
        bind(str(self.workroot), str(self.workroot), "--bind")
        command += ["--chdir", "/"]
        # Root inside keeps only what the fork server needs: to hand a work folder to the private
        # user, to give each worker its own mounts and IPC namespace, and to become the user.
        # Workers drop even those (setuid to a user other than root clears every capability).
        for capability in ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_SYS_ADMIN"):
            command += ["--cap-add", capability]
        return [*command, python, "-I", "-S", "-c", _boot(_SANDBOX_ENGINE, _SANDBOX_SITE), str(fd), config]

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
                self.restart()
        raise self.fail("the sandbox's fork server stopped answering")

    def fail(self, message: str) -> GraderFailure:
        """Note that the sandbox failed (``message`` says how): the grade being made is not the
        student's, and no worker is started until ``take_failure``."""
        if self.failure is None:
            self.failure = GraderFailure(message)
        return self.failure

    def take_failure(self) -> GraderFailure | None:
        """How the sandbox failed since the last call (None: it did not); it may start workers again."""
        failure, self.failure = self.failure, None
        return failure

    def workdir(self) -> Path:
        """A fresh folder for one worker, inside what the sandbox can see."""
        return Path(tempfile.mkdtemp(prefix="worker-", dir=self.workroot))

    def stage(self, submission: Path) -> Path:
        """A copy of the submission's files that the sandbox can read and its workers cannot change:
        one per submission, shared by the workers of its functions."""
        try:
            staged = Path(tempfile.mkdtemp(prefix="submission-", dir=self.workroot))
            _copy_submission(submission, staged / "files")
            for path in (staged, staged / "files", *(staged / "files").iterdir()):
                path.chmod(0o755 if path.is_dir() else 0o644)
        except OSError as error:  # a full or missing temporary folder: the grader's, not the student's
            raise self.fail(f"the sandbox could not copy the submission: {error.strerror or error}") from None
        return staged / "files"

    def spawn(self, workdir: Path, submission: Path, module: str, function: str, standins: dict, limits: Limits, fds: list[int], needs: tuple[str, ...] = (), watching: "Watching | None" = None, measured: bool = False) -> int:
        """Fork a worker that serves ``function`` of ``module`` in the staged ``submission``, with
        ``standins`` answered by the reference; or, with ``watching``, a ``WatchingWorker`` that
        runs the student's own code for them, and watches it. ``measured``: for one
        memory-measured call (``inside.syscalls``: no process, no file opened for writing)."""
        request = {
            "op": "spawn",
            "watching": watching is not None,
            "serves": list(watching.serves) if watching else [function],
            "depends": watching.depends if watching else {},
            "poisoned": sorted(watching.poisoned) if watching else [],
            "skipped": sorted(watching.skipped) if watching else [],
            "submission": str(submission),
            "needs": list(needs),
            "workdir": str(workdir),
            "module": module,
            "function": function,
            "standins": standins,
            "limits": limits.as_request(),
            "uid": self.uid,
            "measured": measured,
        }
        if self.failure is not None:
            raise self.failure
        return self._request(request, fds)["pid"]

    def reap(self, pid: int) -> dict:
        try:
            return self._request({"op": "reap", "pid": pid})
        except GraderFailure:
            return {}

    def clean(self) -> None:
        """Kill every process the workers left behind (as root: everything of the private user)."""
        try:
            self._request({"op": "clean", "uid": self.uid})
        except GraderFailure:
            pass

    def restart(self) -> None:
        """Stop the server and everything it started, and start a fresh one."""
        self._stop()
        self._start()

    def close(self) -> None:
        """Stop the server and everything it started, and remove its work folder and groups."""
        self._stop()
        shutil.rmtree(self.workroot, ignore_errors=True)
        if self.groups is not None:
            self.groups.close()
            self.groups = None

    def admit(self, pid: int, measured: bool) -> None:
        """Put worker ``pid``, which has run nothing of the submission yet, in this slot's groups
        (``measured``: a group of its own, for a memory-measured call)."""
        if self.watch is not None:
            self.watch.admit(pid)
        if self.groups is None:
            return
        try:
            self.groups.enter(pid, measured)
        except OSError as error:
            raise self.fail(f"the sandbox could not put a worker in its control group: {error.strerror or error}") from None

    def end_measured(self) -> None:
        """The memory-measured call's worker is gone."""
        if self.groups is not None:
            self.groups.end_measured()

    def _stop(self) -> None:
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
        # Only in the process that made it: a forked copy going away must not take its folder.
        if getattr(self, "workroot", None) is not None and shutil is not None and self.workroot.name.startswith(scratch_prefix("attnlab-sandbox")):
            shutil.rmtree(self.workroot, ignore_errors=True)


def describe_mode() -> str:
    """The mode new fork servers run in, in words (each has a private user of its own)."""
    server = ForkServer.__new__(ForkServer)
    server.uid, server.bwrap, server.groups = private_uid(), bwrap_path(), SlotGroups.make()
    try:
        return server.mode.replace(f"a private user (uid {server.uid})", "a private user per grading process")
    finally:
        if server.groups is not None:
            server.groups.close()


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


@dataclass(frozen=True)
class Watching:
    """What a watching worker (``sandbox.inside.watching_worker``) is for: the replay of one
    submission (``spawn``'s ``standins`` are then its files' contract functions, in course order)."""

    serves: tuple[str, ...]
    """The functions it may be asked."""
    depends: dict
    """Each one's declared same-file dependencies, whose direct calls it watches."""
    poisoned: frozenset = frozenset()
    """Functions whose own code timed out or crashed while watched: treated as missing."""
    skipped: frozenset = frozenset()
    """Files whose import timed out or crashed a watching worker: not imported again."""


class AnswerCache:
    """The reference's answers to stand-in calls, shared by the workers of a grading process and
    bounded in bytes: the reference is deterministic, so a class asking the same question gets the
    same answer. Keyed by the calling function too, since that decides what it may ask."""

    def __init__(self, max_bytes: int = ANSWER_CACHE_BYTES, max_entry_bytes: int = ANSWER_CACHE_ENTRY_BYTES):
        self.max_bytes, self.max_entry_bytes = max_bytes, max_entry_bytes
        self.bytes = 0
        self._answers: dict[tuple, bytes] = {}

    def get(self, key: tuple) -> bytes | None:
        return self._answers.get(key)

    def add(self, key: tuple, message: bytes) -> None:
        """Keep ``message`` if it fits; when the cache is full, new answers are computed each time."""
        if len(message) <= self.max_entry_bytes and self.bytes + len(message) <= self.max_bytes and key not in self._answers:
            self._answers[key] = message
            self.bytes += len(message)

    def __len__(self) -> int:
        return len(self._answers)


# A stand-in call's integer arguments may multiply to this many (an answer of this many entries,
# 32 MiB of float64) whatever the graded call's inputs, so that sizes chosen by the student cannot
# make the reference build a table far larger than any graded answer.
ANSWER_ELEMENTS = 1 << 22


class StandinBounds:
    """What a stand-in call made during one graded call may ask of the reference, relative to that
    call's own inputs: the trusted side computes it, so a student's ``causal_mask(40000)`` must not
    make the grader swell. Each array at most twice the largest input array (plus a little), no
    axis and no integer past twice the largest axis or integer of the inputs (plus a little), at
    most two more axes. Worked out from the inputs at the first stand-in call."""

    def __init__(self, args: tuple, kwargs: dict):
        self._inputs: tuple | None = (args, kwargs)
        self.max_elements = self.max_extent = self.max_ndim = 0

    @classmethod
    def for_import(cls) -> "StandinBounds":
        """The bounds of stand-in calls a file makes while it is imported (a module-level constant
        built with an earlier file's function): as if its input were a (4, 4, 16, 16) array and
        the number 64."""
        return cls((np.empty((4, 4, 16, 16)), 64), {})

    def _work_out(self) -> None:
        elements, extent, ndim = 0, 1, 0
        for leaf in wire.leaves(self._inputs):
            if isinstance(leaf, np.ndarray):
                elements, ndim = max(elements, leaf.size), max(ndim, leaf.ndim)
                extent = max(extent, *leaf.shape, 1)
            elif isinstance(leaf, (int, np.integer)) and not isinstance(leaf, bool):
                extent = max(extent, min(abs(int(leaf)), 1 << 40))
        self.max_elements, self.max_extent, self.max_ndim = 2 * elements + 1024, 2 * extent + 8, ndim + 2
        self._inputs = None

    def refusal(self, function: str, tree) -> str | None:
        """Why the reference ``function`` will not be run on the arguments the wire ``tree``
        describes (None: it will). Read off the tree, before anything is decoded; a tree that
        does not describe its arrays properly is left for the decoder to refuse."""
        if self._inputs is not None:
            self._work_out()
        stack = [tree]
        while stack:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, dict):
                described = item.get("__nd__")
                if described is None:
                    stack.extend(item.values())
                elif isinstance(described, list) and len(described) == 3 and isinstance(described[2], list) and all(type(n) is int for n in described[2]):
                    shape = described[2]
                    if math.prod(shape) > self.max_elements or len(shape) > self.max_ndim or any(n > self.max_extent for n in shape):
                        return f"{function}() was given an array of shape {tuple(shape)}, far larger than the inputs of the call being graded justify"
            elif type(item) is int and abs(item) > self.max_extent:
                return f"{function}() was given the number {item}, far larger than the inputs of the call being graded justify (at most {self.max_extent})"
        numbers = _product_of_integer_arguments(tree)
        if numbers > max(self.max_elements, ANSWER_ELEMENTS):
            return f"{function}() was given numbers that make an answer of up to {numbers} entries, far larger than the inputs of the call being graded justify"
        return None


def _product_of_integer_arguments(tree) -> int:
    """How many entries an answer may grow to from the integers passed as arguments themselves
    (``sinusoidal_encoding(T, d)`` answers T * d, ``causal_mask(n)`` n * n): their product, or the
    largest squared; read off the wire tree of ``(args, kwargs)``, not counting those in a list."""
    try:
        args, kwargs = tree["__tuple__"]
        values = [*args["__tuple__"], *(value for _, value in kwargs["__dict__"])]
    except (TypeError, KeyError, ValueError):
        return 1
    product, largest = 1, 1
    for value in values:
        if type(value) is int:
            product *= max(abs(value), 1)
            largest = max(largest, abs(value))
    return max(product, largest * largest)


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
        return len(buffers) == len(self.payloads) and wire.dumps(tree) == self.text and all(got == want for got, want in zip(buffers, self.payloads))


class WorkerProcess:
    """One live worker serving one function of a submission file."""

    def __init__(self, server: ForkServer, staged: Path, module: str, function: str, standins: dict, limits: Limits, answer_cache: AnswerCache | None = None, needs: tuple[str, ...] = (), watching: Watching | None = None, import_answers: Callable | None = None, measured: bool = False):
        """``staged``: the submission as ``ForkServer.stage`` copied it. ``watching``: a watching
        worker for these functions (``function`` is the first of them). ``import_answers``: the
        callback that answers the stand-in calls the file makes while it is imported.
        ``measured``: a worker for one memory-measured call (``measured_peak``)."""
        self.measured = measured
        self.watching = watching is not None
        self.watched_names = [n for names in standins.values() for n in names]
        self.watched_files = list(standins)
        self.loaded_through = 0
        """A watching worker: the place (from 1) of the last file it imported."""
        self.notes: list = []
        """A watching worker's notes on the watched calls, one list per result, in order."""
        self._marker: mmap.mmap | None = None
        extra_fds: list[int] = []
        if self.watching:
            marker_fd = os.memfd_create("attnlab-marker")
            os.ftruncate(marker_fd, MARKER.size)
            self._marker = mmap.mmap(marker_fd, MARKER.size)
            extra_fds = [marker_fd]
        self.server, self.module, self.function, self.limits = server, module, function, limits
        self.answer_cache = answer_cache
        """Reference answers to stand-in calls, shared by the workers of a class (None: no caching)."""
        try:
            self.workdir = server.workdir()
            self._output = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]  # stdout, stderr
        except OSError as error:  # a full or missing temporary folder: the grader's, not the student's
            raise server.fail(f"the sandbox could not prepare a worker's folder for {module}.py: {error.strerror or error}") from None
        self._output_read = [0, 0]
        self.charged = 0.0
        """Seconds the grader spent on this worker's behalf (its stand-ins' answers)."""
        self.alive = True
        self.channel, theirs = socket.socketpair()
        self.channel.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        try:
            self.server_pid = server.spawn(self.workdir, staged, module, function, standins, limits, [theirs.fileno(), *(f.fileno() for f in self._output), *extra_fds], needs, watching, measured)
        finally:
            for fd in extra_fds:
                os.close(fd)
        """The worker's pid as the fork server sees it (in the sandbox's pid namespace), for reaping."""
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
        if self.server.bwrap:
            # Its pid as seen here is unknown (the server's is another namespace's, maybe a host
            # process's): the worker goes with the sandbox, started afresh.
            self.alive = False
            self.channel.close()
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.server.restart()
        else:
            self.stop()
        # No code of the submission ran before that message: the sandbox failed, not the student.
        raise self.server.fail(f"the sandbox could not start a worker for {self.module}.py (it ended before any of the submission's code ran)")

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
            raise self.server.fail(f"the sandbox could not start a worker for {self.module}.py (it ended before any of the submission's code ran)") from None

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
                raise ImportFailed(f"{self.module}.py could not be imported: the worker {self.stop()} while importing it") from None
            op = header.get("op")
            if op == "callback" and answer_callback is not None and not self.watching:
                try:
                    self._answer_callback(header, buffers, answer_callback, self.function, bounds, deadline)
                except TimeoutError:
                    self.stop()
                    raise CallTimedOut(f"importing {self.module}.py took longer than {deadline.words()}") from None
                continue
            if op == "import_failed":
                self.stop()
                raise ImportFailed(f"{self.module}.py could not be imported: {_problem_message(header)}")
            if op != "ready":
                self.stop()
                raise ImportFailed(f"{self.module}.py could not be imported: the worker broke the protocol (sent {str(op)[:40]!r})")
            return

    def call(self, function: str, args: tuple, kwargs: dict, answer_callback: Callable[[str, str, tuple, dict], object],
             return_inputs: bool = False, room: AnswerRoom | None = None):
        """Run ``function(*args, **kwargs)`` in the worker and return its plain-data result
        (with ``return_inputs``: the triple result, args, kwargs as the call left them). An
        answer past its ``room`` is refused, unread (``BadReturn``, the worker stopped)."""
        buffers: list = []
        request = {"op": "call", "function": function, "args": wire.encode((args, kwargs), buffers), "return_inputs": return_inputs}
        self._send(wire.frame(request, buffers), function)
        bounds = StandinBounds(args, kwargs)
        return self._await_result(function, return_inputs, answer_callback, bounds, admit=self._answer_admission(room))

    def call_batch(self, calls: list[tuple[str, tuple, dict, bool]], answer_for: Callable[[str], Callable[[str, str, tuple, dict], object]], framed: list | None = None, expected: list | None = None) -> list:
        """Run several calls ``(function, args, kwargs, return_inputs)`` with one message, for a
        class's fast path.

        The calls share one deadline, one call's: every input is sent at once, so neither what
        the worker says of its progress nor the times its results come back can tell one call's
        time from another's; a batch answered whole within one deadline shows that none of its
        calls took longer. Past it, ``CallTimedOut`` when no result came back and the worker
        says it is in the first call (that call's own deadline passed, as live), else
        ``BatchPastItsDeadline``. The first call that fails raises its outcome, as ``call``
        would, and the worker runs none of the calls after it. ``framed`` is the message
        ``batch_message(calls)`` made, when the caller keeps it to send again.
        ``expected``: per call, an ``Expected`` answer; a result identical to it on the wire is
        that answer's value, returned as it is (not decoded again). An answer past ``ROOM_FACTOR``
        times its expected one, or the batch's answers past ``KEPT_PER_TEST_BYTES`` together, are
        refused unread (``BadReturn``).
        """
        if self._marker is not None:
            MARKER.pack_into(self._marker, 0, 0, 0, 0)  # this batch's calls only, from its first
        self._send(framed or batch_message(calls), calls[0][0])
        deadline = self.deadline()
        expected = expected or [None] * len(calls)
        kept = KeptBudget(KEPT_PER_TEST_BYTES)
        # A watching worker is answered no stand-in call: it needs no callback, nor bounds for one.
        answer = None if self.watching else answer_for(calls[0][0])
        values = []
        for index, ((function, args, kwargs, return_inputs), want) in enumerate(zip(calls, expected)):
            room = AnswerRoom(function, want.nbytes) if want is not None else None
            bounds = None if self.watching else StandinBounds(args, kwargs)
            try:
                admit = self._answer_admission(room, kept)
                values.append(self._await_result(function, return_inputs, answer, bounds, want, deadline, admit))
            except CallTimedOut:
                if index == 0 and self._running_call() == 0:
                    raise
                late = f"{function}'s {len(calls)} calls were not all back within {deadline.words()}"
                raise BatchPastItsDeadline(late, function) from None
        if self.watching:
            # Sent one at a time, the calls would have met a worker that stopped listening to the
            # grader on the way: the batch counts only if it still listens after its last call.
            self._send(wire.frame({"op": "listening"}), calls[-1][0])
        return values

    def _send(self, framed: list, function: str) -> None:
        """Send a message of calls, the first of them to ``function``. A worker that stopped
        reading (its code shut the line to the grader) or is gone is a crash, as on the way back."""
        try:
            deadline = self.deadline()
            wire.send_framed(self.channel, framed, deadline)
        except wire.PeerClosed:
            # How the worker then ended is a race with its own exit, not worth a different message.
            self.stop()
            raise WorkerCrashed(f"{function} could not be called: the worker for {self.module}.py had stopped listening to the grader, so it was stopped", function) from None
        except TimeoutError:
            self.stop()
            raise CallTimedOut(f"{function} could not be called: the worker for {self.module}.py did not read its call within {deadline.words()}", function) from None

    def _answer_admission(self, room: AnswerRoom | None, kept: KeptBudget | None = None, op: str | None = "result"):
        """What ``wire.receive`` asks of a message before reading its data: a message of ``op``
        (None: any) past its ``room``, or past what ``kept`` may still take, raises ``AnswerTooLarge``."""
        if room is None and kept is None:
            return None

        def admit(header: dict, nbytes: int) -> None:
            if op is not None and header.get("op") != op:
                return
            refusal = room.refusal(nbytes) if room is not None else None
            if refusal is None and kept is not None and not kept.take(nbytes):
                who = room.function if room else "the worker"
                refusal = (f"{who} returned {size_in_words(kept.used + nbytes)} over one test's calls, more than the "
                           f"{size_in_words(kept.limit)} the grader keeps of a test")
            if refusal is not None:
                raise AnswerTooLarge(refusal)

        return admit

    def _await_result(self, function: str, return_inputs: bool, answer_callback, bounds: StandinBounds,
                      expected: "Expected | None" = None, deadline: "Deadline | None" = None, admit: Callable | None = None):
        # The reference's time on stand-in calls counts against the call's deadline: it is work the
        # grader does on the student's behalf, and a loop of them must not cost more than the call.
        deadline = deadline or self.deadline()
        while True:
            try:
                header, buffers = wire.receive(self.channel, deadline, admit)
                op = header.get("op")
                if op == "callback" and not self.watching:
                    self._answer_callback(header, buffers, answer_callback, function, bounds, deadline)
                    continue
                if op == "result":
                    if self.watching:
                        self.notes.append(header.get("nested"))
                    if expected is not None and expected.matches(header.get("value"), buffers):
                        return expected.value
                    value = wire.decode(header.get("value"), buffers)
                    if return_inputs and not (isinstance(value, tuple) and len(value) == 3):
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

    def _answer_callback(self, header: dict, buffers: list, answer_callback, caller: str, bounds: StandinBounds, deadline: Deadline) -> None:
        """Answer one stand-in call, the reply sent by ``deadline`` (``TimeoutError``: the worker
        did not read it, and the call it made is over); the grader's time on it is charged there."""
        started = time.thread_time()
        try:
            self._answer_stand_in(header, buffers, answer_callback, caller, bounds, deadline)
        finally:
            spent = time.thread_time() - started
            deadline.charge(spent)
            self.charged += spent

    def _answer_stand_in(self, header: dict, buffers: list, answer_callback, caller: str, bounds: StandinBounds, deadline: Deadline) -> None:
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
            reply, reply_buffers = {"op": "callback_raised", "type": kind, "message": f"{type(error).__name__}: {error}"[:2000]}, []
        framed = wire.frame(reply, reply_buffers)
        if key is not None:
            message = b"".join(framed)
            self.answer_cache.add(key, message)
            framed = [message]
        wire.send_framed(self.channel, framed, deadline)

    def deadline(self, seconds: float | None = None) -> Deadline:
        """``seconds`` (default: a call's) of this worker's work from now (``deadlines``)."""
        return Deadline(self.meter, self.limits.call_seconds if seconds is None else seconds)

    def work_seconds(self) -> float:
        """CPU seconds this worker's processes spent, and the grader's on its behalf, so far."""
        return self.meter.seconds() + self.charged

    def load(self, through: int) -> None:
        """A watching worker: import the files up to place ``through`` (from 1, in course order),
        under an import's deadline, as a live worker's import of its file has."""
        if through <= self.loaded_through:
            return
        self._send(wire.frame({"op": "load", "through": through}), self.function)
        deadline = self.deadline(max(self.limits.call_seconds, 2.0))
        try:
            header, _ = wire.receive(self.channel, deadline)
        except TimeoutError:
            self.stop()
            raise CallTimedOut(f"importing the submission's files took longer than {deadline.words()}") from None
        except (wire.PeerClosed, wire.WireError):
            raise WorkerCrashed(f"the worker {self.stop()} while importing the submission's files") from None
        if header.get("op") != "loaded":
            self.stop()
            raise BadReturn("the worker broke the protocol while importing the submission's files")
        self.loaded_through = through

    def evidence(self, want: list[tuple[int, int]]) -> list:
        """From a watching worker: the arguments and result of each watched call ``want`` names
        (its call's place in the last message, its own place among that call's notes), as
        [(args, kwargs), result] each."""
        self._send(wire.frame({"op": "evidence", "want": [list(w) for w in want]}), self.function)
        try:
            # What it says its calls were is kept while they are checked: as much as a test's calls.
            admit = self._answer_admission(None, KeptBudget(KEPT_PER_TEST_BYTES), None)
            deadline = self.deadline()
            header, buffers = wire.receive(self.channel, deadline, admit)
            if header.get("op") != "evidence":
                raise wire.WireError("not the evidence asked for")
            values = wire.decode(header.get("value"), buffers)
        except TimeoutError:
            self.stop()
            raise CallTimedOut(f"{self.function}'s worker did not say what its calls were within {deadline.words()}") from None
        except wire.PeerClosed:
            raise WorkerCrashed(f"{self.function}'s worker {self.stop()}") from None
        except (wire.WireError, AnswerTooLarge) as error:
            self.stop()
            raise BadReturn(f"{self.function}'s worker broke the protocol: {error}") from None
        if not (isinstance(values, list) and len(values) == len(want)):
            raise BadReturn(f"{self.function}'s worker broke the protocol: not the evidence asked for")
        return values

    def where_it_stopped(self) -> tuple[int, bool, str | None]:
        """For a watching worker whose call timed out or crashed: the place in its message of that
        call, as the worker last said; whether it entered any watched call during it; and which
        watched function was running (None: its own code)."""
        what, place, index = MARKER.unpack_from(self._marker, 0) if self._marker is not None else (0, 0, 0)
        if what != WATCHED:
            return index, False, None
        return index, True, self.watched_names[place - 1] if 0 < place <= len(self.watched_names) else None

    def _running_call(self) -> int:
        """The place in its batch of the call a watching worker says it is running (0 for a
        live worker, which sends each result as it is ready). Its word: believed only where a
        lie costs the worker itself (which call to blame for a timeout)."""
        return MARKER.unpack_from(self._marker, 0)[2] if self._marker is not None else 0

    def file_being_imported(self) -> str | None:
        """For a watching worker that timed out or crashed: the file it was importing then, as it
        last said (None: it was importing nothing)."""
        what, place, _ = MARKER.unpack_from(self._marker, 0) if self._marker is not None else (0, 0, 0)
        return self.watched_files[place - 1] if what == IMPORTING and 0 < place <= len(self.watched_files) else None

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
        if self._marker is not None:
            self._marker.close()


class _Refused(Exception):
    """A stand-in call the reference will not run: its message goes to the student as a ValueError."""


class BatchPastItsDeadline(CallTimedOut):
    """A batch's calls did not all come back within one call's deadline: no call of it is known
    to have taken longer than its own deadline, nor known not to have (``call_batch``)."""


def _proc_status_bytes(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"/proc/{pid}/status has no {field}")
