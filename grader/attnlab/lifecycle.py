"""Nothing of a grading run outlives it: its processes die with it, its scratch folders go.

Every process a run forks for its work asks the kernel to kill it when its parent dies
(``die_with``), so a ``kill -9`` or the OOM killer cannot leave a recording or grading
process behind. A folder that holds copies of students' code is named after the process
that made it (``scratch_prefix``): a killed run cannot remove its own, so the next run
removes those whose process is gone (``remove_stale_scratch``). Hypothesis's own files go in
such a folder too (``keep_hypothesis_in_scratch``), not in the folder a run was started from.
What a forked pool's processes inherit is a ``ForkedPoolState``, known in those processes only.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import tempfile
from pathlib import Path

PR_SET_PDEATHSIG = 1  # linux/prctl.h
SCRATCH_KINDS = ("attnlab-sandbox", "attnlab-stage", "attnlab-staged", "attnlab-audit", "attnlab-hypothesis")
_SCRATCH_NAME = re.compile(
    r"(attnlab-sandbox|attnlab-stage|attnlab-staged|attnlab-audit|attnlab-hypothesis)-(\d+)-[A-Za-z0-9_]+"
)


def die_with(parent: int) -> None:
    """Be killed when ``parent`` (this process's parent) goes, however it goes (``kill -9``, the
    OOM killer): a pool process left behind held its sandbox and waited for work forever. Linux only."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it went before the line above took effect
        os._exit(1)


class ForkedPoolState:
    """What the processes of a forked pool were started with (inherited, never pickled): set by the
    pool's initializer in each of its processes, read by their tasks; unset in every other process."""

    def __init__(self, what: str):
        self.what = what
        self._value = None
        self._set_in: int | None = None

    def set_in_this_process(self, value) -> None:
        self._value, self._set_in = value, os.getpid()

    def get(self):
        if self._set_in != os.getpid():
            raise RuntimeError(f"{self.what} is known only in a process its pool started")
        return self._value


def scratch_prefix(kind: str) -> str:
    """The name a scratch folder of ``kind`` (one of ``SCRATCH_KINDS``) made by this process starts with."""
    assert kind in SCRATCH_KINDS
    return f"{kind}-{os.getpid()}-"


def keep_hypothesis_in_scratch() -> Path:
    """Point hypothesis's own files (``.hypothesis/``, where it keeps the literals of the modules
    it runs: the solutions', the hidden tests') at a scratch folder of this process, closed to
    other users and removed when it ends, rather than the working folder it was started in."""
    import atexit

    from hypothesis.configuration import set_hypothesis_home_dir

    folder = Path(tempfile.mkdtemp(prefix=scratch_prefix("attnlab-hypothesis")))
    owner = os.getpid()
    atexit.register(lambda: os.getpid() == owner and shutil.rmtree(folder, ignore_errors=True))
    set_hypothesis_home_dir(folder)
    return folder


def running(pid: int) -> bool:
    """Is ``pid`` a live process (not gone, not a zombie waiting to be reaped)?"""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def remove_stale_scratch(*folders: str | Path) -> list[str]:
    """Remove the scratch folders, in ``folders`` (default: the temporary folder, /tmp and
    /var/tmp, where ``host.workroot_base`` may put them), of
    grading processes that are no longer running; return their paths.

    Only folders of ours: a directory (not a link) owned by this user, named as
    ``scratch_prefix`` names them, whose process is gone. A reused pid keeps a folder a while
    longer, never the other way round."""
    removed = []
    for folder in dict.fromkeys(map(str, folders or (tempfile.gettempdir(), "/tmp", "/var/tmp"))):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            match = _SCRATCH_NAME.fullmatch(entry.name)
            if match is None:
                continue
            try:
                if not entry.is_dir(follow_symlinks=False) or entry.stat(follow_symlinks=False).st_uid != os.geteuid():
                    continue
            except OSError:
                continue
            pid = int(match.group(2))
            if pid == os.getpid() or running(pid):
                continue
            shutil.rmtree(entry.path, ignore_errors=True)  # never follows a link a student left inside
            removed.append(entry.path)
    return removed


@contextlib.contextmanager
def interrupted_by_termination():
    """SIGTERM (kill, a scheduler's time limit) and SIGHUP (the terminal closed) stop a class as
    Ctrl-C does: the grading processes are stopped, the gradebook is rebuilt from what finished,
    and the same command goes on later. (By default they ended this process alone.)"""

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = {number: signal.signal(number, interrupt) for number in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
