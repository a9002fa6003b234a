"""Builds causality into the document mask.

file: masks.py
breaks: document_mask
"""

import numpy as np


def document_mask(document_ids):
    ids = np.asarray(document_ids)
    same = np.equal.outer(ids, ids)
    return np.tril(same)
