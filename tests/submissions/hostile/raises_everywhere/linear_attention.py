"""Every function of linear_attention.py raises ValueError at once: it computes nothing.

file: linear_attention.py
"""


def elu_feature_map(x):
    raise ValueError("nothing computed")


def linear_attention_masked(q, k, v, causal=True):
    raise ValueError("nothing computed")


def linear_attention_recurrent(q, k, v, state=None):
    raise ValueError("nothing computed")
