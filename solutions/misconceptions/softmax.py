"""Known wrong versions of softmax."""

import numpy as np

from attnlab.misconceptions import misconception


@misconception(
    "softmax",
    "the axis argument is ignored",
    explanation="The softmax always runs over the last axis, whatever `axis` says, so callers that normalise another axis get rows that do not sum to 1 where they expect.",
    hint="Pass `axis` (with keepdims=True) to both the max and the sum.",
)
def softmax_ignores_axis(x, axis=-1):
    exps = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return exps / np.sum(exps, axis=-1, keepdims=True)


@misconception(
    "softmax",
    "no max subtraction (unstable softmax)",
    explanation="exp overflows to inf for scores near 710 in float64 (89 in float32), and inf / inf is nan. The lessons' stable form subtracts each row's maximum first; softmax(x) = softmax(x - c) for any constant c, so nothing else changes.",
    hint="Subtract np.max(x, axis=axis, keepdims=True) before np.exp.",
)
def softmax_no_max_subtraction(x, axis=-1):
    exps = np.exp(x)
    return exps / np.sum(exps, axis=axis, keepdims=True)


@misconception(
    "softmax",
    "normalised by the sum of the whole array",
    explanation="Dividing by the total of every entry makes the whole array sum to 1, not each row: each row must be its own probability distribution.",
    hint="Sum along `axis` with keepdims=True, not over everything.",
)
def softmax_normalises_by_total(x, axis=-1):
    exps = np.exp(x - np.max(x))
    return exps / np.sum(exps)


@misconception(
    "softmax",
    "the maximum of the whole array is subtracted, not each row's",
    explanation="Subtracting one global maximum is still a constant per row, but a row far below it underflows: every exp becomes 0 and the row is 0 / 0 = nan.",
    hint="Take the maximum along `axis` with keepdims=True, so each row is shifted by its own maximum.",
)
def softmax_global_max(x, axis=-1):
    exps = np.exp(x - np.max(x))
    return exps / np.sum(exps, axis=axis, keepdims=True)
