"""softmax never returns.

file: softmax.py
"""


def softmax(x, axis=-1):
    while True:
        pass
