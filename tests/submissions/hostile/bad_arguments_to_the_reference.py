"""self_attention hands the reference stand-in arguments it cannot use, then answers correctly.

file: attention.py
"""


def self_attention(x, w_q, w_k, w_v, causal=False):
    try:
        scaled_dot_product_attention({"q": 1}, x, x)  # the reference reads q.shape: AttributeError
    except Exception:
        pass
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    mask = causal_mask(x.shape[-2]) if causal else None
    return scaled_dot_product_attention(q, k, v, mask)
