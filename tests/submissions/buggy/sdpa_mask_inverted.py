"""Inverted mask: sends -inf where the query MAY attend.

file: attention.py
breaks: scaled_dot_product_attention
"""


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, -1e9, scores)
    weights = softmax(scores, axis=-1)
    return weights @ v, weights
