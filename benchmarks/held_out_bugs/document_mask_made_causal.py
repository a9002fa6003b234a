"""Same document and causal in one: the docstring says to combine with causal separately.

file: masks.py
breaks: document_mask
"""

import numpy as np


def document_mask(document_ids):
    ids = np.asarray(document_ids)
    same = ids[:, None] == ids[None, :]
    return same & np.tril(np.ones((len(ids), len(ids)), dtype=bool))
