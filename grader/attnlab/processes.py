"""Processes the grader forks (recording and grading pools) die with the process that forked them."""

from __future__ import annotations

import ctypes
import os
import signal

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with(parent: int) -> None:
    """Be killed when ``parent`` goes, however it goes (``kill -9``, the OOM killer): a pool
    process left behind held its sandbox and waited for work forever. Linux only."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # it went before the line above took effect
        os._exit(1)
