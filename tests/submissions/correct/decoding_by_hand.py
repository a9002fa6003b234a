"""Decoding written another way: the mask cut from the square causal mask, RoPE with complex numbers and a softmax by hand, the sinks and the window concatenated without overlap.

file: decoding.py
"""


def bottom_right_causal_mask(n_queries, n_keys):
    square = np.tril(np.ones((n_keys, n_keys), dtype=bool))
    return square[n_keys - n_queries :]


def _turned(x, positions, theta):
    d = x.shape[-1]
    pairs = x[..., 0::2] + 1j * x[..., 1::2]
    angles = np.outer(positions, theta ** (-np.arange(0, d, 2) / d))
    turned = pairs * np.exp(1j * angles)
    out = np.empty(x.shape)
    out[..., 0::2], out[..., 1::2] = turned.real, turned.imag
    return out


def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    t = 0 if cache is None else cache["k"].shape[1]
    n = x_new.shape[1]
    positions = np.arange(t, t + n)
    q = _turned(x_new @ w_q, positions, theta)
    k_new = _turned(x_new @ w_k, positions, theta)
    k = k_new if cache is None else np.concatenate([cache["k"], k_new], axis=1)
    v = x_new @ w_v if cache is None else np.concatenate([cache["v"], x_new @ w_v], axis=1)
    scores = np.einsum("bqd,bkd->bqk", q, k) / np.sqrt(q.shape[-1])
    scores = np.where(bottom_right_causal_mask(n, t + n), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ v, {"k": k, "v": v}


def evict_to_sinks_and_window(cache, n_sinks, window):
    t = cache["k"].shape[1]
    if t <= n_sinks + window:
        return {"k": cache["k"].copy(), "v": cache["v"].copy()}
    return {name: np.concatenate([cache[name][:, :n_sinks], cache[name][:, t - window :]], axis=1) for name in ("k", "v")}
