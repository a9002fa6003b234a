"""Hidden tests for induction.py: the capstone's data, its targets, its forward pass and its loss.

Every test is a few small numpy calls on drawn inputs (at most 2 sequences of 6 tokens, a width of
6): nothing here trains, so a class of any size grades in the time of one file.
"""

import numpy as np
from attention_inputs import SEED, normal
from hypothesis import given
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_array, expect_close, expect_equal_bool, expect_shape

BIG = 1e4  # logits this large overflow exp unless the row's maximum is subtracted first


def tokens_of(seed, shape, vocab):
    return np.random.default_rng(seed).integers(0, vocab, size=shape)


@st.composite
def halves(draw):
    """(first_halves (..., L) int): no leading axis, a batch, or a batch of batches."""
    lead = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple))
    return tokens_of(draw(SEED), lead + (draw(st.integers(1, 5)),), draw(st.integers(2, 9)))


@st.composite
def logits_case(draw, scale=1.0, where=False):
    """logits (B, T, V), tokens (B, T) with T >= 2, and a mask of the T - 1 predictions (None, (T - 1,) or (B, T - 1)) with at least one True."""
    batch, t, vocab, seed = draw(st.integers(1, 3)), draw(st.integers(2, 6)), draw(st.integers(2, 6)), draw(SEED)
    logits = normal(seed, (batch, t, vocab), scale=scale)
    tokens = tokens_of(seed + 1, (batch, t), vocab)
    if not where:
        return logits, tokens, None
    shape = draw(st.sampled_from([(t - 1,), (batch, t - 1)]))
    mask = np.random.default_rng(seed + 2).random(shape) < 0.5
    mask.flat[draw(st.integers(0, mask.size - 1))] = True
    return logits, tokens, mask


@st.composite
def model_case(draw):
    """tokens (B, T), params of the documented layout (context >= T, 1 or 2 layers), n_heads."""
    batch, t, vocab, heads, d_head, layers, extra, seed = (
        draw(st.integers(1, 2)),
        draw(st.integers(1, 5)),
        draw(st.integers(2, 6)),
        draw(st.integers(1, 2)),
        draw(st.integers(1, 3)),
        draw(st.integers(1, 2)),
        draw(st.integers(0, 2)),
        draw(SEED),
    )
    d = heads * d_head
    rng = np.random.default_rng(seed)
    params = {
        "embed": rng.standard_normal((vocab, d)),
        "position": rng.standard_normal((t + extra, d)),
        "layers": [
            {
                "gamma": 1 + 0.5 * rng.standard_normal(d),
                "beta": 0.5 * rng.standard_normal(d),
                **{name: rng.standard_normal((d, d)) for name in ("w_q", "w_k", "w_v", "w_o")},
            }
            for _ in range(layers)
        ],
        "final_gamma": 1 + 0.5 * rng.standard_normal(d),
        "final_beta": 0.5 * rng.standard_normal(d),
        "unembed": rng.standard_normal((d, vocab)),
    }
    return tokens_of(seed + 1, (batch, t), vocab), params, heads


def weights_of(params):
    """Every float array of ``params``: what the forward's tolerance follows."""
    layers = [a for layer in params["layers"] for a in layer.values()]
    return [a for a in params.values() if isinstance(a, np.ndarray)] + layers


def expect_tokens(got, expected, what: str) -> None:
    """Token ids, compared exactly: an array of integers of the expected shape and values."""
    if not isinstance(got, np.ndarray) or got.dtype.kind not in "iu":
        kind = f"an array of dtype {got.dtype}" if isinstance(got, np.ndarray) else f"a {type(got).__name__}"
        raise Mismatch(f"{what} should be a numpy array of integer token ids, got {kind}")
    expect_shape(got, expected.shape, what, "(..., 2L)")
    wrong = got != expected
    if wrong.any():
        index = tuple(np.argwhere(wrong)[0])
        raise Mismatch(
            f"{what} is wrong in {int(wrong.sum())} of {wrong.size} tokens; first at index {list(map(int, index))}: expected {expected[index]}, got {got[index]}"
        )


def expect_loss(got, expected, what: str, *inputs) -> None:
    """A loss is a float (a Python float, a numpy float or a 0-d array), compared at the precision of ``inputs``."""
    if isinstance(got, bool) or not isinstance(got, (float, int, np.floating, np.ndarray)) or np.ndim(got) != 0:
        shape = f" of shape {np.shape(got)}" if np.ndim(got) else ""
        raise Mismatch(f"{what} should return a float (the mean loss), got {type(got).__name__}{shape}")
    expect_close(np.asarray(float(got)), expected, what, *inputs)


def masked_text(where) -> str:
    return "" if where is None else f", where of shape {where.shape}"


# ---------------------------------------------------------------- the data and its targets


@given(halves())
def test_repeated_halves_values(student, reference, first):
    """repeated_halves: each row, then the same row again"""
    what = f"repeated_halves(first_halves of shape {first.shape})"
    expect_tokens(student.repeated_halves(first), reference.repeated_halves(first), what)


@given(st.integers(1, 40))  # the diagnostic probes ask 50 and 64
def test_induction_targets_values(student, reference, half):
    """induction_targets: the predictions of the repeat's tokens after its first, and no other"""
    what = f"induction_targets({half})"
    expect_equal_bool(
        student.induction_targets(half),
        reference.induction_targets(half),
        what,
        "(2L - 1,): entry t predicts token t + 1",
    )


# ---------------------------------------------------------------- the forward pass


@st.composite
def norm_case(draw):
    batch, t, d, seed = draw(st.integers(1, 2)), draw(st.integers(1, 4)), draw(st.integers(1, 6)), draw(SEED)
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    scale = draw(st.sampled_from([1.0, 0.01]))  # rows of small variance: where eps matters
    x = normal(seed, (batch, t, d), dtype, scale=scale) + normal(seed + 1, (batch, t, 1), dtype)
    return (
        x,
        (1 + normal(seed + 2, (d,), dtype)).astype(dtype),
        normal(seed + 3, (d,), dtype),
        draw(st.sampled_from([None, 1e-3, 0.25])),
    )


@given(norm_case())
def test_layer_norm_values(student, reference, case):
    """layer_norm: each row centred, divided by sqrt(its biased variance + eps), scaled by gamma and shifted by beta"""
    x, gamma, beta, eps = case
    options = {} if eps is None else {"eps": eps}
    what = f"layer_norm(x of shape {x.shape}, gamma, beta{'' if eps is None else f', eps={eps}'})"
    expect_close(
        student.layer_norm(x, gamma, beta, **options),
        reference.layer_norm(x, gamma, beta, **options),
        what,
        x,
        gamma,
        beta,
        passport="(..., d)",
    )


@given(model_case())
def test_forward_values(student, reference, case):
    """attention_only_forward: the logits of the causal attention-only model, layer by layer"""
    tokens, params, heads = case
    what = f"attention_only_forward(tokens of shape {tokens.shape}, params with {len(params['layers'])} layers, n_heads={heads})"
    got = expect_array(student.attention_only_forward(tokens, params, heads), what)
    expected = reference.attention_only_forward(tokens, params, heads)
    expect_shape(got, expected.shape, what, "(B, T, V)")
    expect_close(got, expected, what, *weights_of(params), passport="(B, T, V)")


@given(model_case(), SEED)
def test_forward_future_leaves_the_past(student, reference, case, seed):
    """attention_only_forward: causal, changing the last token leaves every earlier position's logits unchanged"""
    tokens, params, heads = case
    changed = tokens.copy()
    changed[:, -1] = (changed[:, -1] + 1 + seed % (params["embed"].shape[0] - 1)) % params["embed"].shape[0]
    before = expect_array(student.attention_only_forward(tokens, params, heads), "attention_only_forward(tokens)")
    after = expect_array(
        student.attention_only_forward(changed, params, heads), "attention_only_forward(tokens') with a new last token"
    )
    expect_shape(after, before.shape, "attention_only_forward(tokens')", "(B, T, V)")
    expect_close(
        after[:, :-1],
        before[:, :-1],
        "the logits before the last position, after the last token changed",
        *weights_of(params),
    )


# ---------------------------------------------------------------- one training step's loss


@given(logits_case())
def test_loss_values(student, reference, case):
    """next_token_loss: the mean cross-entropy of each position's logits against the next token"""
    logits, tokens, _ = case
    what = f"next_token_loss(logits of shape {logits.shape}, tokens)"
    expect_loss(student.next_token_loss(logits, tokens), reference.next_token_loss(logits, tokens), what, logits)


@given(logits_case(where=True))
def test_loss_where(student, reference, case):
    """next_token_loss: with where, the mean over the counted predictions only"""
    logits, tokens, where = case
    what = f"next_token_loss(logits of shape {logits.shape}, tokens{masked_text(where)})"
    expect_loss(
        student.next_token_loss(logits, tokens, where), reference.next_token_loss(logits, tokens, where), what, logits
    )


@given(logits_case(scale=BIG))
def test_loss_large_logits(student, reference, case):
    """next_token_loss: no nan or inf and the right value when logits reach ±1e4"""
    logits, tokens, _ = case
    what = "next_token_loss with logits of about ±1e4"
    expect_loss(student.next_token_loss(logits, tokens), reference.next_token_loss(logits, tokens), what, logits)


@given(logits_case())
def test_grad_values(student, reference, case):
    """next_token_loss_grad: (softmax - onehot of the next token) / N at every prediction, 0 at the last position"""
    logits, tokens, _ = case
    what = f"next_token_loss_grad(logits of shape {logits.shape}, tokens)"
    expect_close(
        student.next_token_loss_grad(logits, tokens),
        reference.next_token_loss_grad(logits, tokens),
        what,
        logits,
        passport="(B, T, V)",
    )


@given(logits_case(where=True))
def test_grad_where(student, reference, case):
    """next_token_loss_grad: with where, 0 at the predictions not counted, the others divided by their count"""
    logits, tokens, where = case
    what = f"next_token_loss_grad(logits of shape {logits.shape}, tokens{masked_text(where)})"
    got, expected = (
        student.next_token_loss_grad(logits, tokens, where),
        reference.next_token_loss_grad(logits, tokens, where),
    )
    expect_close(got, expected, what, logits, passport="(B, T, V)")


@given(logits_case(scale=BIG))
def test_grad_large_logits(student, reference, case):
    """next_token_loss_grad: no nan or inf and the right values when logits reach ±1e4"""
    logits, tokens, _ = case
    what = "next_token_loss_grad with logits of about ±1e4"
    expect_close(
        student.next_token_loss_grad(logits, tokens),
        reference.next_token_loss_grad(logits, tokens),
        what,
        logits,
        passport="(B, T, V)",
    )
