"""The document mask as 0.0 and 1.0.

file: masks.py
breaks: document_mask
"""

import numpy as np

def document_mask(document_ids):
    ids = np.asarray(document_ids)
    return np.equal.outer(ids, ids) * 1.0
