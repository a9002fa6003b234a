"""Recomputes the weights with -inf and a plain softmax: a query that may see no key makes its row nan, and the products spread it to every entry of dq, dk and dv.

file: backward.py
breaks: attention_backward
"""

from scores import attention_scores
from softmax import softmax


def attention_backward(q, k, v, grad_out, mask=None):
    d_k = q.shape[-1]
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    grad_v = np.swapaxes(weights, -1, -2) @ grad_out
    grad_scores = softmax_backward(weights, grad_out @ np.swapaxes(v, -1, -2), axis=-1) / np.sqrt(d_k)
    return grad_scores @ k, np.swapaxes(grad_scores, -1, -2) @ q, grad_v
