"""Known wrong versions of the mask functions: causal, padding (right and left), sliding window, packed documents."""

import numpy as np

from attnlab.misconceptions import misconception, probe


@misconception(
    "causal_mask",
    "the diagonal is masked too",
    explanation="A token may attend to itself: query i sees keys 0..i, the diagonal included. Masking the diagonal also leaves the first query with no key at all.",
    hint="np.tril keeps the diagonal with its default k=0.",
)
def causal_diagonal_masked(n):
    return np.tril(np.ones((n, n), dtype=bool), k=-1)


@misconception(
    "causal_mask",
    "the upper triangle is kept (the future instead of the past)",
    explanation="With True = may attend, the allowed cells are on and below the diagonal; the upper triangle lets every query read later tokens, which is exactly what a causal mask forbids.",
    hint="Use np.tril, not np.triu.",
)
def causal_upper_triangular(n):
    return np.triu(np.ones((n, n), dtype=bool))


@misconception(
    "padding_mask",
    "off by one: the first padding position counts as real",
    explanation="A sequence of length L has real tokens at positions 0..L-1; position L is already padding.",
    hint="Compare positions with `<` lengths, not `<=`.",
)
def padding_off_by_one(lengths, max_len):
    return np.arange(max_len)[None, :] <= np.asarray(lengths)[:, None]


@misconception(
    "padding_mask",
    "inverted: True at the padding",
    explanation="In this course True means 'may attend': real tokens are True and padding is False (PyTorch's scaled_dot_product_attention convention).",
    hint="Real positions are those below the length: arange(max_len) < lengths.",
)
def padding_inverted(lengths, max_len):
    return np.arange(max_len)[None, :] >= np.asarray(lengths)[:, None]


@misconception(
    "causal_mask",
    "True marks the masked cells (the future), not the visible ones",
    explanation="In this course True means the query may attend to the key (PyTorch's scaled_dot_product_attention convention). np.triu(..., k=1) marks the future, the exact complement of what is wanted: read as 'may attend', every query sees only later tokens.",
    hint="Return np.tril(np.ones((n, n), dtype=bool)): True on and below the diagonal.",
)
def causal_mask_marks_the_future(n):
    return np.triu(np.ones((n, n), dtype=bool), k=1)


@misconception(
    "causal_mask",
    "a float mask of ones and zeros instead of a bool one",
    explanation="np.tril(np.ones((n, n))) has the right pattern but holds floats. np.where(mask, ...) happens to work, but ~mask raises on floats and mask * scores is not masking: the contract asks for dtype bool.",
    hint="np.tril(np.ones((n, n), dtype=bool)).",
)
def causal_mask_float(n):
    return np.tril(np.ones((n, n)))


@misconception(
    "padding_mask",
    "the mask comes out as (max_len, B), transposed",
    explanation="Comparing arange(max_len)[:, None] with lengths[None, :] puts positions on the rows. A padding mask is (B, max_len): one row per sequence, True at its real tokens.",
    hint="np.arange(max_len)[None, :] < lengths[:, None].",
)
def padding_transposed(lengths, max_len):
    return np.arange(max_len)[:, None] < np.asarray(lengths)[None, :]


@misconception(
    "padding_mask",
    "a float mask of ones and zeros instead of a bool one",
    explanation="The pattern is right but the dtype is float, so ~mask and mask & other raise, and the mask cannot select with np.where's True/False meaning the contract gives it.",
    hint="Return the comparison itself: it is already a bool array.",
)
def padding_float(lengths, max_len):
    return (np.arange(max_len)[None, :] < np.asarray(lengths)[:, None]).astype(float)


probe("causal_mask", "an 11 x 11 mask: the diagonal, the triangle and the complement differ", 11)
probe("padding_mask", "B != max_len, a full sequence and a length-1 one", np.array([3, 1, 5]), 5)


@misconception(
    "sliding_window_mask",
    "one key too many: the window reaches i − window",
    explanation="A window of w keys is the query itself and the w − 1 keys before it: keys i − w + 1 … i. Allowing j ≥ i − w lets every query see w + 1 keys.",
    hint="Keep keys with j > i − window (strictly), and j ≤ i.",
)
def sliding_window_one_too_wide(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j <= i) & (j >= i - window)


@misconception(
    "document_mask",
    "earlier documents stay visible",
    explanation="Packed documents are unrelated texts: a token may see its own document only. Comparing ids with ≥ (as a causal mask compares positions) lets every document read the ones packed before it.",
    hint="Compare the ids for equality: ids[:, None] == ids[None, :].",
)
def document_mask_sees_earlier_documents(document_ids):
    ids = np.asarray(document_ids)
    return ids[:, None] >= ids[None, :]


@misconception(
    "left_padding_mask",
    "the padding is put on the right",
    explanation="With left padding the real tokens come last: row b is False for its first max_len − lengths[b] positions and True after. Marking the first lengths[b] positions real is right padding's mask.",
    hint="The real tokens of row b start at position max_len − lengths[b].",
)
def left_padding_on_the_right(lengths, max_len):
    return np.arange(max_len)[None, :] < np.asarray(lengths)[:, None]


probe("sliding_window_mask", "a window of 3 over 6 positions", 6, 3)
probe("document_mask", "three documents, ids not in order", np.array([4, 4, 1, 1, 1, 7]))
probe("left_padding_mask", "B != max_len, a full sequence and a length-1 one", np.array([3, 1, 5]), 5)
