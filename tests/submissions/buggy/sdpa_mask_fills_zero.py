"""Fills masked scores with 0 instead of -inf: exp(0) = 1, so masked keys still get weight.

file: attention.py
breaks: scaled_dot_product_attention
"""


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, scores, 0.0)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights
