"""Known wrong versions of attention_scores."""

import numpy as np

from attnlab.misconceptions import Alternatives, misconception, probe


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


@misconception(
    "attention_scores",
    "the scale is read off another axis than d_k (the number of keys or queries, the batch)",
    explanation="d_k is the width of the vectors being dotted, the last axis of q and k. k.shape[-2] is the number of keys, q.shape[-2] the number of queries, and shape[0] the batch (or the tokens of a 2-D array): none says anything about the variance of q·k.",
    hint="d_k = q.shape[-1].",
)
def scores_scaled_by_key_count(q, k):
    raw = q @ np.swapaxes(k, -1, -2)
    return Alternatives([raw / np.sqrt(size) for size in (k.shape[-2], q.shape[-2], q.shape[0], k.shape[0])])


@misconception(
    "attention_scores",
    "d_k ** 1/2 is (d_k ** 1) / 2, not the square root",
    explanation="In Python ** binds tighter than /, so d_k ** 1/2 is d_k / 2: a scale computed that way divides the scores by d_k / 2 (equal to √d_k at d_k = 4 only), and written inline, x / d_k ** 1/2 is x / d_k / 2.",
    hint="np.sqrt(d_k), or d_k ** 0.5, or d_k ** (1 / 2).",
)
def scores_power_precedence(q, k):
    d_k = q.shape[-1]
    raw = q @ np.swapaxes(k, -1, -2)
    scale = d_k ** 1/2  # noqa: the mistake itself
    return Alternatives([raw / scale, raw / d_k ** 1 / 2])


@misconception(
    "attention_scores",
    "multiplied by √d_k instead of divided",
    explanation="The scale brings the variance of q·k (d_k) back to 1: it divides by √d_k. Multiplying makes the variance d_k² and the softmax saturates all the sooner.",
    hint="q kᵀ / np.sqrt(d_k).",
)
def scores_multiplied_by_sqrt(q, k):
    return q @ np.swapaxes(k, -1, -2) * np.sqrt(q.shape[-1])


@misconception(
    "attention_scores",
    "keys times queries (k qᵀ) instead of q kᵀ",
    explanation="Cell (i, j) of the scores is query i dotted with key j, so the queries index the rows: q kᵀ has shape (L_q, L_k). k qᵀ is its transpose, (L_k, L_q).",
    hint="q @ np.swapaxes(k, -1, -2): queries on the left.",
)
def scores_keys_times_queries(q, k):
    return k @ np.swapaxes(q, -1, -2) / np.sqrt(q.shape[-1])


@misconception(
    "attention_scores",
    "k.T reverses every axis, not only the last two",
    explanation="On a 2-D array k.T swaps tokens and features, but on (B, L_k, d_k) it gives (d_k, L_k, B): the batch axis moves to the end, and the product fails or mixes sequences.",
    hint="Swap only the last two axes: np.swapaxes(k, -1, -2) (or k.transpose(..., -1, -2) in torch).",
)
def scores_full_transpose(q, k):
    return q @ k.T / np.sqrt(q.shape[-1])


_Q = np.array([[1.0, 0.0, 2.0, -1.0], [0.5, 1.5, -0.5, 1.0], [2.0, -1.0, 0.0, 0.5]])  # (L_q=3, d_k=4)
_K = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 2.0, 1.0, -1.0], [1.5, 0.0, -1.0, 2.0], [-1.0, 0.5, 0.5, 1.0], [0.0, 0.0, 3.0, 1.0]])  # (L_k=5, d_k=4)
probe("attention_scores", "L_q, L_k and d_k all different", _Q, _K)
probe("attention_scores", "a batch of two, B != d_k", np.stack([_Q, -_Q]), np.stack([_K, 2 * _K]))
probe("attention_scores", "d_k = 2, where d_k / 2 and √d_k differ", _Q[:, :2], _K[:, 1:3])
