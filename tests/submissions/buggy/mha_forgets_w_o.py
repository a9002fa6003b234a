"""Forgets the output projection w_o.

file: multihead.py
breaks: multi_head_attention
"""


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, causal=False, key_padding_mask=None):
    q, k, v = (split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
    mask = causal_mask(x.shape[-2]) if causal else None
    if key_padding_mask is not None:
        visible = key_padding_mask[:, None, None, :]
        mask = visible if mask is None else mask & visible
    heads, weights = scaled_dot_product_attention(q, k, v, mask)
    return merge_heads(heads), weights
