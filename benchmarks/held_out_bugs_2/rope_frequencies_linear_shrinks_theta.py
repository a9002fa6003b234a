"""Linear scaling divides theta by the factor instead of dividing the frequencies.

file: positions.py
breaks: rope_frequencies
"""

import numpy as np


def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    exponents = np.arange(0, head_dim, 2) / head_dim
    if scaling is None:
        return theta**-exponents
    if scaling == "linear":
        return (theta / factor) ** -exponents
    if scaling == "ntk":
        if head_dim < 4:
            raise ValueError("head_dim must be at least 4")
        return (theta * factor ** (head_dim / (head_dim - 2))) ** -exponents
    raise ValueError(f"unknown scaling {scaling!r}")
