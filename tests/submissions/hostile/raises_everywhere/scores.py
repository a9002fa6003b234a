"""Every function of scores.py raises ValueError at once: it computes nothing. A refusal the
hidden tests ask for passes, and earns nothing: such a test is paid only with the values of its
function.

file: scores.py
"""


def attention_scores(q, k):
    raise ValueError("nothing computed")


def cosine_scores(q, k, temperature):
    raise ValueError("nothing computed")


def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-06):
    raise ValueError("nothing computed")


def softcap(scores, cap):
    raise ValueError("nothing computed")


def additive_scores(q, k, w_q, w_k, v):
    raise ValueError("nothing computed")
