# Exercise stub of masks.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
"""Exercise 3: causal, padding, local and document masks, attention sinks, and ALiBi's bias.

In this course a mask is boolean and ``True`` means "this query may attend to
this key" (PyTorch's ``scaled_dot_product_attention`` convention). Masks are
fixed architecture, not learned. ALiBi is not a mask but an additive bias on
the scores: a fixed penalty that grows with distance, one slope per head.
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


def alibi_slopes(n_heads):
    """ALiBi's head slopes: a geometric sequence, one slope per head, steepest first.

    Shapes: n_heads (int ≥ 1) -> (n_heads,) float64.
    For n a power of two, head h = 1..n gets 2^(-8h/n) (8 heads: 1/2, 1/4, ..., 1/256). Otherwise
    (the paper's rule) the n' = 2^floor(log2 n) slopes of n' heads come first, then every other
    slope of 2n' heads (the 1st, 3rd, 5th, ...) until there are n.
    """
    # YOUR CODE HERE
    # Hint: write the power-of-two case as a helper, 2.0 ** (-8 * np.arange(1, n + 1) / n); for other n, take the helper's slopes of the largest power of two below n, then [0::2] of twice that power's.
    raise NotImplementedError("alibi_slopes is not implemented yet")


def alibi_bias(n, n_heads):
    """ALiBi: a linear penalty on distance, added to the scores of each head instead of positions.

    Shapes: n (int), n_heads (int) -> (n_heads, n, n) float64,
    bias[h, i, j] = -alibi_slopes(n_heads)[h] · (i - j). The bias is the plain linear one on
    every cell: above the diagonal (j > i) it is positive, and the causal mask, not the bias,
    hides those keys. Add it to the scores before the softmax.
    """
    # YOUR CODE HERE
    # Hint: the distance i - j is a (n, 1) column of i minus a (1, n) row of j; multiply it by -slopes[:, None, None].
    raise NotImplementedError("alibi_bias is not implemented yet")


def sink_window_mask(n, n_sinks, window):
    """StreamingLLM's mask: the first ``n_sinks`` tokens (attention sinks) plus a causal sliding window.

    Shapes: n (int), n_sinks (int ≥ 0), window (int ≥ 1) -> (n, n) bool,
    True where j ≤ i and (j < n_sinks or j > i - window): the sinks come on top of the window,
    which counts the query itself as in sliding_window_mask. No query sees a later key, a sink
    included; with n_sinks = 0 it is sliding_window_mask(n, window).
    """
    # YOUR CODE HERE
    # Hint: start from the sliding window's condition and OR in the sink columns (j < n_sinks), keeping j ≤ i for both.
    raise NotImplementedError("sink_window_mask is not implemented yet")
