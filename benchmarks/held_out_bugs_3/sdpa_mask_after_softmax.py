"""Applies the mask by multiplying the weights after the softmax, without renormalising.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np

def scaled_dot_product_attention(q, k, v, mask=None):
    w = softmax(attention_scores(q, k), axis=-1)
    if mask is not None:
        w = w * mask
    return w @ v, w
