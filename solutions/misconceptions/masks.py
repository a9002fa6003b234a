"""Known wrong versions of the mask functions: causal, padding (right and left), sliding window, packed documents."""

import numpy as np

from attnlab.misconceptions import misconception


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
