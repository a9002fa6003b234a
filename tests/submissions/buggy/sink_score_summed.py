"""Sums the weights on key 0 instead of averaging them.

file: heads.py
breaks: sink_score
"""


def sink_score(weights):
    return np.sum(weights[..., 0], axis=-1)
