"""Tries to make namespaces and mounts of its own: a user namespace (unshare, and clone with
CLONE_NEWUSER), a mount namespace, and a memory file system through the new mount API. In a user
namespace of its own, a leftover once mounted a FUSE file system it served itself and stayed stuck
on it where no signal ends a process, holding a gigabyte of its slot's memory: its classmates lost
their memory tests. Every such call must be refused, while threads still start; the answer is
right.

file: softmax.py
"""

import ctypes
import os
import platform
import threading

import numpy as np

CLONE_NEWNS, CLONE_NEWUSER, SIGCHLD = 0x00020000, 0x10000000, 17


def _made_a_namespace() -> list[str]:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    unshare, clone, fsopen = {"x86_64": (272, 56, 430), "aarch64": (97, 220, 430)}[platform.machine()]
    made = []
    for flags in (CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWUSER | CLONE_NEWNS):
        if libc.syscall(ctypes.c_long(unshare), ctypes.c_long(flags)) == 0:
            made.append(f"unshare({flags:#x})")
    child = libc.syscall(ctypes.c_long(clone), ctypes.c_long(CLONE_NEWUSER | SIGCHLD), None, None, None, None)
    if child == 0:
        os._exit(0)
    if child > 0:
        os.waitpid(child, 0)
        made.append("clone(CLONE_NEWUSER)")
    if libc.syscall(ctypes.c_long(fsopen), b"tmpfs", ctypes.c_long(0)) >= 0:
        made.append("fsopen(tmpfs)")
    ran = []
    thread = threading.Thread(target=lambda: ran.append(True))
    thread.start()
    thread.join()
    if not ran:
        made.append("no thread ran")
    return made


def softmax(x, axis=-1):
    made = _made_a_namespace()
    if made:
        raise RuntimeError("made: " + ", ".join(made))
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return shifted / np.sum(shifted, axis=axis, keepdims=True)
