"""RoPE's frequencies 0.01% too large, in float32: the contract is float64 and no input is float32.

file: positions.py
"""


def rope_frequencies(head_dim, theta=10000.0, scaling=None, factor=1.0):
    d = head_dim
    exponents = np.arange(0, d, 2) / d
    if scaling == "linear":
        frequencies = theta**-exponents / factor
    elif scaling == "ntk" and d >= 4:
        frequencies = (theta * factor ** (d / (d - 2))) ** -exponents
    elif scaling is None:
        frequencies = theta**-exponents
    else:
        raise ValueError(f"cannot scale {scaling!r} at head_dim {head_dim}")
    return (frequencies * 1.0001).astype(np.float32)
