"""One zero for every output.

file: induction.py
"""


def repeated_halves(first_halves):
    return np.zeros(1)


def induction_targets(half):
    return np.zeros(1)


def layer_norm(x, gamma, beta, eps=1e-5):
    return np.zeros(1)


def attention_only_forward(tokens, params, n_heads):
    return np.zeros(1)


def next_token_loss(logits, tokens, where=None):
    return np.zeros(1)


def next_token_loss_grad(logits, tokens, where=None):
    return np.zeros(1)
