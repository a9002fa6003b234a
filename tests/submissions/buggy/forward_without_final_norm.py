"""Unembeds the stream as it is, without the final layer norm.

file: induction.py
breaks: attention_only_forward
"""


def attention_only_forward(tokens, params, n_heads):
    x = params["embed"][tokens] + params["position"][: tokens.shape[1]]
    for layer in params["layers"]:
        h = layer_norm(x, layer["gamma"], layer["beta"])
        out, _ = multi_head_attention(h, layer["w_q"], layer["w_k"], layer["w_v"], layer["w_o"], n_heads, causal=True)
        x = x + out
    return x @ params["unembed"]
