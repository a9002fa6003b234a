"""Compares document ids with >= as a causal mask compares positions: earlier documents stay visible.

file: masks.py
breaks: document_mask
"""


def document_mask(document_ids):
    ids = np.asarray(document_ids)
    return ids.reshape(-1, 1) >= ids.reshape(1, -1)
