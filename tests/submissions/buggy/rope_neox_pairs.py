"""Rotates the NeoX way: pairs feature i with feature i + d/2 (the two halves), not adjacent features.

file: positions.py
breaks: rope
"""


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]
    first, second = x[..., : d // 2], x[..., d // 2 :]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.concatenate([first * cos - second * sin, first * sin + second * cos], axis=-1)
