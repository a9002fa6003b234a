"""Builds the exponents from np.arange(d // 2) / d: i/d instead of 2i/d.

file: positions.py
breaks: rope_frequencies
"""

import numpy as np


def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    exps = np.arange(head_dim // 2) / head_dim
    if scaling is None:
        return 1.0 / theta**exps
    if scaling == "linear":
        return 1.0 / theta**exps / factor
    if scaling == "ntk":
        if head_dim < 4:
            raise ValueError("NTK scaling needs head_dim >= 4")
        new_theta = theta * factor ** (head_dim / (head_dim - 2))
        return 1.0 / new_theta**exps
    raise ValueError(f"unknown scaling {scaling!r}")
