"""Pairs feature 2i with 2i + 1, as rope does, instead of i with i + d/2.

file: positions.py
breaks: rope_half_split
"""

import numpy as np


def rope_half_split(x, positions, theta=10000.0):
    return rope(x, positions, theta)
