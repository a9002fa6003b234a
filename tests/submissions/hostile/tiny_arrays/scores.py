"""Every score function returns np.zeros(1).

file: scores.py
"""


def attention_scores(q, k):
    return np.zeros(1)


def cosine_scores(q, k, temperature):
    return np.zeros(1)


def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    return np.zeros(1)


def softcap(scores, cap):
    return np.zeros(1)


def additive_scores(q, k, w_q, w_k, v):
    return np.zeros(1)
