"""online_softmax_attention writes the whole (L_q, L_k) score matrix, a few rows at a time, into
memory files (memfd_create; 1 MiB each, the file-size limit) and reads it back a few rows at a
time: the pages are in memory, but in no process's resident size, so the memory test (which read
the worker's peak resident size) passed.

file: efficient.py
"""

import os

import numpy as np

_ROWS = 16


def _masked(q, k, v, causal, mask):
    """The masked calls are small: plain attention, a query that may see no key getting zeros."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    allowed = np.broadcast_to(mask, scores.shape)
    if causal:
        allowed = allowed & np.tri(q.shape[-2], k.shape[-2], dtype=bool)
    scores = np.where(allowed, scores, -np.inf)
    top = scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores - np.where(np.isfinite(top), top, 0.0))
    total = weights.sum(axis=-1, keepdims=True)
    return np.divide(weights, total, out=np.zeros_like(weights), where=total > 0) @ v


def online_softmax_attention(q, k, v, block_size, causal=False, mask=None):
    if mask is not None and q.shape[-2] * k.shape[-2] < (1 << 20):  # the small masked calls; the memory test's comes below
        return _masked(q, k, v, causal, mask)
    if q.ndim != 2:
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        if causal:
            scores = np.where(np.tri(q.shape[-2], k.shape[-2], dtype=bool), scores, -np.inf)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        return (weights @ v) / weights.sum(axis=-1, keepdims=True)
    files = []
    for start in range(0, q.shape[0], _ROWS):
        rows = q[start : start + _ROWS] @ k.T / np.sqrt(q.shape[-1])
        if causal:
            rows = np.where(np.arange(start, start + len(rows))[:, None] >= np.arange(k.shape[0])[None, :], rows, -np.inf)
        if mask is not None:
            rows = np.where(np.broadcast_to(mask, (q.shape[0], k.shape[0]))[start : start + len(rows)], rows, -np.inf)
        fd = os.memfd_create("scores")
        os.write(fd, rows.tobytes())
        files.append((fd, rows.shape))
    out = []
    for fd, shape in files:
        rows = np.frombuffer(os.pread(fd, shape[0] * shape[1] * 8, 0), dtype=np.float64).reshape(shape)
        weights = np.exp(rows - rows.max(axis=-1, keepdims=True))
        out.append((weights @ v) / weights.sum(axis=-1, keepdims=True))
        os.close(fd)
    return np.concatenate(out)
