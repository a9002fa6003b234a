"""softmax returns np.zeros(1), whatever it is given.

file: softmax.py
"""


def softmax(x, axis=-1):
    return np.zeros(1)
