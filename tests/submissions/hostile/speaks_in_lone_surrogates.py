"""softmax prints and raises text with lone surrogates: a Python str no terminal, UTF-8 file or SQLite column takes.

file: softmax.py
"""


def softmax(x, axis=-1):
    print("caf\udce9 \ud800")
    raise ValueError("bad \udce9 \ud800 input")
