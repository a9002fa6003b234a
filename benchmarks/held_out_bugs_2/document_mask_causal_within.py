"""Adds a causal mask inside each document, which the function was not asked for.

file: masks.py
breaks: document_mask
"""

import numpy as np


def document_mask(document_ids):
    ids = np.asarray(document_ids)
    same = np.equal.outer(ids, ids)
    return same & np.tril(np.ones(same.shape, dtype=bool))
