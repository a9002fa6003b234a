# Exercise stub of induction.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
"""Exercise 8e: the pieces of the induction-heads capstone, in numpy.

``attnlab lab induction`` trains a two-layer, attention-only transformer on sequences made of a
random half and the same half again. The graded part is the pieces a student writes: the data
(``repeated_halves``), which predictions only an induction head can make (``induction_targets``),
the model's forward pass (``layer_norm``, ``attention_only_forward``), and the loss of one training
step with its gradient (``next_token_loss``, ``next_token_loss_grad``). The lab uses them: it makes
its batches with ``repeated_halves``, logs its losses with ``next_token_loss`` over
``induction_targets``, and checks that ``attention_only_forward`` gives the trained model's logits.
"""

import numpy as np

from multihead import multi_head_attention


def repeated_halves(first_halves):
    """Each row, then the same row again: the lab's sequences.

    Shapes: first_halves (..., L) int -> (..., 2L), the same dtype; out[..., :L] and out[..., L:]
    both equal first_halves. The repeat is the same tokens in the same order, never drawn again.
    """
    # YOUR CODE HERE
    # Hint: join the half to itself along the last axis (np.concatenate); np.repeat doubles each token in place instead.
    raise NotImplementedError("repeated_halves is not implemented yet")


def induction_targets(half):
    """Which next-token predictions of a repeated sequence only induction can make.

    Shapes: half (an int L >= 1) -> (2L - 1,) bool. Entry t stands for predicting token t + 1 from
    position t (the logits of position t); it is True where token t + 1 is in the repeat after its
    first token, t = L .. 2L - 2: that token followed the current one the first time round. The
    repeat's first token (t = L - 1) follows nothing seen before, and the first half is random.
    """
    # YOUR CODE HERE
    # Hint: np.arange(2 * half - 1) >= half; position L - 1 predicts the repeat's first token, which nothing before it tells.
    raise NotImplementedError("induction_targets is not implemented yet")


def layer_norm(x, gamma, beta, eps=1e-5):
    """Layer normalisation over the features, as ``torch.nn.LayerNorm``.

    Shapes: x (..., d), gamma (d,), beta (d,) -> (..., d).
    Each row is centred by its mean and divided by sqrt(its biased variance + eps) (the mean of the
    squared deviations, over d, not d - 1), then scaled by gamma and shifted by beta.
    """
    # YOUR CODE HERE
    # Hint: mean and variance over axis=-1 with keepdims=True; np.var's default is the biased one torch uses; eps goes inside the square root.
    raise NotImplementedError("layer_norm is not implemented yet")


def attention_only_forward(tokens, params, n_heads):
    """The lab's model: a causal, attention-only transformer (no MLPs), in numpy.

    Shapes: tokens (B, T) int, T <= context -> logits (B, T, V).
    ``params`` (the weights, in the numpy track's ``x @ W`` convention):
    ``embed`` (V, d), ``position`` (context, d), ``layers`` a list of dicts with ``gamma``,
    ``beta`` (d,) and ``w_q``, ``w_k``, ``w_v``, ``w_o`` (d, d), ``final_gamma``, ``final_beta``
    (d,) and ``unembed`` (d, V).
    The stream starts as embed[tokens] + position[t] (positions from 0); each layer adds causal
    ``multihead.multi_head_attention`` of ``layer_norm(x)`` to it (x = x + attention(norm(x)));
    the logits are ``layer_norm(x, final_gamma, final_beta) @ unembed``. Every layer norm has
    eps = 1e-5, as torch's.
    """
    # YOUR CODE HERE
    # Hint: x = params["embed"][tokens] + params["position"][:T]; the residual adds, it does not replace; pass causal=True to every layer.
    raise NotImplementedError("attention_only_forward is not implemented yet")


def next_token_loss(logits, tokens, where=None):
    """The mean cross-entropy of predicting each next token: what one training step minimises.

    Shapes: logits (B, T, V), tokens (B, T) int, where None or bool broadcastable to (B, T - 1)
    -> a float. Position t's logits predict tokens[:, t + 1], for t = 0 .. T - 2 (the last
    position predicts nothing). The loss of one prediction is -log softmax(logits[b, t])[target],
    computed stably (the row's maximum subtracted before exp: logits of ±1e4 give no inf or nan).
    With ``where``, the mean is over the predictions where it is True only (at least one).
    """
    # YOUR CODE HERE
    # Hint: predictions logits[:, :-1], targets tokens[:, 1:]; log_softmax = shifted - log(sum(exp(shifted))) with shifted = row - row max; each target's entry is log_probs[b, t, targets[b, t]]: index with the arrays of np.indices(targets.shape) and targets itself.
    raise NotImplementedError("next_token_loss is not implemented yet")


def next_token_loss_grad(logits, tokens, where=None):
    """The gradient of ``next_token_loss`` with respect to the logits: where backprop starts.

    Shapes: logits (B, T, V), tokens (B, T) int, where as in ``next_token_loss`` -> (B, T, V).
    At a counted prediction (b, t) it is (softmax(logits[b, t]) - onehot(tokens[b, t + 1])) / N,
    N the number of counted predictions; it is 0 at the last position and wherever ``where`` is
    False. Stable at logits of ±1e4, as the loss.
    """
    # YOUR CODE HERE
    # Hint: softmax of logits[:, :-1] minus one at each target (grad[b, t, targets[b, t]], indexed as in next_token_loss), times the mask, divided by the mask's count; the last position's row stays 0.
    raise NotImplementedError("next_token_loss_grad is not implemented yet")
