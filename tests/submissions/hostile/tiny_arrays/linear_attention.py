"""One zero for every output.

file: linear_attention.py
"""


def elu_feature_map(x):
    return np.zeros(1)


def linear_attention_masked(q, k, v, causal=True):
    return np.zeros(1)


def linear_attention_recurrent(q, k, v, state=None):
    return np.zeros(1)
