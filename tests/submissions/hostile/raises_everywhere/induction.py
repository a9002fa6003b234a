"""Every function of induction.py raises ValueError at once: it computes nothing.

file: induction.py
"""


def repeated_halves(first_halves):
    raise ValueError("nothing computed")


def induction_targets(half):
    raise ValueError("nothing computed")


def layer_norm(x, gamma, beta, eps=1e-5):
    raise ValueError("nothing computed")


def attention_only_forward(tokens, params, n_heads):
    raise ValueError("nothing computed")


def next_token_loss(logits, tokens, where=None):
    raise ValueError("nothing computed")


def next_token_loss_grad(logits, tokens, where=None):
    raise ValueError("nothing computed")
