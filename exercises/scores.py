# Exercise stub of scores.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
"""Exercise 2: attention scores, the scaled dot products of queries and keys.

Cell (i, j) of ``q kᵀ`` is query i · key j. A dot product of d_k unit-variance
terms has variance d_k, so without the 1/√d_k scale the softmax saturates as
the width grows; with it, the weights look the same at every width.
"""

import numpy as np


def attention_scores(q, k):
    """Scaled dot-product scores ``q kᵀ / √d_k``.

    Shapes: q (..., L_q, d_k), k (..., L_k, d_k) -> (..., L_q, L_k).
    Leading axes (batch, heads) broadcast. d_k is the width of the vectors
    being dotted: the last axis of ``q``.
    """
    # YOUR CODE HERE
    # Hint: transpose only the last two axes of k (np.swapaxes), then divide by the square root of q's last dimension.
    raise NotImplementedError("attention_scores is not implemented yet")
