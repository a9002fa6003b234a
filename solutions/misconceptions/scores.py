"""Known wrong versions of attention_scores."""

import numpy as np

from attnlab.misconceptions import misconception


@misconception(
    "attention_scores",
    "no 1/√d_k scale",
    explanation="A dot product of d_k unit-variance terms has variance d_k; without the 1/√d_k scale the softmax saturates as heads get wider (almost one-hot at d_k = 256) and its gradients vanish.",
    hint="Divide q kᵀ by np.sqrt(d_k), with d_k = q.shape[-1].",
)
def scores_no_scale(q, k):
    return q @ np.swapaxes(k, -1, -2)


@misconception(
    "attention_scores",
    "scaled by 1/d_k instead of 1/√d_k",
    explanation="Dividing by d_k over-corrects: the scores shrink as the head widens and the softmax flattens towards uniform. The variance argument asks for the square root.",
    hint="Use np.sqrt(d_k), not d_k.",
)
def scores_scaled_by_d_k(q, k):
    return q @ np.swapaxes(k, -1, -2) / q.shape[-1]
