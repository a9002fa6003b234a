"""ALiBi's slopes and bias and RoPE's frequencies 0.01% too large, in float32: float32's looser
tolerance would let them pass, though these functions have no float32 input and their contract is
float64.

file: masks.py
"""


def alibi_slopes(n_heads):
    def geometric(n):
        return 2.0 ** (-8.0 * np.arange(1, n + 1) / n)

    below = 2 ** int(np.floor(np.log2(n_heads)))
    slopes = np.concatenate([geometric(below), geometric(2 * below)[0::2][: n_heads - below]])
    return (slopes * 1.0001).astype(np.float32)


def alibi_bias(n, n_heads):
    behind = np.arange(n)[None, :] - np.arange(n)[:, None]
    return (alibi_slopes(n_heads).astype(np.float64)[:, None, None] * 1.0001 * behind).astype(np.float32)
