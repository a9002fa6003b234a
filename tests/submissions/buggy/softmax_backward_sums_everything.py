"""Sums dy * y over the whole array instead of along the axis.

file: backward.py
breaks: softmax_backward
"""


def softmax_backward(weights, grad_weights, axis=-1):
    s = (grad_weights * weights).sum()
    return weights * (grad_weights - s)
