"""Every mask is one False; ALiBi's slopes and bias are one zero.

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


def alibi_slopes(n_heads):
    return np.zeros(1)


def alibi_bias(n, n_heads):
    return np.zeros(1)


def sink_window_mask(n, n_sinks, window):
    return np.zeros(1, dtype=bool)
