"""Public tests for heads.py: reading what a head does from its weights."""

import numpy as np
from heads import hard_attention, induction_score, most_attended_token, previous_token_score, sink_score

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_shape

# A causal heatmap of 4 tokens, row i = where query i looks (each row sums to 1).
HEATMAP = np.array([
    [1.0, 0.0, 0.0, 0.0],
    [0.2, 0.8, 0.0, 0.0],
    [0.1, 0.6, 0.3, 0.0],
    [0.4, 0.1, 0.2, 0.3],
])


def test_the_cat_sat():
    """most_attended_token: "sat" with weights (0.12, 0.61, 0.27) over (The, cat, sat) looks at "cat", key 1"""
    got = most_attended_token(np.array([[0.12, 0.61, 0.27]]))
    expect_shape(np.asarray(got), (1,), "most_attended_token of one query", "(T_q,)")
    assert np.asarray(got).tolist() == [1], f"expected [1] (cat), got {got}"


def test_most_attended_token_of_every_query():
    """most_attended_token: one key per query (the key axis is the last one); a tie goes to the lowest key"""
    got = np.asarray(most_attended_token(HEATMAP))
    assert np.issubdtype(got.dtype, np.integer), f"the answer is key indices, ints; got dtype {got.dtype}"
    assert got.tolist() == [0, 1, 1, 0], f"expected [0, 1, 1, 0], got {got.tolist()}"
    wide = np.array([[0.1, 0.2, 0.3, 0.4, 0.0], [0.5, 0.0, 0.5, 0.0, 0.0]])  # 2 queries, 5 keys: no square to hide a wrong axis
    assert np.asarray(most_attended_token(wide)).tolist() == [3, 0], "query 1 ties keys 0 and 2: the lowest index wins"


def test_hard_against_soft():
    """hard_attention: q = [1, 0] against keys [1, 0], [0, 1], [1, 1] ties keys 0 and 2: hard picks key 0's value [10, 0] (soft blends to [6.335, 3.665])"""
    q = np.array([[1.0, 0.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]])
    out, weights = hard_attention(q, k, v)
    expect_close(weights, [[1.0, 0.0, 0.0]], "hard_attention's one-hot weights", q)
    expect_close(out, [[10.0, 0.0]], "hard_attention's output: key 0's value, no blend", q)


def test_hard_attention_takes_the_best_key_per_query():
    """hard_attention: two queries, four keys with values of different widths; each output is exactly one row of v"""
    q = np.array([[0.0, 2.0], [1.0, -1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5], [2.0, -1.0]])
    v = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0]])
    out, weights = hard_attention(q, k, v)
    expect_close(weights, [[0, 1, 0, 0], [0, 0, 0, 1]], "hard_attention's weights (query 0: key 1; query 1: key 3)", q)
    expect_close(out, v[[1, 3]], "hard_attention's output", q)


def test_previous_token_score_by_hand():
    """previous_token_score: the cells (1, 0), (2, 1), (3, 2) hold 0.2, 0.6, 0.2: the score is their mean, 1/3"""
    expect_close(np.asarray(previous_token_score(HEATMAP)), 1 / 3, "previous_token_score of the heatmap", HEATMAP)


def test_sink_score_by_hand():
    """sink_score: key 0's column holds 1.0, 0.2, 0.1, 0.4: the score is their mean, 0.425"""
    expect_close(np.asarray(sink_score(HEATMAP)), 0.425, "sink_score of the heatmap", HEATMAP)


def test_induction_score_by_hand():
    """induction_score: tokens (7, 8, 7, 8): query 2 (7 again) should look at key 1, query 3 (8 again) at key 2; (0.6 + 0.2) / 2 = 0.4"""
    expect_close(np.asarray(induction_score(HEATMAP, np.array([7, 8, 7, 8]))), 0.4, "induction_score with tokens (7, 8, 7, 8)", HEATMAP)
    expect_close(np.asarray(induction_score(HEATMAP, np.array([1, 2, 3, 4]))), 0.0, "induction_score when no token repeats", HEATMAP)


# Heads built by hand from W_Q and W_K. Each token's vector x holds: its token (one-hot), the token
# before it (one-hot, as an earlier layer would have written it), its position (one-hot), a
# constant 1 and a flag for the first position.
TOKENS = np.array([0, 1, 2, 3, 0, 1, 2, 3])  # "A B C D A B C D": the second half repeats the first
VOCAB, T = 4, len(TOKENS)
TOKEN, PREVIOUS, POSITION, ONE, FIRST = 0, VOCAB, 2 * VOCAB, 2 * VOCAB + T, 2 * VOCAB + T + 1
D_MODEL, SHARP = 2 * VOCAB + T + 2, 40.0


def embed(tokens):
    x = np.zeros((len(tokens), D_MODEL))
    for t, token in enumerate(tokens):
        x[t, TOKEN + token] = x[t, POSITION + t] = x[t, ONE] = 1.0
        if t > 0:
            x[t, PREVIOUS + tokens[t - 1]] = 1.0
    x[0, FIRST] = 1.0
    return x


def causal_weights(x, w_q, w_k):
    scores = (x @ w_q) @ (x @ w_k).T / np.sqrt(w_q.shape[1])
    scores = np.where(np.tril(np.ones((len(x), len(x)), dtype=bool)), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)


def built_heads():
    """(3, T, T): a previous-token head, an induction head and a sink head, in that order."""
    eye = np.eye(D_MODEL)
    previous_q = np.zeros((D_MODEL, D_MODEL))
    for p in range(1, T):
        previous_q[POSITION + p, POSITION + p - 1] = SHARP  # query p looks for position p - 1
    induction_q = np.zeros((D_MODEL, D_MODEL))
    for token in range(VOCAB):
        induction_q[TOKEN + token, PREVIOUS + token] = SHARP  # query "A" looks for a key preceded by "A"
    sink_q = np.zeros((D_MODEL, D_MODEL))
    sink_q[ONE, FIRST] = SHARP  # every query looks for the first position
    x = embed(TOKENS)
    return np.stack([causal_weights(x, w_q, eye) for w_q in (previous_q, induction_q, sink_q)])


def test_the_scores_pick_out_heads_built_from_weights():
    """previous_token_score, induction_score, sink_score: heads built from W_Q and W_K (previous token, induction, sink) are each picked out by their own score, one number per head"""
    heads = built_heads()
    previous, induction, sink = previous_token_score(heads), induction_score(heads, TOKENS), sink_score(heads)
    for name, scores in (("previous_token_score", previous), ("induction_score", induction), ("sink_score", sink)):
        expect_shape(np.asarray(scores), (3,), f"{name} of 3 heads", "(h,): one score per head")
    assert previous[0] > 0.9 and previous[0] > 3 * max(previous[1], previous[2]), f"previous_token_score per head: {previous}"
    assert induction[1] > 0.9 and induction[1] > 3 * max(induction[0], induction[2]), f"induction_score per head: {induction}"
    assert sink[2] > 0.9 and sink[2] > 2 * max(sink[0], sink[1]), f"sink_score per head: {sink}"
    # The induction head's favourite key is the one after the earlier copy: three tokens back, however far that is.
    assert most_attended_token(heads[1])[VOCAB:].tolist() == list(range(1, VOCAB + 1))


def weights_of(shape, seed):
    """Rows that sum to 1 over the last axis, of ``shape`` (batch and head axes in front)."""
    w = np.random.default_rng(seed).random(shape)
    return w / w.sum(axis=-1, keepdims=True)


def test_most_attended_token_of_heads():
    """most_attended_token: weights (B, h, T_q, T_k) = (2, 2, 3, 4) give (2, 2, 3): the argmax over the keys of every query of every head"""
    w = weights_of((2, 2, 3, 4), 60)
    got = np.asarray(most_attended_token(w))
    expect_shape(got, (2, 2, 3), "most_attended_token of (2, 2, 3, 4) weights", "(B, h, T_q)")
    assert got.tolist() == np.argmax(w, axis=-1).tolist(), f"expected {np.argmax(w, axis=-1).tolist()}, got {got.tolist()}"


def test_hard_attention_of_heads_in_float32_and_large_scores():
    """hard_attention: float32 (2, 2, L, d) inputs, and scores near ±1e4: each output row is exactly the value row of the best-scoring key"""
    rng = np.random.default_rng(61)
    for dtype, scale in ((np.float32, 1.0), (np.float64, 100.0)):
        q = (rng.standard_normal((2, 2, 4, 3)) * scale).astype(dtype)
        k, v = (rng.standard_normal((2, 2, 5, 3)) * scale).astype(dtype), rng.standard_normal((2, 2, 5, 2)).astype(dtype)
        best = np.argmax(q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2), axis=-1)
        out, weights = hard_attention(q, k, v)
        expect_close(weights, (np.arange(5) == best[..., None]).astype(float), f"hard_attention's one-hot weights ({np.dtype(dtype).name}, scores of about ±{scale * scale:g})", q)
        expect_close(out, np.take_along_axis(v, best[..., None], axis=-2), "hard_attention's output: the best key's value row", q)


def test_previous_token_score_of_heads_and_refusals():
    """previous_token_score: weights (2, 2, 4, 4) give (2, 2), the mean of each head's cells (i, i - 1); non-square weights or a single token raise ValueError"""
    w = weights_of((2, 2, 4, 4), 62)
    expected = np.mean([w[..., i, i - 1] for i in range(1, 4)], axis=0)
    expect_close(np.asarray(previous_token_score(w)), expected, "previous_token_score of (2, 2, 4, 4) weights", w)
    for shape in ((3, 4), (1, 1)):
        try:
            previous_token_score(weights_of(shape, 63))
        except ValueError:
            continue
        raise AssertionError(f"previous_token_score of {shape} weights should raise ValueError (square weights over at least 2 tokens)")


def test_sink_score_of_heads():
    """sink_score: weights (B, h, T, T) = (2, 2, 5, 5) give one score per head, (2, 2): the mean weight on key 0"""
    w = weights_of((2, 2, 5, 5), 64)
    expect_close(np.asarray(sink_score(w)), w[..., :, 0].mean(axis=-1), "sink_score of (2, 2, 5, 5) weights", w)


def test_induction_score_of_heads():
    """induction_score: weights (2, 2, 5, 5) and tokens [7, 8, 7, 8, 9]: queries 2 and 3 repeat; their weights on keys 1 and 2 are averaged per head"""
    w = weights_of((2, 2, 5, 5), 65)
    expected = (w[..., 2, 1] + w[..., 3, 2]) / 2
    expect_close(np.asarray(induction_score(w, np.array([7, 8, 7, 8, 9]))), expected, "induction_score of (2, 2, 5, 5) weights", w)


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "heads")
