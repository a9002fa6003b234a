"""Gradients of one zero each.

file: backward.py
"""


def softmax_backward(weights, grad_weights, axis=-1):
    return np.zeros(1)


def attention_backward(q, k, v, grad_out, mask=None):
    return np.zeros(1), np.zeros(1), np.zeros(1)
