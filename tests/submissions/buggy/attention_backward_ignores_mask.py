"""Recomputes the weights without the mask.

file: backward.py
breaks: attention_backward
"""

from scores import attention_scores
from softmax import softmax


def attention_backward(q, k, v, grad_out, mask=None):
    d_k = q.shape[-1]
    a = softmax(attention_scores(q, k), axis=-1)
    dv = np.swapaxes(a, -1, -2) @ grad_out
    ds = softmax_backward(a, grad_out @ np.swapaxes(v, -1, -2)) / np.sqrt(d_k)
    return ds @ k, np.swapaxes(ds, -1, -2) @ q, dv
