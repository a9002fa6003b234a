"""Known wrong versions of softmax_backward and attention_backward."""

import numpy as np
from backward import softmax_backward
from scores import attention_scores
from softmax import softmax

from attnlab.misconceptions import misconception


@misconception(
    "softmax_backward",
    "only the Jacobian's diagonal (y ⊙ dy)",
    explanation="The softmax's Jacobian is diag(y) − y yᵀ: every output depends on every input of its row, through the normalisation. y ⊙ dy keeps the diagonal and drops the − y (yᵀ dy) term, so the rows of dx no longer sum to 0.",
    hint="Subtract each row's Σ dy ⊙ y before multiplying by y: y * (dy - sum(dy * y, axis, keepdims=True)).",
)
def softmax_backward_diagonal_only(weights, grad_weights, axis=-1):
    return np.asarray(weights) * np.asarray(grad_weights)


@misconception(
    "softmax_backward",
    "Σ dy ⊙ y summed over the whole array",
    explanation="Each row is its own softmax, so the correction term is one number per row: summing dy ⊙ y over every entry mixes the rows' gradients together.",
    hint="Sum along `axis` with keepdims=True, not over everything.",
)
def softmax_backward_sums_everything(weights, grad_weights, axis=-1):
    weights, grad_weights = np.asarray(weights), np.asarray(grad_weights)
    return weights * (grad_weights - np.sum(grad_weights * weights))


def _backward(q, k, v, grad_out, mask, *, use_mask=True, scale_gradients=True):
    """The reference's steps, with the one thing a mistake changes as a parameter."""
    scores = attention_scores(q, k)
    if mask is not None and use_mask:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    grad_v = np.swapaxes(weights, -1, -2) @ grad_out
    grad_scores = softmax_backward(weights, grad_out @ np.swapaxes(v, -1, -2), axis=-1)
    if scale_gradients:
        grad_scores = grad_scores / np.sqrt(q.shape[-1])
    return grad_scores @ k, np.swapaxes(grad_scores, -1, -2) @ q, grad_v


@misconception(
    "attention_backward",
    "the 1/√d_k left out of dq and dk",
    explanation="The scores are q kᵀ / √d_k, so the chain rule carries the 1/√d_k into both dq and dk; dv is right, but dq and dk are √d_k times too large.",
    hint="Divide dS by √d_k (once) before computing dq = dS k and dk = dSᵀ q.",
)
def attention_backward_no_scale(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, scale_gradients=False)


@misconception(
    "attention_backward",
    "the mask left out of the recomputed forward pass",
    explanation="The gradient must be taken through the same function as the forward pass: without the mask, the recomputed weights spread over keys the forward pass hid, so hidden keys receive gradient and every other gradient is off.",
    hint="Recompute the weights exactly as scaled_dot_product_attention does, masked scores set to -inf before the softmax.",
)
def attention_backward_ignores_mask(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, use_mask=False)
