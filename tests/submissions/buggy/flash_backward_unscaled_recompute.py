"""Rebuilds each tile's scores without the 1/sqrt(d_k) before subtracting the stored lse.

file: efficient.py
breaks: flash_attention_backward
"""

import numpy as np


def flash_attention_backward(q, k, v, out, lse, grad_out, block_q, block_k, causal=False, mask=None):
    if block_q < 1 or block_k < 1:
        raise ValueError("tiles need at least one query and one key")
    n_q, n_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    if mask is not None:
        mask = np.broadcast_to(mask, np.broadcast_shapes(np.shape(mask), (n_q, n_k)))
    lead = np.broadcast_shapes(
        q.shape[:-2], k.shape[:-2], v.shape[:-2], grad_out.shape[:-2], () if mask is None else mask.shape[:-2]
    )
    row_d = np.sum(grad_out * out, axis=-1, keepdims=True)
    base = np.where(np.isneginf(lse), 0.0, lse)[..., None]
    dq, dk, dv = np.zeros(lead + q.shape[-2:]), np.zeros(lead + k.shape[-2:]), np.zeros(lead + v.shape[-2:])
    for j in range(0, n_k, block_k):
        kj, vj = k[..., j : j + block_k, :], v[..., j : j + block_k, :]
        for i in range(0, n_q, block_q):
            qi, gi = q[..., i : i + block_q, :], grad_out[..., i : i + block_q, :]
            s = qi @ np.swapaxes(kj, -1, -2)
            if causal:
                s = np.where(
                    np.arange(i, i + qi.shape[-2])[:, None] >= np.arange(j, j + kj.shape[-2])[None, :], s, -np.inf
                )
            if mask is not None:
                s = np.where(mask[..., i : i + block_q, j : j + block_k], s, -np.inf)
            p = np.exp(s - base[..., i : i + block_q, :])
            dv[..., j : j + block_k, :] += np.swapaxes(p, -1, -2) @ gi
            dp = gi @ np.swapaxes(vj, -1, -2)
            ds = p * (dp - row_d[..., i : i + block_q, :]) / np.sqrt(d)
            dq[..., i : i + block_q, :] += ds @ kj
            dk[..., j : j + block_k, :] += np.swapaxes(ds, -1, -2) @ qi
    return dq, dk, dv
