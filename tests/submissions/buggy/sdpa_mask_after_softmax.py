"""Applies the mask after the softmax: masked weights are zeroed but the rows no longer sum to 1.

file: attention.py
breaks: scaled_dot_product_attention
"""


def scaled_dot_product_attention(q, k, v, mask=None):
    weights = softmax(attention_scores(q, k), axis=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ v, weights
