"""The argmax runs down the columns: for each key, the query that looks at it most.

file: heads.py
breaks: most_attended_token
"""


def most_attended_token(weights):
    return weights.argmax(axis=-2)
