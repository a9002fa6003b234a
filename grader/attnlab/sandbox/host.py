"""The trusted side of the sandbox: the fork server that forks a submission's workers.

``ForkServer`` starts the clean fork server once per grading process, in its ``SandboxMode``
(``mode``: bubblewrap, a private user, a container's private user, or none), stages submissions
where the sandbox can read them, opens a server of each submission's own (``begin``, ``end``)
and asks it to spawn, reap and clean. A worker, once forked, is a ``WorkerProcess``
(``worker_process``); what the reference may be asked for it is ``standins``'; the limits it
runs under, ``limits``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from attnlab.lifecycle import scratch_prefix
from attnlab.outcomes import GraderFailure
from attnlab.sandbox.cgroups import SlotGroups
from attnlab.sandbox.environment import SandboxEnvironment
from attnlab.sandbox.limits import Limits
from attnlab.sandbox.memory_watch import MemoryWatch
from attnlab.sandbox.mode import (
    SandboxMode,
    bwrap_path,
    close_to_workers,
    private_uid_of,
    workroot_base,
)

__all__ = [
    "ForkServer",
    "Limits",
    "SandboxMode",
    "bwrap_path",
    "close_to_workers",
    "describe_mode",
    "private_uid_of",
    "workroot_base",
]


CONTROL_FD = 3
"""The fork server's line to the grader, at the same number for every grader."""
ANSWER_SECONDS = 120.0
"""The longest a fork server may take to answer a request (a first import of torch on a busy
machine takes seconds, not minutes)."""


def worker_environment() -> dict:
    """A small, secret-free environment; one BLAS thread per worker keeps timing fair."""
    keep = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "TZ") if k in os.environ}
    return {**keep, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "HOME": "/nonexistent"}


class ForkServer:
    """The clean, pre-imported process that forks workers.

    With bubblewrap (as root), it runs in a fresh mount, pid, network, IPC and UTS
    namespace where only the Python runtime, numpy, the sandbox's own three files
    and one work folder exist; no network, and nothing of the grader, the
    solutions or other submissions. Without it, workers still run as a private
    user with resource limits.
    """

    def __init__(self, environment: SandboxEnvironment | None = None, sandbox_mode: SandboxMode | None = None):
        """``environment``: what student code may import (default: numpy and the standard library);
        ``sandbox_mode``: how workers are isolated (default: the best this machine allows)."""
        self.environment = environment or SandboxEnvironment.for_libraries()
        self.process: subprocess.Popen | None = None
        self.control: socket.socket | None = None
        self.sandbox_mode = sandbox_mode or SandboxMode.detect()
        self.workroot = Path(
            tempfile.mkdtemp(prefix=scratch_prefix("attnlab-sandbox"), dir=self.sandbox_mode.work_folder_base())
        )
        self.workroot.chmod(0o711)  # workers pass through to their own folder, and cannot list the others
        self.sandbox_mode.prepare(self.workroot, self.environment)
        self.failure: GraderFailure | None = None
        """Why the sandbox failed since ``take_failure`` was last asked: then no worker is started."""
        self.groups = SlotGroups.make()
        """This slot's control groups (None: the machine lets this grader make none)."""
        self.watch: "MemoryWatch | None" = None
        """Without groups: the watch that adds up what the submission being graded holds."""
        self._submission: socket.socket | None = None
        """The line to the server of the submission being graded (``begin``)."""
        self._submission_pid: int | None = None
        self._needs: tuple[str, ...] = ()
        self._start()

    @property
    def uid(self) -> int | None:
        """The private user the workers run as (None: the grader's own)."""
        return self.sandbox_mode.uid

    @property
    def bwrap(self) -> str | None:
        """bubblewrap's path, when the server runs in it."""
        return self.sandbox_mode.bwrap

    @property
    def mode(self) -> str:
        """What this mode guarantees, in one line for the report (docs/security.md says more)."""
        return self.sandbox_mode.describe(getattr(self, "groups", None) is not None)

    def _start(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        config = {**self.environment.as_config(), "uid": self.uid}
        given = theirs.fileno()
        # Its line to the grader at one number, whatever this process holds open: the fork server's
        # command line (which every worker can read) must not tell one grader from another.
        self.process = subprocess.Popen(
            self.sandbox_mode.fork_server_command(self.workroot, self.environment, json.dumps(config), CONTROL_FD),
            pass_fds=[CONTROL_FD],
            preexec_fn=lambda: os.dup2(given, CONTROL_FD),
            stdin=subprocess.DEVNULL,
            env=worker_environment(),
            cwd="/",
        )
        theirs.close()
        self.control = ours

    @staticmethod
    def _ask(line: socket.socket, request: dict, fds: list[int] = ()) -> dict:
        """Send ``request`` with ``fds`` on ``line`` and return the reply (OSError: no reply, or
        none within ``ANSWER_SECONDS``: a server that hangs is one that stopped, never a grader
        that waits for ever)."""
        socket.send_fds(line, [json.dumps(request).encode()], list(fds))
        line.settimeout(ANSWER_SECONDS)
        try:
            reply = line.recv(1 << 16)
        finally:
            line.settimeout(None)
        if not reply:
            raise OSError("the line closed")
        return json.loads(reply)

    def begin(self, needs: tuple[str, ...] = ()) -> None:
        """Open a server for the next submission, forked from the fork server as every
        submission's is; ``needs``: the heavy libraries (torch) its files may import, imported
        by the fork server first, once for all. The one before it ends first (``end``)."""
        self.end()
        self._needs = tuple(needs)
        for attempt in (1, 2):
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                reply = self._ask(self.control, {"op": "begin", "needs": list(needs)}, [theirs.fileno()])
                self._submission, self._submission_pid = ours, int(reply["pid"])
                return
            except (OSError, ValueError, KeyError):
                ours.close()
            finally:
                theirs.close()
            if attempt == 1:  # a student may have killed the fork server: start a fresh one
                self._stop()
                self._start()
        raise self.fail("the sandbox's fork server stopped answering")

    def end(self) -> None:
        """The submission's server ends, and with it every process the submission has."""
        if self._submission is None:
            return
        self._submission.close()
        self._submission = None
        try:
            self._ask(self.control, {"op": "reap", "pid": self._submission_pid})
        except (OSError, ValueError):
            pass
        self._submission_pid = None

    def _request(self, request: dict, fds: list[int] = ()) -> dict:
        """Send ``request`` with ``fds`` to the submission's server (opened if none is) and return its reply."""
        for attempt in (1, 2):
            if self._submission is None:
                self.begin(self._needs)
            try:
                return self._ask(self._submission, request, fds)
            except (OSError, ValueError):
                pass
            if attempt == 1:  # a student may have killed its server: start a fresh one
                self.restart()
        raise self.fail("the sandbox's fork server stopped answering")

    def fail(self, message: str) -> GraderFailure:
        """Note that the sandbox failed (``message`` says how): the grade being made is not the
        student's, and no worker is started until ``take_failure``."""
        if self.failure is None:
            self.failure = GraderFailure(message)
        # Raised again by every later call: each raise would add its frames to the last ones, and
        # hypothesis formats the whole chain of every failing example.
        return self.failure.with_traceback(None)

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

    def spawn(
        self,
        workdir: Path,
        submission: Path,
        module: str,
        serves: tuple[str, ...],
        standins: dict,
        limits: Limits,
        fds: list[int],
        needs: tuple[str, ...] = (),
        measured: bool = False,
    ) -> int:
        """Fork a worker that serves the functions ``serves`` of ``module`` in the staged
        ``submission``, with ``standins`` answered by the reference (every one of them may use
        all of those). ``measured``: for one memory-measured call (``inside.syscalls``: no
        process, no file opened for writing)."""
        request = {
            "op": "spawn",
            "submission": str(submission),
            "needs": list(needs),
            "workdir": str(workdir),
            "module": module,
            "serves": list(serves),
            "standins": standins,
            "limits": limits.as_request(),
            "measured": measured,
        }
        if self.failure is not None:
            raise self.fail(str(self.failure))
        reply = self._request(request, fds)
        if "pid" not in reply:
            raise self.fail(
                f"the sandbox could not start a worker for {module}.py: {reply.get('error', 'no reason given')}"
            )
        return reply["pid"]

    def reap(self, pid: int) -> dict:
        if self._submission is None:
            return {}
        try:
            return self._ask(self._submission, {"op": "reap", "pid": pid})
        except (OSError, ValueError):
            return {}

    def clean(self) -> None:
        """Kill every process the workers left behind (as root: everything of the private user)."""
        if self._submission is None:
            return
        try:
            self._ask(self._submission, {"op": "clean"})
        except (OSError, ValueError):
            pass

    def restart(self) -> None:
        """Stop the server and everything it started, and start a fresh one."""
        self._stop()
        self._start()

    def close(self) -> None:
        """Stop the server and everything it started, and remove its work folder and groups."""
        self.end()
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
            raise self.fail(
                f"the sandbox could not put a worker in its control group: {error.strerror or error}"
            ) from None

    def end_measured(self) -> None:
        """The memory-measured call's worker is gone."""
        if self.groups is not None:
            self.groups.end_measured()

    def _stop(self) -> None:
        if self._submission is not None:
            self._submission.close()
            self._submission = self._submission_pid = None
        if self.control is not None:
            self.control.close()
        if self.process is not None:
            _kill_with_children(self.process)
            self.sandbox_mode.kill_leftovers()

    def __del__(self):
        # Only in the process that made it: a forked copy going away must not take its folder.
        if (
            getattr(self, "workroot", None) is not None
            and shutil is not None
            and self.workroot.name.startswith(scratch_prefix("attnlab-sandbox"))
        ):
            shutil.rmtree(self.workroot, ignore_errors=True)


def _children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    children = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as listing:
                children += [int(child) for child in listing.read().split()]
    except OSError:
        pass
    return children


def _kill_with_children(process: subprocess.Popen) -> None:
    """Kill the fork server's first process and the processes it started, then reap it.

    bubblewrap's sandboxed child waits, right after it is made, for its parent's word to go on,
    and only then binds its life to its parent's: the parent killed alone in that moment would
    leave the child waiting for ever, holding the grader's output open. Stopped first, the parent
    can start nothing more while its children are listed and killed.
    """
    try:
        os.kill(process.pid, signal.SIGSTOP)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + 2.0
    while process.poll() is None and not _stopped(process.pid) and time.monotonic() < deadline:
        time.sleep(0.001)
    for child in _children_of(process.pid):
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
    process.kill()
    process.wait()


def _stopped(pid: int) -> bool:
    """Whether process ``pid`` is stopped, or gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("T", "t", "Z", "X")


def describe_mode() -> str:
    """The mode new fork servers run in, in words (each has a private user of its own)."""
    groups = SlotGroups.make()
    try:
        return SandboxMode.detect().describe(groups is not None, "a private user per grading process")
    finally:
        if groups is not None:
            groups.close()


def _copy_submission(submission: Path, target: Path) -> None:
    """Copy the submission's regular top-level .py files: a symlink to /etc/shadow is not copied."""
    target.mkdir()
    for path in submission.iterdir():
        if path.suffix == ".py" and path.is_file() and not path.is_symlink():
            shutil.copyfile(path, target / path.name)
