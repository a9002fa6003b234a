"""Known wrong versions of the functions of induction.py (instructor-only: never shipped to students)."""

import numpy as np
from induction import layer_norm
from multihead import multi_head_attention

from attnlab.misconceptions import Alternatives, misconception, probe

# ---------------------------------------------------------------- repeated_halves


@misconception(
    "repeated_halves",
    "each token doubled in place (np.repeat), not the half repeated",
    explanation="np.repeat(x, 2, axis=-1) writes every token twice in a row (a a b b c c): the second half is not a copy of the first, and the only thing to predict is 'the token I just saw'. The sequence is the half, then the half again (a b c a b c).",
    hint="np.concatenate([first_halves, first_halves], axis=-1) (or np.tile(first_halves, 2)).",
)
def induction_each_token_twice(first_halves):
    return np.repeat(first_halves, 2, axis=-1)


@misconception(
    "repeated_halves",
    "the copy stacked as more rows, not appended to each row",
    explanation="np.concatenate without an axis joins along axis 0: the batch gets twice as many rows, each still L tokens long, and no row holds a repeat. Each row must be 2L tokens: the half, then the same half.",
    hint="Join along the last axis: np.concatenate([first_halves, first_halves], axis=-1).",
)
def induction_halves_stacked_as_rows(first_halves):
    return np.concatenate([first_halves, first_halves], axis=0)


probe("repeated_halves", "2 rows of 3 tokens", np.array([[1, 2, 3], [4, 5, 6]]))
probe("repeated_halves", "3 rows of 1 token", np.array([[7], [8], [9]]))

# ---------------------------------------------------------------- induction_targets


@misconception(
    "induction_targets",
    "the repeat's first token counted: off by one",
    explanation="Position L - 1 (the last of the first half) predicts the repeat's first token, which follows a random token and was never seen after it: nothing can predict it. Induction predicts the repeat's tokens after its first, from positions L .. 2L - 2.",
    hint="np.arange(2 * half - 1) >= half.",
)
def induction_targets_include_the_repeats_first(half):
    return np.arange(2 * half - 1) >= half - 1


@misconception(
    "induction_targets",
    "a mask over the 2L tokens, not the 2L - 1 predictions",
    explanation="A next-token loss has one prediction per position but the last: position t predicts token t + 1, so there are 2L - 1 of them and entry t is the prediction of token t + 1. A mask over the 2L tokens is one entry too long, and every entry names the wrong position.",
    hint="Length 2L - 1, entry t for the prediction of token t + 1: np.arange(2 * half - 1) >= half.",
)
def induction_targets_over_the_tokens(half):
    return np.arange(2 * half) > half


probe("induction_targets", "halves of 50 tokens", 50)
probe("induction_targets", "halves of 64 tokens", 64)

# ---------------------------------------------------------------- layer_norm


@misconception(
    "layer_norm",
    "normalised over the tokens (axis -2), not over the features",
    explanation="LayerNorm normalises each token's own vector: the mean and variance are over its d features (the last axis). Over axis -2 they are over the tokens of a sequence, which mixes the positions (and a later token changes an earlier one's output).",
    hint="x.mean(axis=-1, keepdims=True) and the variance likewise.",
)
def layer_norm_wrong_axis(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-2, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-2, keepdims=True) + eps) * gamma + beta


@misconception(
    "layer_norm",
    "the unbiased variance (divided by d - 1)",
    explanation="torch's LayerNorm divides the squared deviations by d, the biased variance (np.var's default, ddof=0). The unbiased variance (ddof=1, torch.var's default) is larger by d / (d - 1), so every output is too small by sqrt((d - 1) / d).",
    hint="np.var(x, axis=-1, keepdims=True) with ddof=0 (the default).",
)
def layer_norm_unbiased_variance(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=-1, ddof=1, keepdims=True) + eps) * gamma + beta


@misconception(
    "layer_norm",
    "eps added after the square root",
    explanation="eps keeps the division safe inside the square root: (x - mean) / sqrt(var + eps). Added to the standard deviation instead, sqrt(var) + eps, it is another number: the difference is small on rows of unit variance and large on rows of small variance, where eps matters.",
    hint="np.sqrt(variance + eps), not np.sqrt(variance) + eps.",
)
def layer_norm_eps_outside_the_root(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / (np.sqrt(x.var(axis=-1, keepdims=True)) + eps) * gamma + beta


_LN = np.random.default_rng(5)
probe(
    "layer_norm",
    "2 sequences of 3 tokens of width 4, rows of small variance, eps=0.01",
    _LN.normal(size=(2, 3, 4)) * 0.1,
    _LN.normal(size=4) + 1,
    _LN.normal(size=4),
    eps=0.01,
)
probe(
    "layer_norm",
    "1 sequence of 2 tokens of width 3",
    _LN.normal(size=(1, 2, 3)),
    _LN.normal(size=3) + 1,
    _LN.normal(size=3),
)

# ---------------------------------------------------------------- attention_only_forward


def _forward(tokens, params, n_heads, *, residual=True, positions=0, final=True, causal=True):
    """The reference's steps, with the one step a mistake changes as a switch."""
    t = tokens.shape[-1]
    x = params["embed"][tokens]
    if positions is not None:
        x = x + params["position"][positions : positions + t]
    for layer in params["layers"]:
        out, _ = multi_head_attention(
            layer_norm(x, layer["gamma"], layer["beta"]),
            layer["w_q"],
            layer["w_k"],
            layer["w_v"],
            layer["w_o"],
            n_heads,
            causal=causal,
        )
        x = x + out if residual else out
    if final:
        x = layer_norm(x, params["final_gamma"], params["final_beta"])
    return x @ params["unembed"]


@misconception(
    "attention_only_forward",
    "no residual: each layer's output replaces the stream",
    explanation="A transformer layer adds to the residual stream, x = x + attention(norm(x)); it does not replace it. Without the residual, layer 2 sees only what layer 1 wrote: the token's own embedding is gone, and an induction head, which needs both the token and what layer 1 wrote about its predecessor, cannot form.",
    hint="x = x + out, where out is the layer's attention output.",
)
def forward_without_residual(tokens, params, n_heads):
    return _forward(tokens, params, n_heads, residual=False)


@misconception(
    "attention_only_forward",
    "the position embeddings left out",
    explanation="Attention is permutation-equivariant: without the learned positions added to the token embeddings, no head can tell 'the token before me' from any other earlier token, so there is no previous-token head and no induction. The stream starts as embed[tokens] + position[0 .. T - 1].",
    hint="x = params['embed'][tokens] + params['position'][:T].",
)
def forward_without_positions(tokens, params, n_heads):
    return _forward(tokens, params, n_heads, positions=None)


@misconception(
    "attention_only_forward",
    "positions counted from 1: position[1 .. T], not position[0 .. T - 1]",
    explanation="The first token is at position 0, as torch.arange(T) in the model: it takes row 0 of the position table. Counting from 1 gives every token its neighbour's position (and needs a table one row longer than T).",
    hint="params['position'][:T], the rows 0 .. T - 1.",
)
def forward_positions_from_one(tokens, params, n_heads):
    return _forward(tokens, params, n_heads, positions=1)


@misconception(
    "attention_only_forward",
    "the final layer norm left out",
    explanation="The stream is normalised once more before the unembedding: logits = layer_norm(x, final_gamma, final_beta) @ unembed. Without it, the logits grow with the stream's scale, and they are not the model's.",
    hint="return layer_norm(x, params['final_gamma'], params['final_beta']) @ params['unembed'].",
)
def forward_without_final_norm(tokens, params, n_heads):
    return _forward(tokens, params, n_heads, final=False)


@misconception(
    "attention_only_forward",
    "not causal: multi_head_attention called without causal=True",
    explanation="multi_head_attention is not causal unless told: called with its default causal=False, every position attends to the tokens after it, and a next-token model reads the answer it should predict. Every layer of the lab's model is causal.",
    hint="multi_head_attention(..., n_heads, causal=True).",
)
def forward_not_causal(tokens, params, n_heads):
    return _forward(tokens, params, n_heads, causal=False)


def _params(rng, vocab, context, d, layers):
    return {
        "embed": rng.normal(size=(vocab, d)),
        "position": rng.normal(size=(context, d)),
        "layers": [
            {
                "gamma": 1 + 0.3 * rng.normal(size=d),
                "beta": 0.3 * rng.normal(size=d),
                **{w: rng.normal(size=(d, d)) for w in ("w_q", "w_k", "w_v", "w_o")},
            }
            for _ in range(layers)
        ],
        "final_gamma": 1 + 0.3 * rng.normal(size=d),
        "final_beta": 0.3 * rng.normal(size=d),
        "unembed": rng.normal(size=(d, vocab)),
    }


_FW = np.random.default_rng(8)
probe(
    "attention_only_forward",
    "2 sequences of 4 tokens, 2 layers of 2 heads of width 2, a context of 6",
    np.array([[1, 3, 1, 3], [0, 2, 4, 2]]),
    _params(_FW, 5, 6, 4, 2),
    2,
)
probe(
    "attention_only_forward",
    "1 sequence of 3 tokens, 1 layer of 1 head of width 3, a context of 4",
    np.array([[2, 0, 1]]),
    _params(_FW, 3, 4, 3, 1),
    1,
)

# ---------------------------------------------------------------- next_token_loss


def _log_softmax(z):
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _picked(log_probs, targets):
    return -np.take_along_axis(log_probs, targets[..., None], axis=-1)[..., 0]


def _mean(losses, where):
    return float(losses.mean() if where is None else losses[np.broadcast_to(where, losses.shape)].mean())


@misconception(
    "next_token_loss",
    "not shifted: position t's logits scored against token t itself",
    explanation="A causal model at position t has read tokens 0..t and predicts the next one, tokens[:, t + 1]. Scored against tokens[:, t] (which it can see) the loss teaches copying the current token. The predictions are logits[:, :-1] and their targets tokens[:, 1:].",
    hint="logits[:, :-1] against tokens[:, 1:].",
)
def loss_not_shifted(logits, tokens, where=None):
    losses = _picked(_log_softmax(logits), tokens)  # (B, T): each position against its own token
    ways = [losses[:, :-1], losses[:, 1:]] + ([losses] if where is None else [])
    return Alternatives([_mean(way, where) for way in ways])


@misconception(
    "next_token_loss",
    "shifted the wrong way: logits[:, 1:] against tokens[:, :-1]",
    explanation="Position t's logits predict the token after t, not the one before: pairing logits[:, 1:] with tokens[:, :-1] asks each position for the previous token, which it has already read.",
    hint="logits[:, :-1] against tokens[:, 1:].",
)
def loss_shifted_the_wrong_way(logits, tokens, where=None):
    return _mean(_picked(_log_softmax(logits[:, 1:]), tokens[:, :-1]), where)


@misconception(
    "next_token_loss",
    "the masked losses summed and divided by every prediction, not by the counted ones",
    explanation="With where, the mean is over the predictions it counts: their sum divided by their number. Zeroing the others and taking the mean of the whole (B, T - 1) array divides by every prediction, so the loss shrinks with the share of the sequence that is counted.",
    hint="losses[where].mean(), or (losses * where).sum() / where.sum() with where broadcast to (B, T - 1).",
)
def loss_mean_over_every_prediction(logits, tokens, where=None):
    losses = _picked(_log_softmax(logits[:, :-1]), tokens[:, 1:])
    counted = np.ones(losses.shape) if where is None else np.broadcast_to(where, losses.shape)
    return float((losses * counted).mean())


@misconception(
    "next_token_loss",
    "log-softmax without the max subtraction: inf or nan at large logits",
    explanation="np.exp of a logit of 1e4 overflows to inf, and log(inf) - 1e4, or inf / inf, is inf or nan. log_softmax(z) = (z - max z) - log(sum(exp(z - max z))) is the same value with every exponent <= 0.",
    hint="Subtract each row's maximum before np.exp (shifted = z - z.max(axis=-1, keepdims=True)).",
)
def loss_without_max_subtraction(logits, tokens, where=None):
    z = logits[:, :-1]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        log_probs = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
    return _mean(_picked(log_probs, tokens[:, 1:]), where)


_LS = np.random.default_rng(11)
probe(
    "next_token_loss",
    "2 sequences of 4 tokens, vocabulary 3, the second's last 2 predictions counted",
    _LS.normal(size=(2, 4, 3)),
    np.array([[0, 1, 2, 1], [2, 2, 0, 1]]),
    np.array([[False, False, False], [False, True, True]]),
)
probe(
    "next_token_loss",
    "1 sequence of 3 tokens, vocabulary 4, logits of about ±1e4",
    _LS.normal(size=(1, 3, 4)) * 1e4,
    np.array([[3, 1, 0]]),
)

# ---------------------------------------------------------------- next_token_loss_grad


@misconception(
    "next_token_loss_grad",
    "not divided by N, the number of counted predictions",
    explanation="The loss is a mean over N predictions, so each prediction's gradient is (softmax - onehot) / N. Without the division the gradient is N times too large, and it grows with the batch and the sequence: a learning rate that works for one batch size diverges on another.",
    hint="Divide by the number of counted predictions: where.sum(), or B * (T - 1) without where.",
)
def grad_not_divided_by_n(logits, tokens, where=None):
    predictions, targets = logits[:, :-1], tokens[:, 1:]
    exp = np.exp(predictions - predictions.max(axis=-1, keepdims=True))
    grad = exp / exp.sum(axis=-1, keepdims=True)
    np.put_along_axis(grad, targets[..., None], np.take_along_axis(grad, targets[..., None], axis=-1) - 1.0, axis=-1)
    counted = np.ones(targets.shape) if where is None else np.broadcast_to(where, targets.shape).astype(float)
    full = np.zeros(logits.shape)
    full[:, :-1] = grad * counted[..., None]
    return full


probe(
    "next_token_loss_grad",
    "2 sequences of 4 tokens, vocabulary 3, the second's last 2 predictions counted",
    _LS.normal(size=(2, 4, 3)),
    np.array([[0, 1, 2, 1], [2, 2, 0, 1]]),
    np.array([[False, False, False], [False, True, True]]),
)
probe("next_token_loss_grad", "1 sequence of 3 tokens, vocabulary 4", _LS.normal(size=(1, 3, 4)), np.array([[3, 1, 0]]))
