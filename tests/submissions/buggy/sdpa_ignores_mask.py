"""Takes the mask argument and never uses it.

file: attention.py
breaks: scaled_dot_product_attention
"""

import numpy as np

def scaled_dot_product_attention(q, k, v, mask=None):
    weights = softmax(attention_scores(q, k), axis=-1)
    return weights @ v, weights
