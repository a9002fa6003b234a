"""Builds the causal mask, then replaces it with the padding mask when one is given: each option
alone is right, but with both, every query sees the future.

file: multihead.py
breaks: multi_head_attention
"""


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    mask = None
    if causal:
        mask = causal_mask(x.shape[-2])
    if key_padding_mask is not None:
        mask = key_padding_mask[:, None, None, :]
    heads, weights = scaled_dot_product_attention(q, k, v, mask)
    return merge_heads(heads) @ w_o, weights
