"""Control groups for one grading slot, where the machine lets the grader make them.

A fork server serves one submission at a time. Where it can, the grader makes it a group of its
own, ``attnlab-<pid>-<n>``, beneath the group this process runs in (never elsewhere: a grader stays
within what it was given) in each hierarchy it may write, and puts every worker there before any
of the submission's code runs (``WorkerProcess`` waits for that before the worker goes on). So all
that the submission's processes allocate (their memory, files in memory folders, kernel buffers)
and all the CPU they use is the slot's:

- ``memory``: one budget for all of a submission's processes together; past it the kernel ends
  one of them, and ``oom_kills`` says so;
- a memory-measured call's worker goes in a group made for that call alone (``measured``), whose
  peak is the kernel's reading (``memory.peak``, ``memory.max_usage_in_bytes``): the worker can
  neither reset it nor hold memory out of its sight;
- ``cpu``: the slot's processes share one slot's weight, so a submission's many busy processes
  take no more of the machine from a classmate than one busy process would.

Detected, never assumed (``SlotGroups.make``): cgroup v2 where this process's group may give the
controllers to groups beneath it (the hierarchy's root, or a delegated subtree), else the v1
hierarchies writable here; None where neither is, and the sandbox falls back (``host``).
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

_PREFIX = "attnlab-"
_SERIALS = itertools.count(1)


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, file system type, options) of each cgroup file system mounted here."""
    found = []
    try:
        with open("/proc/self/mountinfo") as mountinfo:
            for line in mountinfo:
                before, _, after = line.partition(" - ")
                kind, _source, options = (after.split() + ["", "", ""])[:3]
                if kind in ("cgroup", "cgroup2"):
                    found.append((before.split()[4], kind, set(options.split(",")) | set(before.split()[5].split(","))))
    except OSError:
        pass
    return found


def _own_paths() -> dict[str, str]:
    """This process's group in each hierarchy: "" for v2, else each v1 controller's name."""
    paths = {}
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _number, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                paths[controller] = path
    except (OSError, ValueError):
        pass
    return paths


def _write(path: Path, text: str) -> None:
    with open(path, "w") as file:
        file.write(text)


def _read_number(path: Path, key: str | None = None) -> int:
    text = path.read_text()
    if key is None:
        return int(text.split()[0])
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key:
            return int(value)
    return 0


def _remove_tree(folder: Path) -> None:
    """Remove a group and the groups beneath it (deepest first); their processes must be gone."""
    for inner in sorted((p for p in folder.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        try:
            inner.rmdir()
        except OSError:
            pass
    try:
        folder.rmdir()
    except OSError:
        pass


def _remove_stale(parent: Path) -> None:
    """Groups of graders that are gone (killed with -9), which nobody else removes."""
    try:
        children = list(parent.iterdir())
    except OSError:
        return
    for child in children:
        number = child.name.removeprefix(_PREFIX).partition("-")[0]
        ours = child.name.startswith(_PREFIX) and number.isdigit() and child.is_dir()
        if ours and not Path(f"/proc/{number}").exists():
            _remove_tree(child)


class SlotGroups:
    """A grading slot's groups: ``workers`` (every worker), one per memory-measured call."""

    def __init__(self, version: int, memory: Path, cpu: Path | None):
        self.version, self.memory, self.cpu = version, memory, cpu
        self._measured = 0
        self.measured: Path | None = None
        """The group of the memory-measured call under way (None: none is)."""
        (self.memory / "workers").mkdir(exist_ok=True)
        self._counters: dict[Path, int] = {}
        """Open files of the groups' kill counters, read again in place after every call."""
        self._ended_kills = 0  # counted in measured groups that are gone
        self._oom_kills = self.oom_kills()

    @classmethod
    def make(cls) -> "SlotGroups | None":
        """This slot's groups, where the machine lets this process make them; else None."""
        if os.geteuid() != 0:
            return None
        name = f"{_PREFIX}{os.getpid()}-{next(_SERIALS)}"
        mounts, own = _mounts(), _own_paths()
        for mount, kind, options in mounts:
            if kind == "cgroup2" and "" in own:
                made = cls._make_v2(Path(mount) / own[""].lstrip("/"), name)
                if made is not None:
                    return made
        memory, cpu = (cls._v1_group(mounts, own, controller) for controller in ("memory", "cpu"))
        if memory is None:
            return None
        try:
            _remove_stale(memory)
            (memory / name).mkdir(exist_ok=True)
            if cpu is not None:
                try:
                    _remove_stale(cpu)
                    (cpu / name).mkdir(exist_ok=True)
                except OSError:
                    cpu = None
            return cls(1, memory / name, cpu / name if cpu is not None else None)
        except OSError:
            return None

    @staticmethod
    def _v1_group(mounts: list, own: dict[str, str], controller: str) -> Path | None:
        """This process's group in the v1 hierarchy of ``controller`` (None: there is none)."""
        for mount, kind, options in mounts:
            if kind == "cgroup" and controller in options and controller in own:
                return Path(mount) / own[controller].lstrip("/")
        return None

    @classmethod
    def _make_v2(cls, own: Path, name: str) -> "SlotGroups | None":
        try:
            enabled = (own / "cgroup.subtree_control").read_text().split()
            if "memory" not in enabled:
                _write(own / "cgroup.subtree_control", "+memory")  # refused unless this group may
            if "cpu" not in enabled and "cpu" in (own / "cgroup.controllers").read_text().split():
                try:
                    _write(own / "cgroup.subtree_control", "+cpu")
                except OSError:
                    pass
            _remove_stale(own)
            slot = own / name
            slot.mkdir(exist_ok=True)
            wanted = [c for c in ("memory", "cpu") if c in (slot / "cgroup.controllers").read_text().split()]
            _write(slot / "cgroup.subtree_control", " ".join(f"+{c}" for c in wanted))
            if not (slot / "memory.max").exists():
                _remove_tree(slot)
                return None
            # The peak of a measured call is read from memory.peak (Linux 5.19).
            return cls(2, slot, None)
        except OSError:
            return None

    def budget(self, memory_bytes: int) -> None:
        """All the slot's processes together may hold ``memory_bytes``; past it (swap included,
        where swap is accounted) the kernel ends one of them."""
        if self.version == 2:
            _write(self.memory / "memory.max", str(memory_bytes))
            if (self.memory / "memory.swap.max").exists():
                _write(self.memory / "memory.swap.max", "0")
            if (self.memory / "memory.oom.group").exists():
                _write(self.memory / "memory.oom.group", "1")  # past it, all of them end together
            return
        swap = self.memory / "memory.memsw.limit_in_bytes"
        # memsw must stay at or above the plain limit: lowered after it, raised before it.
        current = _read_number(self.memory / "memory.limit_in_bytes")
        if swap.exists() and memory_bytes > current:
            _write(swap, str(memory_bytes))
        _write(self.memory / "memory.limit_in_bytes", str(memory_bytes))
        if swap.exists():
            _write(swap, str(memory_bytes))

    def enter(self, pid: int, measured: bool = False) -> None:
        """Put process ``pid`` (a worker that has run nothing of the submission yet) in the slot:
        in the group of a new memory-measured call with ``measured``."""
        group = self.memory / "workers"
        if measured:
            self._measured += 1
            group = self.memory / f"measured-{self._measured}"
            group.mkdir()
            self.measured = group
        _write(group / "cgroup.procs", str(pid))
        if self.cpu is not None:
            _write(self.cpu / "cgroup.procs", str(pid))

    def measured_peak(self) -> int | None:
        """The most memory the measured call's group held (bytes), as the kernel counted it;
        None where this kernel does not keep it."""
        if self.measured is None:
            return None
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        try:
            return _read_number(self.measured / name)
        except (OSError, ValueError):
            return None

    def end_measured(self) -> None:
        """The measured call's worker is gone: its group goes too (its kills stay counted)."""
        if self.measured is not None:
            if self.version == 1:
                self._ended_kills += self._kills_in(self.measured)
            self._forget(self.measured)
            _remove_tree(self.measured)
            self.measured = None

    def usage(self) -> int:
        """What the slot's processes hold now (bytes), as the kernel charges it."""
        try:
            return _read_number(self.memory / ("memory.current" if self.version == 2 else "memory.usage_in_bytes"))
        except (OSError, ValueError):
            return 0

    def _kills_in(self, group: Path) -> int:
        """The kernel's count of kills in ``group`` (v2: and the groups beneath), read in place
        from a file kept open: asked after every call."""
        fd = self._counters.get(group)
        if fd is None:
            fd = self._counters[group] = os.open(
                group / ("memory.events" if self.version == 2 else "memory.oom_control"), os.O_RDONLY | os.O_CLOEXEC
            )
        for line in os.pread(fd, 4096, 0).decode().splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill":
                return int(value)
        return 0

    def _forget(self, group: Path) -> None:
        fd = self._counters.pop(group, None)
        if fd is not None:
            os.close(fd)

    def oom_kills(self) -> int:
        """How many of the slot's processes the kernel has ended for the budget so far."""
        try:
            if self.version == 2:
                return self._kills_in(self.memory)  # counts the groups beneath
            # v1 counts a kill in the victim's own group only: the slot's, the workers', the measured call's.
            groups = [self.memory, self.memory / "workers", *([self.measured] if self.measured is not None else [])]
            return self._ended_kills + sum(self._kills_in(group) for group in groups)
        except (OSError, ValueError):
            return 0

    def over_budget_since_last_asked(self) -> bool:
        """Did the kernel end a process of the slot for its budget since this was last asked?"""
        kills = self.oom_kills()
        over, self._oom_kills = kills > self._oom_kills, kills
        return over

    def close(self) -> None:
        """Remove the slot's groups (its processes are gone)."""
        for group in list(self._counters):
            self._forget(group)
        _remove_tree(self.memory)
        if self.cpu is not None:
            _remove_tree(self.cpu)
