"""Returns how much the most-attended key gets, not which key it is.

file: heads.py
breaks: most_attended_token
"""


def most_attended_token(weights):
    return weights.max(axis=-1)
