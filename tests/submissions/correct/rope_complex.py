"""RoPE with complex numbers: each adjacent pair is one complex number, multiplied by e^{iθ}.

file: positions.py
"""


def rope(x, positions, theta=10000.0):
    d = x.shape[-1]
    pairs = x[..., 0::2] + 1j * x[..., 1::2]
    angles = np.outer(positions, theta ** (-np.arange(0, d, 2) / d))
    turned = pairs * np.exp(1j * angles)
    out = np.empty(x.shape, dtype=np.result_type(x.dtype, np.float64))
    out[..., 0::2], out[..., 1::2] = turned.real, turned.imag
    return out
