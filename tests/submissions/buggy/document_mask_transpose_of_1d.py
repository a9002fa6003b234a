"""Compares the ids with their transpose, which for a 1-D array is the same array.

file: masks.py
breaks: document_mask
"""

import numpy as np


def document_mask(document_ids):
    ids = np.asarray(document_ids)
    return ids == ids.T
