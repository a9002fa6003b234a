"""attention_scores returns np.zeros(1).

file: scores.py
"""


def attention_scores(q, k):
    return np.zeros(1)
