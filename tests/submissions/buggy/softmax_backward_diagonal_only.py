"""Keeps only the diagonal of the softmax's Jacobian: dx = y * dy.

file: backward.py
breaks: softmax_backward
"""


def softmax_backward(weights, grad_weights, axis=-1):
    return weights * grad_weights
