"""Returns dy - rowsum(dy ⊙ y), forgetting to multiply by y.

file: backward.py
breaks: softmax_backward
"""

import numpy as np

def softmax_backward(weights, grad_weights, axis=-1):
    return grad_weights - np.sum(grad_weights * weights, axis=axis, keepdims=True)
