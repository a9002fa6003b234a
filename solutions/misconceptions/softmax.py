"""Known wrong versions of softmax."""

import numpy as np

from attnlab.misconceptions import Alternatives, misconception, probe


@misconception(
    "softmax",
    "the axis argument is ignored",
    explanation="The softmax always runs over the last axis, whatever `axis` says, so callers that normalise another axis get rows that do not sum to 1 where they expect.",
    hint="Pass `axis` (with keepdims=True) to both the max and the sum.",
)
def softmax_ignores_axis(x, axis=-1):
    # The last axis, or axis 1 where a softmax written for (queries, keys) hard-codes it.
    answers = []
    for fixed in (-1, 1):
        if np.ndim(x) > fixed >= 0 or fixed < 0:
            exps = np.exp(x - np.max(x, axis=fixed, keepdims=True))
            answers.append(exps / np.sum(exps, axis=fixed, keepdims=True))
    return Alternatives(answers)


@misconception(
    "softmax",
    "no max subtraction (unstable softmax)",
    explanation="exp overflows to inf for scores near 710 in float64 (89 in float32), and inf / inf is nan. The lessons' stable form subtracts each row's maximum first; softmax(x) = softmax(x - c) for any constant c, so nothing else changes.",
    hint="Subtract np.max(x, axis=axis, keepdims=True) before np.exp.",
)
def softmax_no_max_subtraction(x, axis=-1):
    exps = np.exp(x)
    # Also written as exp(x - log Σ exp x), which overflows the same way, to other values.
    log_total = np.log(np.sum(exps, axis=axis, keepdims=True))
    return Alternatives([exps / np.sum(exps, axis=axis, keepdims=True), np.exp(x - log_total)])


@misconception(
    "softmax",
    "normalised by the sum of the whole array",
    explanation="Dividing by the total of every entry makes the whole array sum to 1, not each row: each row must be its own probability distribution.",
    hint="Sum along `axis` with keepdims=True, not over everything.",
)
def softmax_normalises_by_total(x, axis=-1):
    # Whatever maximum is subtracted first (the whole array's, each row's, none): the sum is the mistake.
    shifted = (x - np.max(x), x - np.max(x, axis=axis, keepdims=True), x)
    return Alternatives([np.exp(s) / np.sum(np.exp(s)) for s in shifted])


@misconception(
    "softmax",
    "the maximum of the whole array is subtracted, not each row's",
    explanation="Subtracting one global maximum is still a constant per row, but a row far below it underflows: every exp becomes 0 and the row is 0 / 0 = nan.",
    hint="Take the maximum along `axis` with keepdims=True, so each row is shifted by its own maximum.",
)
def softmax_global_max(x, axis=-1):
    exps = np.exp(x - np.max(x))
    return exps / np.sum(exps, axis=axis, keepdims=True)


@misconception(
    "softmax",
    "the default axis is 0, not -1",
    explanation="Called without an axis, the softmax must normalise the last axis (the keys): every caller in the course writes softmax(scores). A default of axis=0 normalises the first axis instead, the queries or the batch.",
    hint="Write the signature as def softmax(x, axis=-1).",
)
def softmax_default_axis_0(x, axis=0):
    exps = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exps / np.sum(exps, axis=axis, keepdims=True)


@misconception(
    "softmax",
    "the maximum is taken without keepdims=True",
    explanation="np.max(x, axis=-1) drops the axis, so x - m broadcasts m along the wrong axis: on a square array each column is shifted by another row's maximum (the rows are no longer shifted by a constant), and other shapes raise.",
    hint="np.max(x, axis=axis, keepdims=True) keeps a length-1 axis, which broadcasts along the row.",
)
def softmax_max_without_keepdims(x, axis=-1):
    exps = np.exp(x - np.max(x, axis=axis))
    return exps / np.sum(exps, axis=axis, keepdims=True)


@misconception(
    "softmax",
    "the sum is taken without keepdims=True",
    explanation="np.sum(exps, axis=-1) drops the axis, so dividing broadcasts the sums along the wrong axis: on a square array row i is divided by every row's sum in turn, and other shapes raise.",
    hint="np.sum(exps, axis=axis, keepdims=True).",
)
def softmax_sum_without_keepdims(x, axis=-1):
    exps = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return exps / np.sum(exps, axis=axis)


@misconception(
    "softmax",
    "the axis argument used in one step only: the max or the sum always along the last axis",
    explanation="Every step of the softmax runs along the same axis: the maximum subtracted, the exponentials summed. Written with axis=-1 in one step and axis in the other, it is right for the default and wrong for any other axis: the row subtracted is not the row summed, so the results do not sum to 1 along either axis.",
    hint="np.max(x, axis=axis, keepdims=True) and np.sum(exps, axis=axis, keepdims=True): the same axis in both.",
)
def softmax_axis_in_one_step_only(x, axis=-1):
    answers = []
    for max_axis, sum_axis in ((-1, axis), (axis, -1)):
        exps = np.exp(x - np.max(x, axis=max_axis, keepdims=True))
        answers.append(exps / np.sum(exps, axis=sum_axis, keepdims=True))
    return Alternatives(answers)


probe("softmax", "a 2 x 3 array and the default axis", np.array([[1.0, 2.0, 3.0], [0.0, 5.0, -1.0]]))
probe("softmax", "a square array: keepdims left out still broadcasts", np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0], [2.0, 0.0, 1.0]]), axis=-1)
probe("softmax", "a 2 x 3 x 4 array along axis 0", np.arange(24.0).reshape(2, 3, 4) % 5 - 2.0, axis=0)
probe("softmax", "a 2 x 3 x 4 array along axis 1", np.arange(24.0).reshape(2, 3, 4) % 7 - 3.0, axis=1)
probe("softmax", "one row near +1e4, one far below zero", np.array([[1e4, 1e4 - 1.0, 1e4 - 3.0], [-1e4, -1e4 + 2.0, -1e4 + 1.0]]))


@misconception(
    "softmax",
    "the scores it is given are changed in place",
    explanation="x -= x.max(...) writes into the caller's array: whoever passed the scores (a mask applied next, a second softmax, a gradient check) now holds shifted scores. The softmax's own answer is right, which is why this goes unnoticed.",
    hint="Compute into a new array: shifted = x - np.max(x, axis=axis, keepdims=True).",
    changes_its_arguments=True,
)
def softmax_changes_its_input(x, axis=-1):
    x -= np.max(x, axis=axis, keepdims=True)
    exps = np.exp(x)
    return exps / np.sum(exps, axis=axis, keepdims=True)
