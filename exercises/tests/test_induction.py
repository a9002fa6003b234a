"""Public tests for induction.py: run them with `attnlab check` or `pytest`.

The capstone's pieces, each on a small worked example: the data, its targets, the model's forward
pass (a one-layer model written out by hand), and the loss of one training step with its gradient.
"""

import numpy as np
from induction import attention_only_forward, induction_targets, layer_norm, next_token_loss, next_token_loss_grad, repeated_halves
from multihead import multi_head_attention

from attnlab.check.probe_book import probe_tests
from attnlab.expect import Mismatch, expect_close, expect_equal_bool


def expect_loss(got, expected, what, *inputs):
    """A loss is a float (a Python float, a numpy float or a 0-d array), compared as expect_close compares."""
    if isinstance(got, bool) or not isinstance(got, (float, int, np.floating, np.ndarray)) or np.ndim(got) != 0:
        raise Mismatch(f"{what} should return a float, got {type(got).__name__}{f' of shape {np.shape(got)}' if np.ndim(got) else ''}")
    expect_close(np.asarray(float(got)), expected, what, *inputs)


def expect_tokens(got, expected, what):
    """Token ids are compared exactly."""
    if not isinstance(got, np.ndarray) or got.dtype.kind not in "iu":
        raise Mismatch(f"{what} should be a numpy array of integers, got {type(got).__name__}{f' of dtype {got.dtype}' if isinstance(got, np.ndarray) else ''}")
    if got.shape != np.shape(expected) or not np.array_equal(got, expected):
        raise Mismatch(f"{what} should be {np.asarray(expected).tolist()}, got {got.tolist()}")


def test_repeated_halves_worked_example():
    """repeated_halves: [[3, 1, 4]] becomes [[3, 1, 4, 3, 1, 4]], and every row of a batch of batches is repeated"""
    expect_tokens(repeated_halves(np.array([[3, 1, 4]])), [[3, 1, 4, 3, 1, 4]], "repeated_halves([[3, 1, 4]])")
    expect_tokens(repeated_halves(np.array([5, 9])), [5, 9, 5, 9], "repeated_halves([5, 9])")
    halves = np.arange(12).reshape(2, 3, 2)
    expect_tokens(repeated_halves(halves), np.concatenate([halves, halves], axis=-1), "repeated_halves(a (2, 3, 2) batch)")


def test_induction_targets_worked_example():
    """induction_targets: halves of 3 tokens: predictions 0..4, of which 3 and 4 (tokens 4 and 5) are induction's"""
    expect_equal_bool(induction_targets(3), np.array([False, False, False, True, True]), "induction_targets(3)")
    expect_equal_bool(induction_targets(1), np.array([False]), "induction_targets(1)")


def test_layer_norm_worked_example():
    """layer_norm: the row [1, 2, 3] becomes [-1.2247, 0, 1.2247] (biased variance 2/3), then gamma and beta apply"""
    x = np.array([[[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]]])
    ones, zeros = np.ones(3), np.zeros(3)
    expected = np.array([[[-1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]]) / np.sqrt(2 / 3 + 1e-5)
    expect_close(layer_norm(x, ones, zeros), expected, "layer_norm([[1, 2, 3], [2, 2, 2]])", x)
    gamma, beta = np.array([2.0, 1.0, 0.5]), np.array([0.0, 1.0, -1.0])
    expect_close(layer_norm(x, gamma, beta, eps=0.1), np.array([[[-1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]]) / np.sqrt(2 / 3 + 0.1) * gamma + beta, "layer_norm(x, gamma, beta, eps=0.1)", x, gamma, beta)
    small = x.astype(np.float32) * np.float32(0.01)
    expect_close(layer_norm(small, ones.astype(np.float32), zeros.astype(np.float32)), expected * 0.01 / np.sqrt(2e-4 / 3 + 1e-5) * np.sqrt(2 / 3 + 1e-5), "layer_norm in float32, rows of small variance", small)


def _one_layer_params():
    rng = np.random.default_rng(0)
    d, vocab = 4, 5
    return {
        "embed": rng.normal(size=(vocab, d)),
        "position": rng.normal(size=(6, d)),  # a context of 6, longer than the 4 tokens
        "layers": [{"gamma": np.ones(d), "beta": np.zeros(d), **{w: rng.normal(size=(d, d)) for w in ("w_q", "w_k", "w_v", "w_o")}}],
        "final_gamma": np.ones(d),
        "final_beta": np.zeros(d),
        "unembed": rng.normal(size=(d, vocab)),
    }


def test_attention_only_forward_by_hand():
    """attention_only_forward: one layer, written out: embeddings plus positions 0..T-1, x + causal attention(norm(x)), final norm, unembedding"""
    params = _one_layer_params()
    tokens = np.array([[1, 3, 1, 3], [0, 2, 4, 2]])
    x = params["embed"][tokens] + params["position"][:4]
    layer = params["layers"][0]
    out, _ = multi_head_attention(layer_norm(x, layer["gamma"], layer["beta"]), layer["w_q"], layer["w_k"], layer["w_v"], layer["w_o"], 2, causal=True)
    expected = layer_norm(x + out, params["final_gamma"], params["final_beta"]) @ params["unembed"]
    expect_close(attention_only_forward(tokens, params, 2), expected, "attention_only_forward(tokens, one layer, n_heads=2)", *[params[k] for k in ("embed", "position", "unembed")])


def test_next_token_loss_worked_example():
    """next_token_loss: uniform logits give ln V; position t is scored against token t + 1, and where counts only its predictions"""
    tokens = np.array([[0, 1, 2, 1], [2, 2, 0, 1]])
    expect_loss(next_token_loss(np.zeros((2, 4, 3)), tokens), np.log(3), "next_token_loss(uniform logits over 3 tokens)", np.zeros(3))
    logits = np.zeros((1, 3, 4))
    logits[0, 0, 2] = logits[0, 1, 0] = np.log(3.0)  # position 0 bets on token 2, position 1 on token 0
    # targets: tokens 1 and 2 are 2 and 0, so each prediction puts 3/6 on its target
    expect_loss(next_token_loss(logits, np.array([[1, 2, 0]])), np.log(2.0), "next_token_loss with each target given 1/2", logits)
    only_second = np.array([[False, False, False], [False, True, True]])  # the first sequence counts nothing
    expect_loss(next_token_loss(np.zeros((2, 4, 3)), tokens, only_second), np.log(3), "next_token_loss(..., where counting the second sequence's last 2)", np.zeros(3))
    expect_loss(next_token_loss(logits, np.array([[1, 2, 0]]), np.array([True, False])), np.log(2.0), "next_token_loss(..., where=[True, False])", logits)


def test_next_token_loss_large_logits():
    """next_token_loss: logits of ±1e4: a sure, right guess costs 0 and a sure, wrong one 2e4, with no nan or inf"""
    logits = np.full((1, 3, 2), -1e4)
    logits[0, :, 0] = 1e4  # every position sure of token 0
    expect_loss(next_token_loss(logits, np.array([[1, 0, 0]])), 0.0, "next_token_loss, sure and right", logits)
    expect_loss(next_token_loss(logits, np.array([[0, 1, 1]])), 2e4, "next_token_loss, sure and wrong", logits)


def test_next_token_loss_grad_worked_example():
    """next_token_loss_grad: (softmax - onehot) / N at each counted prediction, 0 at the last position and where not counted, stable at ±1e4"""
    tokens = np.array([[0, 1, 2, 1], [2, 2, 0, 1]])
    grad = np.full((2, 4, 3), 1 / 3)
    grad[:, -1] = 0.0
    for b in range(2):
        for t in range(3):
            grad[b, t, tokens[b, t + 1]] -= 1.0
    expect_close(next_token_loss_grad(np.zeros((2, 4, 3)), tokens), grad / 6, "next_token_loss_grad(uniform logits)", np.zeros(3))
    only_second = np.array([[False, False, False], [False, True, True]])
    expected = grad * np.array([[0, 0, 0, 0], [0, 1, 1, 0]])[..., None] / 2
    expect_close(next_token_loss_grad(np.zeros((2, 4, 3)), tokens, only_second), expected, "next_token_loss_grad(..., where counting 2 predictions)", np.zeros(3))
    expect_close(next_token_loss_grad(np.zeros((2, 4, 3)), tokens, np.array([True, False, False])), grad * np.array([1, 0, 0, 0])[:, None] / 2, "next_token_loss_grad(..., where=[True, False, False])", np.zeros(3))
    logits = np.full((1, 3, 2), -1e4)
    logits[0, :, 0] = 1e4
    sure = np.zeros((1, 3, 2))
    sure[0, 0] = [1 / 2, -1 / 2]  # position 0 is sure of token 0, and token 1 came; position 1 was right
    expect_close(next_token_loss_grad(logits, np.array([[0, 1, 0]])), sure, "next_token_loss_grad with logits of ±1e4", logits)


test_diagnostic_probes = probe_tests(__file__, "induction")
