"""Positions 1..T, as if the first token were at position 1.

file: induction.py
breaks: attention_only_forward
"""


def attention_only_forward(tokens, params, n_heads):
    t = tokens.shape[1]
    x = params["embed"][tokens] + params["position"][1 : t + 1]
    for layer in params["layers"]:
        h = layer_norm(x, layer["gamma"], layer["beta"])
        out, _ = multi_head_attention(h, layer["w_q"], layer["w_k"], layer["w_v"], layer["w_o"], n_heads, causal=True)
        x = x + out
    return layer_norm(x, params["final_gamma"], params["final_beta"]) @ params["unembed"]
