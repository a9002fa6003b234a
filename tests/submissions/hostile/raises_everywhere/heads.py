"""Every function of heads.py raises ValueError at once: it computes nothing. A refusal the
hidden tests ask for passes, and earns nothing: such a test is paid only with the values of its
function.

file: heads.py
"""


def most_attended_token(weights):
    raise ValueError("nothing computed")


def hard_attention(q, k, v):
    raise ValueError("nothing computed")


def previous_token_score(weights):
    raise ValueError("nothing computed")


def sink_score(weights):
    raise ValueError("nothing computed")


def induction_score(weights, token_ids):
    raise ValueError("nothing computed")
