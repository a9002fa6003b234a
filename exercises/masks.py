# Exercise stub of masks.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
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
    # YOUR CODE HERE
    # Hint: np.tril keeps the lower triangle, diagonal included.
    raise NotImplementedError("causal_mask is not implemented yet")


def padding_mask(lengths, max_len):
    """Key padding mask for right-padded sequences.

    Shapes: lengths (B,) ints, max_len (int) -> (B, max_len) bool,
    True at the first ``lengths[b]`` positions of row b (the real tokens).
    """
    # YOUR CODE HERE
    # Hint: compare np.arange(max_len) with lengths, broadcasting a (1, max_len) row against a (B, 1) column.
    raise NotImplementedError("padding_mask is not implemented yet")


def sliding_window_mask(n, window):
    """Local causal mask: query i may see itself and the ``window - 1`` keys before it.

    Shapes: n (int), window (int ≥ 1) -> (n, n) bool, True where i - window < j ≤ i.
    A window of n or more is the causal mask; a window of 1 lets each query see only itself.
    """
    # YOUR CODE HERE
    # Hint: compare the key index j with the query index i: j ≤ i and j > i − window, with a (n, 1) column of i against a (1, n) row of j.
    raise NotImplementedError("sliding_window_mask is not implemented yet")


def document_mask(document_ids):
    """Block-diagonal mask for several documents packed in one sequence: a token sees its own document only.

    Shapes: document_ids (T,) ints, the document of each position -> (T, T) bool,
    True where query and key belong to the same document. Combine it with a causal
    mask (``&``) for a decoder.
    """
    # YOUR CODE HERE
    # Hint: compare the ids as a (T, 1) column against a (1, T) row.
    raise NotImplementedError("document_mask is not implemented yet")


def left_padding_mask(lengths, max_len):
    """Key padding mask for left-padded sequences (the padding comes first, as for batched generation).

    Shapes: lengths (B,) ints, max_len (int) -> (B, max_len) bool,
    True at the last ``lengths[b]`` positions of row b (the real tokens).
    """
    # YOUR CODE HERE
    # Hint: the real tokens of row b start at max_len − lengths[b].
    raise NotImplementedError("left_padding_mask is not implemented yet")
