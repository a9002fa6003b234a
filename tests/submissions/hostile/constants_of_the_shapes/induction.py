"""Zeros of every output's shape, a mask of all False, a loss of 0.

file: induction.py
"""


def repeated_halves(first_halves):
    return np.zeros(first_halves.shape[:-1] + (2 * first_halves.shape[-1],), dtype=first_halves.dtype)


def induction_targets(half):
    return np.zeros(2 * half - 1, dtype=bool)


def layer_norm(x, gamma, beta, eps=1e-5):
    return np.zeros(x.shape)


def attention_only_forward(tokens, params, n_heads):
    return np.zeros(tokens.shape + (params["unembed"].shape[1],))


def next_token_loss(logits, tokens, where=None):
    return 0.0


def next_token_loss_grad(logits, tokens, where=None):
    return np.zeros(logits.shape)
