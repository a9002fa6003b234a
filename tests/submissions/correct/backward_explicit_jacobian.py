"""Builds each row's full Jacobian diag(y) - y yᵀ and multiplies it out; the attention gradient with einsum. Masks with a finite -1e30 and multiplies the weights by the mask, which zeroes the row of a query that may see no key.

file: backward.py
"""

import numpy as np
from softmax import softmax


def softmax_backward(weights, grad_weights, axis=-1):
    y = np.moveaxis(np.asarray(weights, dtype=float), axis, -1)
    dy = np.moveaxis(np.asarray(grad_weights, dtype=float), axis, -1)
    jacobian = np.einsum("...i,ij->...ij", y, np.eye(y.shape[-1])) - y[..., :, None] * y[..., None, :]
    dx = np.einsum("...ij,...j->...i", jacobian, dy)
    return np.moveaxis(dx, -1, axis)


def attention_backward(q, k, v, grad_out, mask=None):
    scale = 1.0 / np.sqrt(q.shape[-1])
    scores = np.einsum("...qd,...kd->...qk", q, k) * scale
    if mask is not None:
        scores = np.where(mask, scores, -1e30)
    a = softmax(scores, axis=-1)
    if mask is not None:
        a = a * mask  # masked weights are 0 already; a row with no visible key was uniform, now 0
    dv = np.einsum("...qk,...qe->...ke", a, grad_out)
    da = np.einsum("...qe,...ke->...qk", grad_out, v)
    ds = softmax_backward(a, da) * scale
    dq = np.einsum("...qk,...kd->...qd", ds, k)
    dk = np.einsum("...qk,...qd->...kd", ds, q)
    return dq, dk, dv
