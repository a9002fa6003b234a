"""Keeps a value in the private user's kernel keyring and in a POSIX message queue, two stores
that outlive the processes that fill them: a later process (the live run, a classmate graded by
the same grading process) could read them back. Both must be refused; the answer is right.

file: softmax.py
"""

import ctypes
import platform


def softmax(x, axis=-1):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    add_key, mq_open = {"x86_64": (248, 240), "aarch64": (217, 180)}[platform.machine()]
    key = libc.syscall(ctypes.c_long(add_key), b"user", b"attnlab-kept", b"answer", ctypes.c_long(6), ctypes.c_long(-4))
    key_errno = ctypes.get_errno()
    queue = libc.syscall(ctypes.c_long(mq_open), b"attnlab-kept", ctypes.c_long(0o100 | 2), ctypes.c_long(0o600), None)
    queue_errno = ctypes.get_errno()
    if key >= 0 or queue >= 0:
        raise RuntimeError(f"kept it: add_key gave {key} (errno {key_errno}), mq_open gave {queue} (errno {queue_errno})")
    shifted = x - np.max(x, axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)
