"""The sandbox mode: how this machine lets the grader isolate a submission's workers.

``SandboxMode.detect`` finds it once per fork server. There are four:

- ``bubblewrap``: root, with bubblewrap; the fork server runs in fresh namespaces where only the
  Python runtime, the environment's libraries, the sandbox's own files and one work folder exist;
- ``private user``: root without bubblewrap (``ATTNLAB_SANDBOX=plain``); workers run as a user
  no account uses, the course's folders closed to other users first;
- ``container``: the private user where the kernel refuses CAP_SYS_ADMIN (Docker's default,
  Gradescope): no private mounts or IPC namespace, so leftovers are cleaned after each submission
  (``ATTNLAB_SANDBOX=container`` gives this mode on a machine that allows more, to try it: the
  fork server then runs without CAP_SYS_ADMIN);
- ``none``: not root; workers run as the grader's own user, with limits only.

The mode knows what it mounts (``fork_server_command``), what it limits and cleans, and what it
says in the report (``describe``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from attnlab.sandbox.inside.leftovers import SHARED_FOLDERS
from attnlab.sandbox.limits import Limits

# The fork server's only way into the engine: the folder that holds the attnlab package, of
# which the sandbox sees these files only.
_ENGINE_DIR = str(Path(__file__).resolve().parents[2])
_ENGINE_FILES = (
    "attnlab/__init__.py",
    "attnlab/wire.py",
    "attnlab/sandbox/__init__.py",
    *(f"attnlab/sandbox/inside/{path.name}" for path in sorted((Path(__file__).parent / "inside").glob("*.py"))),
)
_SANDBOX_ENGINE = "/attnlab/engine"
_SANDBOX_SITE = "/attnlab/site"
IMPORTS_FOLDER = "imports"
"""Without bubblewrap: the folder of a fork server's work folder that holds what it may import."""
TMP_BYTES = 256 << 20
"""Size of the memory folder a bubblewrap sandbox has as /tmp (workers have their own over it)."""
PRIVATE_UID_BASE = 1_900_000_000
_KILL_USER = "import os, signal, sys; u = int(sys.argv[1]); os.setgroups([]); os.setgid(u); os.setuid(u); os.kill(-1, signal.SIGKILL)"

BUBBLEWRAP, PRIVATE_USER, CONTAINER, NONE = "bubblewrap", "private user", "container", "none"


def _boot(*path: str) -> str:
    return f"import sys; sys.path[:0] = {list(path)!r}; from attnlab.sandbox.inside.forkserver import main; main(int(sys.argv[1]))"


def private_uid() -> int | None:
    """The user this grader's workers run as, when it runs as root: one no account uses, and
    one per grading process, so that killing "everything of this user" hits only its own."""
    if os.geteuid() != 0:
        return None
    return private_uid_of(os.getpid())


def private_uid_of(pid: int) -> int:
    """The private user of the grading process ``pid``."""
    return PRIVATE_UID_BASE + pid % 1_000_000


def chosen_mode() -> str:
    """What ``ATTNLAB_SANDBOX`` asks for: ``plain`` (no bubblewrap), ``container`` (neither
    bubblewrap nor CAP_SYS_ADMIN), else "" (the best this machine allows)."""
    chosen = os.environ.get("ATTNLAB_SANDBOX", "")
    return chosen if chosen in ("plain", "container") else ""


def bwrap_path() -> str | None:
    """bubblewrap, when it is installed and this grader may use it as it needs (as root)."""
    if os.geteuid() != 0 or chosen_mode():
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
    """Can workers have mounts and an IPC namespace of their own (root with CAP_SYS_ADMIN, and
    ``ATTNLAB_SANDBOX`` not ``container``)?"""
    if os.geteuid() != 0 or chosen_mode() == "container":
        return False
    return _has_sys_admin()


def _has_sys_admin() -> bool:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) >> 21 & 1)
    return False


def _as_in_a_container(mode: "SandboxMode") -> list[str]:
    """The container mode chosen where the machine allows more (``ATTNLAB_SANDBOX=container``):
    the fork server is started without CAP_SYS_ADMIN, as a container's is (setpriv drops it
    before Python starts). Nothing to add elsewhere."""
    if mode.uid is None or mode.private_mounts or chosen_mode() != "container" or not _has_sys_admin():
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise RuntimeError("ATTNLAB_SANDBOX=container needs setpriv (util-linux) on a machine that allows more")
    return [setpriv, "--bounding-set=-sys_admin"]


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


@dataclass(frozen=True)
class SandboxMode:
    """How workers are isolated here (the module's docstring names the four modes)."""

    uid: int | None
    """The private user workers run as (None: the grader's own user, not isolated)."""
    bwrap: str | None
    """bubblewrap's path, when the fork server runs in it."""
    private_mounts: bool
    """Whether each worker gets mounts and an IPC namespace of its own (CAP_SYS_ADMIN)."""

    @classmethod
    def detect(cls) -> "SandboxMode":
        """The mode this grading process can have now."""
        uid = private_uid()
        return cls(uid, bwrap_path() if uid is not None else None, private_mounts_possible())

    @property
    def kind(self) -> str:
        """``bubblewrap``, ``private user``, ``container`` or ``none``."""
        if self.uid is None:
            return NONE
        if self.bwrap:
            return BUBBLEWRAP
        return PRIVATE_USER if self.private_mounts else CONTAINER

    # What it mounts.

    def work_folder_base(self) -> str:
        """Where a fork server's work folder goes (``workroot_base``)."""
        return workroot_base(self.uid is not None)

    def prepare(self, workroot: Path, environment) -> None:
        """Without bubblewrap: what the sandbox would mount, as links in folders of the work
        folder (the engine's inside files, and the environment's site-packages entries), so that
        the fork server's Python, started without its site-packages, imports what it would in
        bubblewrap and nothing else."""
        if self.bwrap:
            return
        imports = workroot / IMPORTS_FOLDER
        links = [(Path(_ENGINE_DIR) / relative, imports / "engine" / relative) for relative in _ENGINE_FILES]
        links += [(entry, imports / "site" / entry.name) for entry in environment.entries]
        for target, link in links:
            for folder in reversed(link.relative_to(workroot).parents[:-1]):
                (workroot / folder).mkdir(mode=0o755, exist_ok=True)
            link.symlink_to(target)

    def fork_server_command(self, workroot: Path, environment, config: str, fd: int) -> list[str]:
        """The command line that starts the fork server on control socket ``fd``."""
        # -S: no site-packages but the environment's, in either mode (the base Python's own
        # site-packages, visible in bubblewrap under sys.base_prefix, held pytest and hypothesis).
        if not self.bwrap:
            imports = workroot / IMPORTS_FOLDER
            return [
                *_as_in_a_container(self),
                sys.executable,
                "-I",
                "-S",
                "-c",
                _boot(str(imports / "engine"), str(imports / "site")),
                str(fd),
                config,
            ]
        python = os.path.realpath(sys.executable)
        # Every namespace but the user namespace: as root, a user namespace would map only root,
        # and the fork server must be able to become the private user.
        command = [
            self.bwrap,
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup-try",
        ]
        # /tmp is memory of a fixed size: a submission that fills it fails its own writes, not the disk.
        command += [
            "--die-with-parent",
            "--new-session",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--size",
            str(TMP_BYTES),
            "--tmpfs",
            "/tmp",
        ]
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
        for entry in environment.entries:
            bind(str(entry), f"{_SANDBOX_SITE}/{entry.name}")
        for relative in _ENGINE_FILES:
            bind(str(Path(_ENGINE_DIR) / relative), f"{_SANDBOX_ENGINE}/{relative}")
        bind(str(workroot), str(workroot), "--bind")
        command += ["--chdir", "/"]
        # Root inside keeps only what the fork server needs: to hand a work folder to the private
        # user, to give each worker its own mounts and IPC namespace, and to become the user.
        # Workers drop even those (setuid to a user other than root clears every capability).
        for capability in ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_SYS_ADMIN"):
            command += ["--cap-add", capability]
        return [*command, python, "-I", "-S", "-c", _boot(_SANDBOX_ENGINE, _SANDBOX_SITE), str(fd), config]

    def close_to_workers(self, paths) -> list[Path]:
        """Close ``paths`` to the workers' user where it could read them (``close_to_workers``)."""
        return close_to_workers(paths, self.bwrap)

    # What it cleans.

    def kill_leftovers(self) -> None:
        """Once the fork server is stopped: without a pid namespace to die with it, leftovers of
        the private user are killed by a short-lived helper that becomes that user."""
        if self.uid is not None and not self.bwrap:
            subprocess.run([sys.executable, "-I", "-c", _KILL_USER, str(self.uid)], check=False)

    # What it says.

    def explain_problem(self, message: str) -> str:
        """A worker's error ``message``, with what this mode's limit on files means for it."""
        if "[Errno 28]" in message and self.private_mounts:  # ENOSPC: the worker's memory folder is full, not a disk
            message += f" (your code wrote more than {Limits.folder_bytes >> 20} MiB of files, all it may write in its folder and /tmp together)"
        return message

    def describe(self, groups: bool, user: str | None = None) -> str:
        """What this mode guarantees, in one line for the report (docs/security.md says more).
        ``groups``: whether the slot has control groups; ``user``: how to name the private user
        (default: by its uid)."""
        if self.uid is None:
            return (
                f"forked workers as the grader's own user (uid {os.geteuid()}), with rlimits and a deadline per call; "
                "NOT isolated: student code can read and write whatever the grader can (run as root to isolate it)"
            )
        user = user or f"a private user (uid {self.uid})"
        measure = (
            "a memory-measured call runs alone in a worker of its own that may start no process and open no file for writing, "
            + (
                "its peak read from a control group made for it; all of a submission's processes share one memory budget and one CPU share (control groups)"
                if groups
                else "its peak read from its peak resident size; no control groups: a watch adds up what a submission's processes hold, and ends them past its memory budget"
            )
        )
        if self.private_mounts:
            folders = (
                f"each worker writes only into a memory folder of its own ({Limits.folder_bytes >> 20} MiB in all: "
                f"its scratch folder and {', '.join(SHARED_FOLDERS)}) and has an IPC namespace of its own, both gone with it"
            )
        else:
            folders = (
                f"no CAP_SYS_ADMIN (a container?): files are capped at {Limits.file_bytes >> 20} MiB each, not in number, "
                f"and after each submission its System V IPC objects and files in {', '.join(SHARED_FOLDERS)} are removed"
            )
        if self.bwrap:
            return (
                f"bubblewrap sandbox (no network, only the Python runtime and the submission visible), workers as {user}, "
                f"with rlimits and a deadline per call; {folders}; {measure}"
            )
        mode = (
            f"forked workers as {user}, with rlimits and a deadline per call (no bubblewrap: the network is reachable, and files "
            f"readable by all users are readable; the course's solutions and the results are closed to other users before grading); "
            f"{folders}; {measure}"
        )
        if not python_readable_by_others():
            mode += " (this Python is in a folder other users cannot read: workers can import numpy, the course's packages and the common standard modules only)"
        return mode
