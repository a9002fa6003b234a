"""When a worker's time is up: the CPU time of its processes, with a wall-clock backstop far above.

A classmate graded beside a submission (a busy one above all) slows its wall clock, never its CPU
time: with wall-clock deadlines an honest, slow softmax lost 6 of 13 points beside a student who
burned CPU. So a deadline counts the CPU seconds the worker's processes spent (its threads, and
the children it waited for, as the kernel counts them in ``/proc/PID/stat``) and the grader's own
seconds on its behalf (the reference answering its stand-ins). A worker that waits without
computing (a sleep, a read that never comes) is ended by the wall clock, ``BACKSTOP`` times the
deadline later.

``wire``'s functions read a ``Deadline`` as they read a monotonic one: ``deadline -
time.monotonic()`` is how long to wait before asking again, 0 or less once the time is up; a
worker that has ended is ``wire.PeerClosed`` there, even while a process it started still holds
its end of the line open.
"""

from __future__ import annotations

import os
import time

from attnlab import wire

BACKSTOP = 10.0
"""The wall-clock backstop, as a multiple of the CPU-time deadline."""
POLL_SECONDS = 0.1
"""The longest wait between two looks at a worker's CPU time (a worker with many threads spends
CPU faster than the wall clock runs)."""
_TICKS = os.sysconf("SC_CLK_TCK")


def backstop(seconds: float) -> float:
    """The wall-clock seconds after which a deadline of ``seconds`` of CPU time is up anyway."""
    return BACKSTOP * seconds


FRESH_SECONDS = 0.001
"""A reading this recent is read again from memory, not /proc: in a millisecond a worker's
processes spend at most a millisecond of CPU a core."""


class CpuMeter:
    """The CPU seconds process ``pid`` has spent, with the children it waited for; its last
    reading once it is gone."""

    def __init__(self, pid: int):
        self.pid = pid
        self.last = 0.0
        self._read_at = -1.0
        self.gone = False
        """Has the process ended (a zombie, or reaped)?"""
        # Opened once and read again with pread: a call reads it once or twice, and opening and
        # closing it each time cost more than the reading. The open file stays the process's
        # own: once it is reaped, reading fails (its pid's next owner is never read).
        try:
            self._stat: int | None = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self._stat = None
        self.seconds()

    def seconds(self) -> float:
        now = time.monotonic()
        if now - self._read_at < FRESH_SECONDS:
            return self.last
        self._read_at = now
        if self._stat is None:  # closed, or never opened: its time is what was last read
            self.gone = True
            return self.last
        try:
            fields = os.pread(self._stat, 1024, 0).rpartition(b")")[2].split()
            # After the command's closing parenthesis: state is field 3, utime 14, stime 15,
            # cutime 16, cstime 17 (proc(5)).
            self.last = max(self.last, sum(int(f) for f in fields[11:15]) / _TICKS)
            self.gone = fields[0] in (b"Z", b"X")
        except (OSError, ValueError, IndexError):
            self.gone = True  # its time is what was last read
        return self.last

    def close(self) -> None:
        """Let go of the process's stat file; the meter answers its last reading from then on."""
        if self._stat is not None:
            os.close(self._stat)
            self._stat = None

    def __del__(self):
        self.close()


CORES = os.cpu_count() or 1
"""The machine's CPUs: a worker's processes spend CPU time at most this much faster than the
wall clock runs, so its meter need not be read before that could matter."""


class Deadline:
    """``seconds`` of work from now: the worker's CPU time (``meter``) and the grader's seconds on
    its behalf (``charge``); or the wall-clock backstop, whichever comes first. The meter is
    read when the work left could be spent, at most every ``POLL_SECONDS``: a call that answers
    at once costs one reading."""

    def __init__(self, meter: CpuMeter, seconds: float):
        self.meter, self.seconds = meter, seconds
        self.started_cpu, self.started_wall = meter.seconds(), time.monotonic()
        self.charged = 0.0
        self.wall_end = self.started_wall + backstop(seconds)
        self._look_time, self._cpu_at_look = self.started_wall, 0.0

    def charge(self, seconds: float) -> None:
        """The grader worked ``seconds`` for this call (a stand-in answered): they count."""
        self.charged += seconds

    def spent(self) -> float:
        """Seconds of work spent since the deadline was set."""
        return self.meter.seconds() - self.started_cpu + self.charged

    def waited(self) -> float:
        """Wall-clock seconds since the deadline was set."""
        return time.monotonic() - self.started_wall

    def over_by_wall(self) -> bool:
        """Was (or is) this deadline up by the wall clock, the work under its seconds?"""
        return self.spent() < self.seconds

    def __sub__(self, now: float) -> float:
        wall_left = self.wall_end - now
        if wall_left <= 0:
            return 0.0
        since = now - self._look_time
        # The most the worker's processes can have spent since the meter was last read.
        most = self._cpu_at_look + since * CORES + self.charged
        if since < POLL_SECONDS and most < self.seconds:
            return min(wall_left, POLL_SECONDS - since, (self.seconds - most) / CORES)
        self._look_time, self._cpu_at_look = now, self.meter.seconds() - self.started_cpu
        if self.meter.gone:
            raise wire.PeerClosed
        work_left = self.seconds - self._cpu_at_look - self.charged
        if work_left <= 0:
            return 0.0
        return min(wall_left, work_left / CORES, POLL_SECONDS)

    def words(self) -> str:
        """What ran out, for a student: "2 s" of CPU time, or the wall clock's backstop."""
        if self.over_by_wall():
            return (
                f"{backstop(self.seconds):g} s (it was waiting, not computing: the grader waits {BACKSTOP:g} times "
                f"the {self.seconds:g} s it allows a call to compute)"
            )
        return f"{self.seconds:g} s"


class Budget:
    """Work charged to one submission's budget: seconds of work (as a deadline counts them) and,
    for the backstop, seconds of the wall clock."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.work = self.wall = 0.0

    def charge(self, work: float, wall: float) -> None:
        self.work += work
        self.wall += wall

    def used_up(self) -> bool:
        return self.work > self.seconds or self.wall > backstop(self.seconds)

    def words(self) -> str:
        """What it was, for a student."""
        if self.work > self.seconds:
            return f"{self.seconds:g} s of grading time"
        return f"{backstop(self.seconds):g} s of grading time by the clock (its code waited more than it computed)"
