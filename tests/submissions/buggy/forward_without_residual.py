"""Each layer's output replaces the stream: no residual.

file: induction.py
breaks: attention_only_forward
"""

import numpy as np


def attention_only_forward(tokens, params, n_heads):
    x = params["embed"][tokens] + params["position"][np.arange(tokens.shape[1])]
    for layer in params["layers"]:
        x, _ = multi_head_attention(
            layer_norm(x, layer["gamma"], layer["beta"]), layer["w_q"], layer["w_k"], layer["w_v"], layer["w_o"], n_heads, causal=True
        )
    return layer_norm(x, params["final_gamma"], params["final_beta"]) @ params["unembed"]
