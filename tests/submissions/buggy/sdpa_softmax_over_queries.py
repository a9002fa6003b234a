"""Softmax over the query axis: each column becomes a distribution over queries, which is not retrieval.

file: attention.py
breaks: scaled_dot_product_attention
"""


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = attention_scores(q, k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-2)
    return weights @ v, weights
