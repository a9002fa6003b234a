"""Exercise 3: causal, padding, local and document masks.

In this course a mask is boolean and ``True`` means "this query may attend to
this key" (PyTorch's ``scaled_dot_product_attention`` convention). Masks are
fixed architecture, not learned.
"""

import numpy as np


def causal_mask(n):
    """Causal mask: query i may see keys 0..i, never a later one.

    Shapes: n (int) -> (n, n) bool, True on and below the diagonal.
    """
    ### BEGIN SOLUTION
    ### HINT: np.tril keeps the lower triangle, diagonal included.
    return np.tril(np.ones((n, n), dtype=bool))
    ### END SOLUTION


def padding_mask(lengths, max_len):
    """Key padding mask for right-padded sequences.

    Shapes: lengths (B,) ints, max_len (int) -> (B, max_len) bool,
    True at the first ``lengths[b]`` positions of row b (the real tokens).
    """
    ### BEGIN SOLUTION
    ### HINT: compare np.arange(max_len) with lengths, broadcasting a (1, max_len) row against a (B, 1) column.
    lengths = np.asarray(lengths)
    return np.arange(max_len)[None, :] < lengths[:, None]  # (B, max_len)
    ### END SOLUTION


def sliding_window_mask(n, window):
    """Local causal mask: query i may see itself and the ``window - 1`` keys before it.

    Shapes: n (int), window (int ≥ 1) -> (n, n) bool, True where i - window < j ≤ i.
    A window of n or more is the causal mask; a window of 1 lets each query see only itself.
    """
    ### BEGIN SOLUTION
    ### HINT: compare the key index j with the query index i: j ≤ i and j > i − window, with a (n, 1) column of i against a (1, n) row of j.
    i = np.arange(n)[:, None]  # (n, 1) queries
    j = np.arange(n)[None, :]  # (1, n) keys
    return (j <= i) & (j > i - window)
    ### END SOLUTION


def document_mask(document_ids):
    """Block-diagonal mask for several documents packed in one sequence: a token sees its own document only.

    Shapes: document_ids (T,) ints, the document of each position -> (T, T) bool,
    True where query and key belong to the same document. Combine it with a causal
    mask (``&``) for a decoder.
    """
    ### BEGIN SOLUTION
    ### HINT: compare the ids as a (T, 1) column against a (1, T) row.
    ids = np.asarray(document_ids)
    return ids[:, None] == ids[None, :]  # (T, T)
    ### END SOLUTION


def left_padding_mask(lengths, max_len):
    """Key padding mask for left-padded sequences (the padding comes first, as for batched generation).

    Shapes: lengths (B,) ints, max_len (int) -> (B, max_len) bool,
    True at the last ``lengths[b]`` positions of row b (the real tokens).
    """
    ### BEGIN SOLUTION
    ### HINT: the real tokens of row b start at max_len − lengths[b].
    lengths = np.asarray(lengths)
    return np.arange(max_len)[None, :] >= (max_len - lengths)[:, None]  # (B, max_len)
    ### END SOLUTION
