# Exercise stub of scores.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
"""Exercise 2: attention scores, the scaled dot products of queries and keys.

Cell (i, j) of ``q kᵀ`` is query i · key j. A dot product of d_k unit-variance
terms has variance d_k, so without the 1/√d_k scale the softmax saturates as
the width grows; with it, the weights look the same at every width.

Other ways to score a query against a key: the cosine (norms removed, a
temperature instead), QK-norm (RMS-normalised q and k with learned gains),
additive scores (Bahdanau's small network), and soft-capping, which bounds
any of them smoothly before the softmax.
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


def cosine_scores(q, k, temperature):
    """Cosine attention scores: the cosine of the angle between each query and each key, over a temperature.

    Shapes: q (..., L_q, d), k (..., L_k, d), temperature (float > 0) -> (..., L_q, L_k),
    score[i, j] = (q_i / ‖q_i‖) · (k_j / ‖k_j‖) / temperature, each in [-1/temperature, 1/temperature].
    Every vector is divided by max(‖x‖, 1e-8), so a zero query or key gives scores of 0, never nan.
    """
    # YOUR CODE HERE
    # Hint: normalise q and k along their last axis (np.linalg.norm(..., axis=-1, keepdims=True), floored with np.maximum at 1e-8), then take the dot products as attention_scores does, without the √d.
    raise NotImplementedError("cosine_scores is not implemented yet")


def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    """QK-norm: RMS-normalise queries and keys over their features, with learned gains, then scaled dot products.

    Shapes: q (..., L_q, d), k (..., L_k, d), gain_q (d,), gain_k (d,) -> (..., L_q, L_k).
    rms_norm(x, g) = x / √(mean(x², last axis) + eps) · g; the scores are
    rms_norm(q, gain_q) · rms_norm(k, gain_k)ᵀ / √d. The norm bounds the scores, so the softmax
    cannot saturate however large q and k grow.
    """
    # YOUR CODE HERE
    # Hint: divide by np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps) (eps inside the root), multiply by the gain, then q kᵀ / √d.
    raise NotImplementedError("qk_norm_scores is not implemented yet")


def softcap(scores, cap):
    """Logit soft-capping (Gemma 2): squash scores smoothly into (-cap, cap).

    Shapes: scores (any shape), cap (float > 0) -> the same shape, cap · tanh(scores / cap).
    Close to the identity where |scores| is well below cap, and never past ±cap; applied to the
    scores, before the softmax.
    """
    # YOUR CODE HERE
    # Hint: divide by cap inside the tanh and multiply by cap outside it.
    raise NotImplementedError("softcap is not implemented yet")


def additive_scores(q, k, w_q, w_k, v):
    """Additive (Bahdanau) scores: a one-layer network scores every query and key pair.

    Shapes: q (..., L_q, d_q), k (..., L_k, d_k), w_q (d_q, d_a), w_k (d_k, d_a), v (d_a,)
    -> (..., L_q, L_k), score[i, j] = v · tanh(q_i W_q + k_j W_k). d_q and d_k may differ:
    only the projections must share the width d_a.
    """
    # YOUR CODE HERE
    # Hint: project first, then broadcast a (..., L_q, 1, d_a) against a (..., 1, L_k, d_a), take tanh, and contract the last axis with v.
    raise NotImplementedError("additive_scores is not implemented yet")
