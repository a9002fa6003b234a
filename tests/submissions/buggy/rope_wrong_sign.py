"""Rotates the wrong way (angle -θ): the sin terms have the wrong sign.

file: positions.py
breaks: rope
"""


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.stack([even * cos + odd * sin, -even * sin + odd * cos], axis=-1).reshape(x.shape)
