"""One memory budget for all of a submission's processes where the machine gives the grader no
control group for it (``cgroups``): a thread that adds up, ``EVERY`` seconds, what each process of
the submission's private user holds beyond what it started with, and ends them all past the budget.

Each worker is limited in address space on its own; without this, 21 live workers of one
submission held 1284 MiB under a 64 MiB limit each. A process's share is its resident anonymous
and shared memory (``RssAnon`` + ``RssShmem``) less what it held when it started (a worker's when
the grader let it go on; a child's, its parent's then): what the fork server gave every worker is
counted for none. The bound is the budget plus what the processes can allocate between two looks.
"""

from __future__ import annotations

import os
import signal
import threading

EVERY = 0.05
"""Seconds between two sums."""


def resident_bytes(pid: int) -> int:
    """What process ``pid`` holds in anonymous and shared memory (bytes); 0 once it is gone."""
    total = 0
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(("RssAnon:", "RssShmem:")):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return 0
    return total


def _processes_of(uid: int) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.stat(f"/proc/{name}").st_uid == uid:
                found.append(int(name))
        except OSError:
            pass
    return found


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rpartition(b")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return None


class MemoryWatch:
    """Sums the memory the processes of ``uid`` added, while a submission is graded, and kills
    them all once it passes ``budget`` bytes (``over`` then says by how much)."""

    def __init__(self, uid: int, budget: int):
        self.uid, self.budget = uid, budget
        self.started_with: dict[int, int] = {}
        """What each worker held when the grader let it go on (bytes), by pid."""
        self.over: int | None = None
        """The sum that passed the budget (None: it has not)."""
        self.last = 0
        """The sum at the last look (bytes)."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="attnlab-memory-watch", daemon=True)
        self._thread.start()

    def admit(self, pid: int) -> None:
        """Worker ``pid`` goes on now: what it holds is its own start."""
        self.started_with[pid] = resident_bytes(pid)

    def added(self) -> int:
        """The memory the processes of the user added to what each started with, in all (bytes)."""
        total, started_with = 0, dict(self.started_with)  # a copy: the grader adds workers meanwhile
        for pid in _processes_of(self.uid):
            start, ancestor = None, pid
            for _ in range(32):  # a child is charged from what its nearest known ancestor started with
                start = started_with.get(ancestor)
                ancestor = _parent(ancestor) if start is None else ancestor
                if start is not None or ancestor is None:
                    break
            if start is None and not started_with:
                continue  # no worker yet: the fork server's own helpers, as the user, hold only what it gave them
            total += max(0, resident_bytes(pid) - (start if start is not None else max(started_with.values())))
        return total

    def check(self) -> None:
        """Look now: past the budget, end every process of the user (``over`` says so)."""
        total = self.last = self.added()
        if total > self.budget:
            self.over = total
            for _ in range(3):  # a process forking at the moment of the kill gets a second try
                for pid in _processes_of(self.uid):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass

    def _watch(self) -> None:
        while not self._stop.wait(EVERY):
            try:
                self.check()
            except Exception:  # noqa: BLE001 - a process met half-gone: the next look counts again
                continue

    def take_over(self) -> int | None:
        """The sum that passed the budget since this was last asked (None: none did)."""
        over, self.over = self.over, None
        return over

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
