# Exercise stub generated from solutions/masks.py: fill in the parts marked YOUR CODE HERE.
"""Exercise 3: causal and padding masks.

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
