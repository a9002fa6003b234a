# Exercise stub of positions.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
"""Exercise 7: positions, and why attention needs them.

Self-attention is permutation equivariant: shuffling the input tokens
shuffles the outputs the same way, so "dog bites man" and "man bites dog"
look alike to it. Positional encodings break the symmetry on purpose:
sinusoidal encodings are added to the inputs; RoPE rotates queries and keys
by position-dependent angles so that scores depend on relative position.
"""

import numpy as np

from attention import self_attention


def sinusoidal_encoding(n_positions, d_model):
    """The sinusoidal position table of "Attention Is All You Need".

    Shapes: n_positions, d_model (ints, d_model even) -> (n_positions, d_model),
    PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(p / 10000^(2i/d_model)).
    """
    # YOUR CODE HERE
    # Hint: build the angle table p / 10000^(2i/d_model) of shape (n_positions, d_model/2), then fill the even columns with sin and the odd ones with cos.
    raise NotImplementedError("sinusoidal_encoding is not implemented yet")


def rope(x, positions, theta=10000.0):
    """Rotary position embedding: rotate adjacent feature pairs by position-dependent angles.

    Shapes: x (..., T, d) with d even, positions (T,) ints -> (..., T, d).
    Pair i = (x[2i], x[2i+1]) at position p turns by angle p * theta^(-2i/d):
    out[2i] = x[2i] cos - x[2i+1] sin, out[2i+1] = x[2i] sin + x[2i+1] cos.
    """
    # YOUR CODE HERE
    # Hint: pairs are adjacent features (0,1), (2,3), ... : slice x[..., 0::2] and x[..., 1::2], not the two halves.
    raise NotImplementedError("rope is not implemented yet")


def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):
    """How far self-attention is from permutation equivariance: ‖f(P X) − P f(X)‖_F.

    Shapes: x (T, d_model), perm a permutation of range(T), w_q, w_k (d_model, d_k),
    w_v (d_model, d_v) -> a Python float.
    (P X)[i] = X[perm[i]]. f(X) is unmasked self_attention(X)'s output; with
    ``add_positions`` it is self_attention(X + sinusoidal_encoding(T, d_model)):
    positions belong to slots, not to tokens, so they are added after permuting.
    """
    # YOUR CODE HERE
    # Hint: with add_positions, the encoding is added to whatever sits in the slots: f(PX) = attention(PX + PE).
    raise NotImplementedError("equivariance_gap is not implemented yet")
