# Exercise stub of positions.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
"""Exercise 7: positions, and why attention needs them.

Self-attention is permutation equivariant: shuffling the input tokens
shuffles the outputs the same way, so "dog bites man" and "man bites dog"
look alike to it. Positional encodings break the symmetry on purpose:
sinusoidal encodings are added to the inputs; learned ones are a trained table
of the same shape; RoPE rotates queries and keys by position-dependent angles
so that scores depend on relative position (in two layouts: adjacent pairs,
or the two halves of real checkpoints), and its frequencies can be stretched
for a longer context.
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


def learned_positions(token_ids, token_table, position_table):
    """Token embeddings plus learned absolute positions (GPT-2, BERT): row p of a trained table for position p.

    Shapes: token_ids (..., T) ints, token_table (V, d), position_table (P, d) -> (..., T, d),
    out[..., t, :] = token_table[token_ids[..., t]] + position_table[t].
    A table of P rows knows positions 0..P-1 only: T > P raises ValueError saying so.
    """
    # YOUR CODE HERE
    # Hint: index the token table with the ids, then add the first T rows of the position table (they broadcast over the leading axes).
    raise NotImplementedError("learned_positions is not implemented yet")


def rope_half_split(x, positions, theta=10000.0):
    """RoPE in the half-split layout of GPT-NeoX and Llama checkpoints: feature i pairs with feature i + d/2.

    Shapes: x (..., T, d) with d even, positions (T,) ints -> (..., T, d).
    Pair i = (x[i], x[i + d/2]) at position p turns by angle p · theta^(-2i/d):
    out[i] = x[i] cos - x[i + d/2] sin, out[i + d/2] = x[i] sin + x[i + d/2] cos,
    i.e. x · cos + rotate_half(x) · sin with rotate_half(x) = [-x2, x1] for the halves x1, x2.
    """
    # YOUR CODE HERE
    # Hint: the angle table (T, d/2) is rope's; repeat it for both halves with np.concatenate([angles, angles], -1) (not np.repeat, which interleaves), and build rotate_half(x) = [-x2, x1].
    raise NotImplementedError("rope_half_split is not implemented yet")


def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    """RoPE's inverse frequencies, and the two classic ways to stretch them to a longer context.

    Shapes: head_dim (even int), theta, factor (floats) -> (head_dim/2,) float64,
    inv_freq[i] = theta^(-2i/head_dim) for scaling=None. With scaling="linear" (position
    interpolation) every frequency is divided by factor, as if each position p were p / factor.
    With scaling="ntk" (NTK-aware) the base grows instead: theta' = theta · factor^(d/(d-2)), so the
    fastest pair (i = 0) keeps its frequency 1 and the slowest is slowed by exactly factor; it needs
    head_dim ≥ 4. Any other scaling raises ValueError.
    """
    # YOUR CODE HERE
    # Hint: linear divides the frequencies by factor; ntk changes theta to theta * factor ** (d / (d - 2)) before the power.
    raise NotImplementedError("rope_frequencies is not implemented yet")
