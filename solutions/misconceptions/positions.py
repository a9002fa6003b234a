"""Known wrong versions of sinusoidal_encoding, rope and equivariance_gap."""

import numpy as np
from attention import self_attention
from positions import sinusoidal_encoding

from attnlab.misconceptions import misconception


def _angles(n_positions, d_model, exponent):
    return np.arange(n_positions)[:, None] / 10000.0 ** (exponent(np.arange(d_model // 2)) / d_model)[None, :]


def _table(sin_part, cos_part, d_model):
    table = np.empty((sin_part.shape[0], d_model))
    table[:, 0::2], table[:, 1::2] = sin_part, cos_part
    return table


@misconception(
    "sinusoidal_encoding",
    "sin and cos swapped",
    explanation="PE[p, 2i] is the sine and PE[p, 2i+1] the cosine of p / 10000^(2i/d_model); position 0 is then [0, 1, 0, 1, ...].",
    hint="Fill the even columns (0::2) with np.sin and the odd ones (1::2) with np.cos.",
)
def sinusoidal_sin_cos_swapped(n_positions, d_model):
    angles = _angles(n_positions, d_model, lambda i: 2 * i)
    return _table(np.cos(angles), np.sin(angles), d_model)


@misconception(
    "sinusoidal_encoding",
    "exponent i/d_model instead of 2i/d_model",
    explanation="The frequency of pair i is 1 / 10000^(2i/d_model): the exponent uses the column index 2i, so the wavelengths run from 2π to 10000·2π across the pairs.",
    hint="Use 2i (the even column index) in the exponent.",
)
def sinusoidal_wrong_exponent(n_positions, d_model):
    angles = _angles(n_positions, d_model, lambda i: i)
    return _table(np.sin(angles), np.cos(angles), d_model)


@misconception(
    "rope",
    "NeoX-style pairs (the two halves) instead of adjacent features",
    explanation="This course's RoPE rotates adjacent pairs (x[2i], x[2i+1]). Pairing feature i with feature i + d/2 is another (GPT-NeoX) convention, so the numbers differ.",
    hint="Rotate x[..., 0::2] with x[..., 1::2], then interleave them back.",
)
def rope_neox_pairs(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]
    first, second = x[..., : d // 2], x[..., d // 2 :]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.concatenate([first * cos - second * sin, first * sin + second * cos], axis=-1)


@misconception(
    "rope",
    "rotation in the wrong direction",
    explanation="out[2i] = x[2i]·cos θ − x[2i+1]·sin θ and out[2i+1] = x[2i]·sin θ + x[2i+1]·cos θ: a turn by +θ. Swapping the signs turns by −θ.",
    hint="Check the signs of the sin terms against the formula.",
)
def rope_wrong_sign(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.stack([even * cos + odd * sin, -even * sin + odd * cos], axis=-1).reshape(x.shape)


@misconception(
    "equivariance_gap",
    "positions added before permuting (they travel with the tokens)",
    explanation="Positions belong to slots, not to tokens: f(P X) = attention(P X + PE). Adding PE before permuting moves the positions along with the tokens, so attention stays equivariant and the gap is 0.",
    hint="Permute X first, then add sinusoidal_encoding(T, d_model) inside f.",
)
def equivariance_positions_follow_tokens(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    if add_positions:
        x = x + sinusoidal_encoding(*x.shape)
    out = self_attention(x, w_q, w_k, w_v)[0]
    return float(np.linalg.norm(self_attention(x[perm], w_q, w_k, w_v)[0] - out[perm]))
