"""Every mask is one False.

file: masks.py
"""


def causal_mask(n):
    return np.zeros(1, dtype=bool)


def padding_mask(lengths, max_len):
    return np.zeros(1, dtype=bool)


def sliding_window_mask(n, window):
    return np.zeros(1, dtype=bool)


def document_mask(document_ids):
    return np.zeros(1, dtype=bool)


def left_padding_mask(lengths, max_len):
    return np.zeros(1, dtype=bool)
