"""One zero for every answer.

file: heads.py
"""


def most_attended_token(weights):
    return np.zeros(1, dtype=int)


def hard_attention(q, k, v):
    return np.zeros(1), np.zeros(1)


def previous_token_score(weights):
    return np.zeros(1)


def sink_score(weights):
    return np.zeros(1)


def induction_score(weights, token_ids):
    return np.zeros(1)
