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
    ### BEGIN SOLUTION
    ### HINT: transpose only the last two axes of k (np.swapaxes), then divide by the square root of q's last dimension.
    d_k = q.shape[-1]
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k)  # (..., L_q, L_k)
    ### END SOLUTION


def cosine_scores(q, k, temperature):
    """Cosine attention scores: the cosine of the angle between each query and each key, over a temperature.

    Shapes: q (..., L_q, d), k (..., L_k, d), temperature (float > 0) -> (..., L_q, L_k),
    score[i, j] = (q_i / ‖q_i‖) · (k_j / ‖k_j‖) / temperature, each in [-1/temperature, 1/temperature].
    Every vector is divided by max(‖x‖, 1e-8), so a zero query or key gives scores of 0, never nan.
    """
    ### BEGIN SOLUTION
    ### HINT: normalise q and k along their last axis (np.linalg.norm(..., axis=-1, keepdims=True), floored with np.maximum at 1e-8), then take the dot products as attention_scores does, without the √d.
    q_unit = q / np.maximum(np.linalg.norm(q, axis=-1, keepdims=True), 1e-8)  # (..., L_q, d)
    k_unit = k / np.maximum(np.linalg.norm(k, axis=-1, keepdims=True), 1e-8)  # (..., L_k, d)
    return q_unit @ np.swapaxes(k_unit, -1, -2) / temperature  # (..., L_q, L_k)
    ### END SOLUTION


def qk_norm_scores(q, k, gain_q, gain_k, eps=1e-6):
    """QK-norm: RMS-normalise queries and keys over their features, with learned gains, then scaled dot products.

    Shapes: q (..., L_q, d), k (..., L_k, d), gain_q (d,), gain_k (d,) -> (..., L_q, L_k).
    rms_norm(x, g) = x / √(mean(x², last axis) + eps) · g; the scores are
    rms_norm(q, gain_q) · rms_norm(k, gain_k)ᵀ / √d. The norm bounds the scores, so the softmax
    cannot saturate however large q and k grow.
    """
    ### BEGIN SOLUTION
    ### HINT: divide by np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps) (eps inside the root), multiply by the gain, then q kᵀ / √d.
    def rms_norm(x, gain):
        return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps) * gain  # (..., L, d)

    d = q.shape[-1]
    return rms_norm(q, gain_q) @ np.swapaxes(rms_norm(k, gain_k), -1, -2) / np.sqrt(d)  # (..., L_q, L_k)
    ### END SOLUTION


def softcap(scores, cap):
    """Logit soft-capping (Gemma 2): squash scores smoothly into (-cap, cap).

    Shapes: scores (any shape), cap (float > 0) -> the same shape, cap · tanh(scores / cap).
    Close to the identity where |scores| is well below cap, and never past ±cap; applied to the
    scores, before the softmax.
    """
    ### BEGIN SOLUTION
    ### HINT: divide by cap inside the tanh and multiply by cap outside it.
    return cap * np.tanh(scores / cap)
    ### END SOLUTION


def additive_scores(q, k, w_q, w_k, v):
    """Additive (Bahdanau) scores: a one-layer network scores every query and key pair.

    Shapes: q (..., L_q, d_q), k (..., L_k, d_k), w_q (d_q, d_a), w_k (d_k, d_a), v (d_a,)
    -> (..., L_q, L_k), score[i, j] = v · tanh(q_i W_q + k_j W_k). d_q and d_k may differ:
    only the projections must share the width d_a.
    """
    ### BEGIN SOLUTION
    ### HINT: project first, then broadcast a (..., L_q, 1, d_a) against a (..., 1, L_k, d_a), take tanh, and contract the last axis with v.
    projected_q = (q @ w_q)[..., :, None, :]  # (..., L_q, 1, d_a)
    projected_k = (k @ w_k)[..., None, :, :]  # (..., 1, L_k, d_a)
    return np.tanh(projected_q + projected_k) @ v  # (..., L_q, L_k)
    ### END SOLUTION
