"""Known wrong versions of causal_mask and padding_mask."""

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
