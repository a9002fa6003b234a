"""A token sees its own document and every earlier one (key document <= query document).

file: masks.py
breaks: document_mask
"""

import numpy as np


def document_mask(document_ids):
    ids = np.asarray(document_ids)
    return ids[None, :] <= ids[:, None]
