"""What one worker, and one submission, may use: ``Limits``."""

from __future__ import annotations

from dataclasses import dataclass


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
