"""Puts the padding mask on the query axis, (B, 1, T, 1), instead of the key axis (B, 1, 1, T):
padded keys keep their weight, and padded queries see nothing at all.

file: multihead.py
breaks: multi_head_attention
"""


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    mask = causal_mask(x.shape[-2]) if causal else None
    if key_padding_mask is not None:
        rows = key_padding_mask[:, None, :, None]
        mask = rows if mask is None else mask & rows
    heads, weights = scaled_dot_product_attention(q, k, v, mask)
    return merge_heads(heads) @ w_o, weights
