"""The question bank: its size, and every answer recomputed independently of the quiz and the reference.

Each expected value below is computed here with plain math/numpy from the
student's drawn parameters; none calls the reference solutions or reuses the
quiz's own expression.
"""

import math

import numpy as np
import pytest
from conftest import COURSE, REPO

from attnlab.quiz.schema import load_quiz
from attnlab.quiz.items import reference_factory_for
from attnlab.quiz.variant import drawn_values, keyed_question, practice_variants

QUIZZES = {path.stem: load_quiz(path) for path in sorted((REPO / "quizzes").glob("*.yaml"))}
STUDENTS = ["alice", "bob", "s1234567"]
E = math.e
POOL = "pool"


def softmax(v):
    v = np.asarray(v, dtype=float)
    w = np.exp(v - v.max())
    return (w / w.sum()).tolist()


def gap(x, perm, wq, wk, wv, positions=False):
    x, wq, wk, wv = (np.array(a, dtype=float) for a in (x, wq, wk, wv))
    n, d = x.shape

    def attend(tokens):
        if positions:
            pe = np.zeros((n, d))
            for p in range(n):
                for i in range(d // 2):
                    pe[p, 2 * i], pe[p, 2 * i + 1] = (
                        math.sin(p / 10000 ** (2 * i / d)),
                        math.cos(p / 10000 ** (2 * i / d)),
                    )
            tokens = tokens + pe
        q, k, v = tokens @ wq, tokens @ wk, tokens @ wv
        out = np.zeros((n, v.shape[1]))
        for i in range(n):
            out[i] = np.array(softmax([q[i] @ k[j] / math.sqrt(q.shape[1]) for j in range(n)])) @ v
        return out

    return float(np.linalg.norm(attend(x[list(perm)]) - attend(x)[list(perm)]))


def weights_with_tie(a):
    """softmax(a, 0, a): the lesson's single query q = [a, 0] against keys [1, 0], [0, 1], [1, 1]."""
    return softmax([a, 0.0, a])


def masked_softmax_row(row, visible):
    """The softmax of ``row`` over its first ``visible`` entries, zeros after them."""
    return softmax(row[:visible]) + [0.0] * (len(row) - visible)


def two_token_weights(x0, x1):
    x = np.array([x0, x1], dtype=float)
    scores = x @ x.T / math.sqrt(2)
    return [[1.0, 0.0], softmax(scores[1].tolist())]


def window_mask(n, w):
    return [[1.0 if i - w < j <= i else 0.0 for j in range(n)] for i in range(n)]


def kv_bytes(layers, h_kv, d_head, bytes_per_number, tokens):
    """A KV cache's bytes: a key and a value per token, key/value head and layer."""
    return len(("key", "value")) * layers * h_kv * d_head * bytes_per_number * tokens


def finite_fill_blind_row(v):
    """The output of a query whose every score is replaced by -1e9: its weights are uniform."""
    scores = np.full(len(v), -1e9)
    weights = np.exp(scores - scores.max())
    return ((weights / weights.sum()) @ np.array(v, dtype=float)).tolist()


def most_peaked_qk_norm_row(d, n):
    """The largest weight under QK-norm (RMS norm, gains of 1, eps negligible, then q · k / √d): one
    key along a random query, the other n − 1 against it."""
    q = np.random.default_rng(d).normal(size=d)

    def rms(x):
        return x / np.sqrt(np.mean(x**2))

    keys = [q * 3.0] + [-q * 0.5] * (n - 1)  # lengths do not matter after the norm
    return softmax([float(rms(q) @ rms(k)) / math.sqrt(d) for k in keys])[0]


def rnn_updates(i, j):
    """The state updates that carry token i's information to token j, one per token."""
    state_at, steps = i, 0
    while state_at < j:
        state_at, steps = state_at + 1, steps + 1
    return steps


def alibi_slopes(n):
    """ALiBi's slopes for n heads (a power of two): the geometric sequence 2^(-8/n), 2^(-16/n), ..."""
    first = 2.0 ** (-8.0 / n)
    return [first ** (h + 1) for h in range(n)]


def ntk_base(theta, s, d):
    """The base whose slowest pair (i = d/2 - 1) turns s times slower than with theta."""
    slowest = (d - 2) / d  # the exponent 2i/d of the slowest pair
    return theta * s ** (1 / slowest)


def half_split_partner(d, j):
    """rotate_half's pairing: the features of the first half meet those of the second half in order."""
    first, second = list(range(d // 2)), list(range(d // 2, d))
    return dict(zip(first, second))[j]


def half_split_pair(d, f):
    """The pair (angle) index of feature f in the half-split layout."""
    return f % (d // 2)


def repeated_block(length, copies):
    """A block of ``length`` different tokens written ``copies`` times in a row, as the lab's sequences."""
    return np.tile(np.arange(length), copies)


def lab_losses_at_best(half, vocab):
    """The per-prediction losses of the lab's best model: prediction k (of token k + 1 from tokens
    0..k) is certain where token k + 1 repeats the token after an earlier copy of token k (the
    repeat after its first token), at chance elsewhere."""
    tokens = repeated_block(half, 2)
    losses = []
    for k in range(len(tokens) - 1):
        copies = [j for j in range(k) if tokens[j] == tokens[k] and j + 1 < len(tokens)]
        losses.append(0.0 if copies and tokens[copies[-1] + 1] == tokens[k + 1] else math.log(vocab))
    return losses


def induction_target(tokens, query):
    """The key after the earlier copy of the query's token, found by a loop."""
    (j,) = [j for j in range(query) if tokens[j] == tokens[query]]
    return j + 1


def softmax_cross_entropy_grad(z, target):
    """d(-log softmax(z)[target]) / dz, by central finite differences: independent of the closed form."""
    z = np.asarray(z, dtype=float)

    def loss(v):
        return -(v[target] - np.log(np.sum(np.exp(v))))

    step = 1e-6
    return np.array([(loss(z + step * e) - loss(z - step * e)) / (2 * step) for e in np.eye(len(z))])


def uniform_causal_weights(n):
    ones = np.tril(np.ones((n, n)))
    return ones / ones.sum(axis=1, keepdims=True)


def mean_previous_weight(weights):
    """The mean over queries 1..T-1 of the weight on key i - 1, by a loop."""
    return float(np.mean([weights[i][i - 1] for i in range(1, len(weights))]))


def previous_then_self(n, w):
    """Query 0 on itself; query i >= 1: w on key i - 1 and the rest on itself."""
    weights = np.eye(n)
    for i in range(1, n):
        weights[i, i - 1], weights[i, i] = w, 1 - w
    return weights


def item(letter_or_bool):
    """A pool question's key: the item's own answer (checked against the YAML item below)."""
    return lambda p: letter_or_bool


EXPECTED = {
    ("shapes", "qkt-entries"): lambda p: p["T"] ** 2,
    ("shapes", "weights-shape"): lambda p: (p["L_q"], p["L_k"]),
    ("shapes", "output-shape"): lambda p: (p["L_q"], p["d_v"]),
    ("shapes", "cross-scores-shape"): lambda p: (p["B"], p["L_tgt"], p["L_src"]),
    ("shapes", "decoder-self-shape"): lambda p: (p["B"], p["L_tgt"], p["L_tgt"]),
    ("shapes", "mha-weights-shape"): lambda p: (p["B"], p["h"], p["T"], p["T"]),
    ("shapes", "split-heads-shape"): lambda p: (p["B"], p["h"], p["T"], p["d_model"] // p["h"]),
    ("shapes", "score-memory"): lambda p: p["h"] * p["T"] * p["T"] * p["bytes"] / (1024 * 1024),
    ("shapes", "gqa-group"): lambda p: p["group"],
    ("shapes", "kv-cache-shape"): lambda p: (p["B"], p["t"], p["d_k"]),
    ("shapes", "doubling-cost"): lambda p: p["k"] * p["k"],
    ("softmax", "the-cat-sat"): lambda p: softmax([p["a"], p["b"], p["c"]]),
    ("softmax", "softmax-row"): lambda p: softmax(p["s"]),
    ("softmax", "row-sum"): lambda p: 1.0 if p["q"] >= p["T"] - p["L"] else 0.0,  # a padding query sees no key: zeros
    ("softmax", "which-axis"): POOL,
    ("softmax", "cross-axis-size"): lambda p: p["L_src"],
    ("softmax", "wrong-axis"): POOL,
    ("softmax", "scale-divisor"): lambda p: p["d"] ** 0.5,
    ("softmax", "dot-variance"): lambda p: p["d_k"],
    ("softmax", "temperature"): POOL,
    ("softmax", "stable-pair"): lambda p: softmax([p["a"], p["b"]])[0],
    ("softmax", "scale-saturation"): lambda p: softmax([p["d"] / math.sqrt(p["d"]), 0.0])[0],
    ("softmax", "single-query-output"): lambda p: (np.array(weights_with_tie(p["a"])) @ np.array(p["v"])).tolist(),
    ("softmax", "single-query-weights"): lambda p: weights_with_tie(p["a"]),
    ("masks", "above-diagonal"): lambda p: len([j for j in range(p["T"]) if j > p["i"]]),
    ("masks", "visible-keys"): lambda p: p["i"] + 1,
    ("masks", "causal-matrix"): lambda p: window_mask(p["n"], p["w"]),
    ("masks", "causal-nonzero"): lambda p: sum(range(1, p["T"] + 1)),
    ("masks", "masked-row"): lambda p: masked_softmax_row(p["S"][1], 2),
    ("masks", "masked-row-drawn"): lambda p: softmax([p["a"], p["b"]]) + [0.0],
    ("masks", "two-token-weights"): lambda p: two_token_weights(p["x0"], p["x1"]),
    ("masks", "two-token-output"): lambda p: (
        np.array(two_token_weights(p["x0"], p["x1"])[1]) @ np.array([p["v0"], p["v1"]])
    ).tolist(),
    ("masks", "padding-matrix"): lambda p: [[1.0 if j < n else 0.0 for j in range(p["m"])] for n in p["lengths"]],
    ("masks", "mask-convention"): POOL,
    ("masks", "minus-infinity"): POOL,
    ("masks", "mask-after-softmax"): POOL,
    ("masks", "teacher-forcing"): POOL,
    ("positions", "permuted-output"): lambda p: p["y"][p["perm"][p["r"]]],
    ("positions", "gap-with-positions"): lambda p: gap(p["x"], [1, 0], np.eye(2), np.eye(2), np.eye(2), positions=True),
    ("positions", "rope-targets"): POOL,
    ("positions", "rope-angle"): lambda p: p["p"] / 10000 ** (2 * p["i"] / p["d"]),
    ("positions", "rope-relative"): POOL,
    ("positions", "sinusoid-even"): lambda p: math.sin(p["p"] / 10000 ** (2 * p["i"] / p["d"])),
    ("positions", "sinusoid-odd"): lambda p: math.cos(p["p"] / 10000 ** (2 * p["i"] / p["d"])),
    ("positions", "bert-gpt"): POOL,
    ("positions", "gqa-head"): lambda p: p["h"] // p["group"],
    ("positions", "online-rescale"): lambda p: math.exp(-p["rise"]),
    ("positions", "cross-bindings"): POOL,
    ("positions", "kv-cache-valid"): POOL,
    ("positions", "weights-as-explanations"): POOL,
    ("positions", "causal-breaks-equivariance"): POOL,
    ("cost", "scores-multiply-adds"): lambda p: p["T"] * p["T"] * p["d_k"],
    ("cost", "projections-multiply-adds"): lambda p: 3 * p["T"] * p["d"] * p["d"],
    ("cost", "where-the-costs-cross"): lambda p: next(
        t for t in range(1, 10 * p["d"]) if 2 * t * t * p["d"] >= 4 * t * p["d"] ** 2
    ),
    ("cost", "kv-cache-bytes-per-token"): lambda p: p["layers"] * p["h_kv"] * p["d_head"] * p["bytes"] * 2,
    ("cost", "gqa-saves-cache"): lambda p: p["group"],
    ("cost", "multi-query-is-gqa"): POOL,
    ("cost", "online-softmax-saves"): POOL,
    ("cost", "fused-qkv"): POOL,
    ("cost", "residual-stream"): POOL,
    ("cost", "linear-attention-crossover"): lambda p: next(
        t for t in range(1, 10 * p["d"]) if 2 * t * t * p["d"] >= 2 * t * p["d"] ** 2
    ),
    ("cost", "linear-attention-saving"): lambda p: (2 * p["T"] ** 2 * p["d"]) // (2 * p["T"] * p["d"] ** 2),
    ("cost", "linear-attention-state-size"): lambda p: len(np.zeros((p["d_k"], p["d_v"])).ravel()) + p["d_k"],
    ("cost", "linear-attention-memory-crossing"): lambda p: next(
        t for t in range(1, 10 * p["d"]) if np.zeros((2, t, p["d"])).size > np.zeros((p["d"] + 1, p["d"])).size
    ),  # keys and values (2, T, d) against the state and normaliser (d + 1 rows of d)
    ("cost", "linear-attention-reorder"): POOL,
    ("decode", "kv-cache-gib"): lambda p: kv_bytes(p["layers"], p["h_kv"], p["d_head"], 2, 128 * 1024) * p["B"] / 2**30,
    ("decode", "mla-cache-ratio"): lambda p: (2 * p["h"] * p["d_head"]) / (p["d_c"] + p["d_r"]),
    ("decode", "mha-gqa-mla"): POOL,
    ("decode", "fp8-sequences"): lambda p: int(
        p["M"] * 2**30 // kv_bytes(p["layers"], p["h_kv"], p["d_head"], 1, 128 * 1024)
    ),
    ("decode", "decode-step-time"): lambda p: (2 * p["P"] * 1e9) / (p["bw"] * 1e12) * 1e3,
    ("decode", "decode-balance-batch"): lambda p: (
        (p["F"] * 1e12 / 2) / (p["bw"] * 1e12 / 2)
    ),  # flops per weight per sequence / bytes per weight
    ("decode", "decode-memory-bound"): POOL,
    ("decode", "sink-window-keys"): lambda p: len(set(range(p["k"])) | set(range(p["i"] - p["w"] + 1, p["i"] + 1))),
    ("decode", "sink-eviction"): POOL,
    # The chunk's rows of the causal mask over every token so far, counted.
    ("decode", "chunk-mask-pairs"): lambda p: int(
        np.tril(np.ones((p["t"] + p["n"],) * 2, dtype=bool))[-p["n"] :].sum()
    ),
    ("decode", "chunk-rope-angle"): lambda p: int(
        np.arange(p["t"] + p["n"])[-1]
    ),  # the last position of all, pair 0's angle
    ("decode", "streaming-window-start"): lambda p: min(j for j in range(p["k"], p["T"]) if j > p["T"] - 1 - p["w"]),
    ("decode", "verify-drafts-mask"): POOL,
    # The absorbed query q_h W_UK_hᵀ: its width is the latent's, read off the shapes it multiplies.
    ("decode", "mla-absorbed-width"): lambda p: (np.ones((1, p["d_head"])) @ np.ones((p["d_c"], p["d_head"])).T).shape[
        -1
    ],
    ("decode", "mla-rope-decoupled"): POOL,
    # The scale of one dot product of the joined query [q_C, q_R] with the joined key: √ of its length.
    ("decode", "mla-rope-score-scale"): lambda p: float(
        np.sqrt(np.concatenate([np.zeros(p["d_head"]), np.zeros(p["d_r"])]).size)
    ),
    # One head's work on one cached token without absorption, counted as a product's multiply-adds
    # (m, k) @ (k, n) -> m * k * n: the key rebuilt from the latent, then the content and RoPE dot products.
    ("decode", "mla-rope-unabsorbed-work"): lambda p: sum(
        m * k * n
        for (m, k), (_, n) in (
            ((1, p["d_c"]), (p["d_c"], p["d_head"])),
            ((1, p["d_head"]), (p["d_head"], 1)),
            ((1, p["d_r"]), (p["d_r"], 1)),
        )
    ),
    ("decode", "mla-cache-gib"): lambda p: (
        p["layers"] * (p["d_c"] + p["d_r"]) * np.dtype(np.float16).itemsize * 100_000 * p["B"] / 2**30
    ),
    # The k of np.tril whose (n, t + n) mask is the bottom n rows of the square causal mask, searched for.
    ("decode", "bottom-right-tril-offset"): lambda p: next(
        k
        for k in range(-p["n"], p["t"] + p["n"] + 1)
        if np.array_equal(
            np.tril(np.ones((p["n"], p["t"] + p["n"]), dtype=bool), k=k),
            np.tril(np.ones((p["t"] + p["n"],) * 2, dtype=bool))[-p["n"] :],
        )
    ),
    ("decode", "decode-cache-read-time"): lambda p: (
        kv_bytes(p["layers"], p["h_kv"], 128, 2, 128 * 1024) * p["B"] / (p["bw"] * 1e12) * 1e3
    ),
    ("numerics", "finite-fill-blind-row"): lambda p: finite_fill_blind_row(p["v"]),
    ("numerics", "minus-1e9"): POOL,
    ("numerics", "float16-fill"): POOL,
    ("numerics", "half-precision-blind-row"): POOL,
    ("numerics", "torch-sdpa"): POOL,
    ("numerics", "one-key-closer"): lambda p: softmax([float(p["g"])] + [0.0] * (p["n"] - 1))[0],
    ("numerics", "identical-keys"): lambda p: softmax([float(np.dot(p["q"], p["k"]))] * p["n"])[0],
    ("scoring", "additive-score"): lambda p: float(  # row vectors: q W_q, as docs/contract.md
        np.dot(p["w"], np.tanh(np.array(p["q"]) @ np.array(p["Wq"]) + np.array(p["k"]) @ np.array(p["Wk"])))
    ),
    ("scoring", "cosine-score"): lambda p: float(
        np.dot(p["q"], p["k"]) / np.linalg.norm(p["q"]) / np.linalg.norm(p["k"])
    ),
    ("scoring", "qk-norm-cap"): lambda p: most_peaked_qk_norm_row(p["d"], p["n"]),
    ("scoring", "qk-norm-place"): POOL,
    ("scoring", "softcap"): lambda p: p["c"] * math.tanh(p["s"] / p["c"]),
    ("scoring", "norm-control"): POOL,
    ("scoring", "hard-vs-soft"): POOL,
    ("scoring", "separate-keys-values"): POOL,
    ("scoring", "soft-alignment"): POOL,
    ("ideas", "context-free-embeddings"): POOL,
    ("ideas", "bottleneck-numbers"): lambda p: np.zeros((p["L"], p["d"])).size,
    ("ideas", "bottleneck"): POOL,
    ("ideas", "rnn-distance"): lambda p: rnn_updates(p["i"], p["j"]),
    ("ideas", "next-token-row"): lambda p: max(t for t in range(p["T"])),
    ("ideas", "early-fusion"): POOL,
    ("ideas", "heads-specialise"): POOL,
    ("ideas", "heatmap-reading"): POOL,
    ("ideas", "hybrid-layers"): lambda p: sum(1 for layer in range(p["N"]) if layer % p["r"] == p["r"] - 1),
    ("ideas", "hybrid-why"): POOL,
    ("ideas", "retrieval-analogy"): POOL,
    ("anatomy", "qkv-roles"): POOL,
    ("anatomy", "parameters-or-activations"): POOL,
    ("anatomy", "projection-no-position"): POOL,
    ("anatomy", "d-head-is-d-k"): lambda p: np.zeros((p["D"],)).reshape(p["h"], -1).shape[1],
    ("anatomy", "wide-heads-wq"): lambda p: (p["D"], p["h"] * p["hd"]),  # X (T, D) @ W_Q gives (T, h·hd)
    ("anatomy", "wide-heads-wo"): lambda p: (p["h"] * p["hd"], p["D"]),
    ("anatomy", "fused-qkv-width"): lambda p: sum(heads * p["d_head"] for heads in (p["h_q"], p["h_kv"], p["h_kv"])),
    ("anatomy", "transformer-block"): POOL,
    ("anatomy", "masks-fixed"): POOL,
    ("long-context", "alibi-slope"): lambda p: alibi_slopes(p["n"])[p["h"] - 1],
    ("long-context", "alibi-bias"): lambda p: -alibi_slopes(p["n"])[p["h"] - 1] * abs(p["i"] - p["j"]),
    ("long-context", "position-interpolation"): lambda p: p["p"] * (1 / p["s"]),
    ("long-context", "ntk-base"): lambda p: ntk_base(10000.0, p["s"], p["d"]) / 10000.0,
    ("long-context", "yarn-temperature"): lambda p: (1 + math.log(p["s"]) / 10) * (1 + math.log(p["s"]) / 10),
    ("long-context", "rope-scaling-kinds"): POOL,
    ("long-context", "rope-half-split-partner"): lambda p: half_split_partner(p["d"], p["j"]),
    ("long-context", "rope-half-split-frequency"): lambda p: half_split_pair(p["d"], p["f"]),
    ("long-context", "flash-logsumexp"): lambda p: float(np.logaddexp.reduce(p["s"])),
    ("long-context", "flash-recompute-weight"): lambda p: math.exp(p["s"][p["j"]] - p["L"]),
    ("long-context", "flash-stored-numbers"): lambda p: p["T"],
    ("long-context", "flash-recompute-why"): POOL,
    ("induction", "first-half-loss"): lambda p: float(-np.sum(np.full(p["V"], 1 / p["V"]) * np.log(1 / p["V"]))),
    ("induction", "whole-sequence-loss"): lambda p: float(np.mean(lab_losses_at_best(p["L"], p["V"]))),
    ("induction", "repeat-loss-confidence"): lambda p: float(-np.mean(np.log(np.full(4, p["p"])))),
    ("induction", "induction-target-key"): lambda p: induction_target(repeated_block(p["L"], 2), p["p"]),
    ("induction", "induction-queries-counted"): lambda p: sum(
        1 for i, token in enumerate(repeated_block(p["L"], p["k"])) if token in repeated_block(p["L"], p["k"])[:i]
    ),
    ("induction", "previous-token-uniform"): lambda p: mean_previous_weight(uniform_causal_weights(p["T"])),
    ("induction", "previous-token-query-zero"): lambda p: mean_previous_weight(previous_then_self(p["T"], p["w"])),
    ("induction", "targets-counted"): lambda p: int(
        np.broadcast_to(np.arange(2 * p["L"] - 1) >= p["L"], (p["B"], 2 * p["L"] - 1)).sum()
    ),
    ("induction", "loss-gradient-entry"): lambda p: softmax_cross_entropy_grad(p["z"], 0)[0] / p["N"],
    ("induction", "layer-norm-variance"): lambda p: float(np.std(p["x"])),  # numpy's default: ddof=0, torch's LayerNorm
    ("induction", "one-layer-cannot"): POOL,
    ("induction", "k-composition"): POOL,
    ("induction", "phase-change"): POOL,
    ("induction", "varying-half-length"): POOL,
}
"""A pool question's items are literals the author wrote: their truth is checked item by item in
``POOL_FACTS`` below, where a fact can be computed, and by reading the rest."""


def causal_gap():
    """‖f(P X) − P f(X)‖ for causal self-attention (W = I) on random tokens and a reversal."""
    x = np.random.default_rng(0).normal(size=(4, 3))

    def attend(tokens):
        scores = tokens @ tokens.T / math.sqrt(3)
        scores[np.triu_indices(4, 1)] = -np.inf
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        return (weights / weights.sum(axis=1, keepdims=True)) @ tokens

    perm = [3, 2, 1, 0]
    return float(np.linalg.norm(attend(x[perm]) - attend(x)[perm]))


def fused_equals_separate(bias=False):
    """One (d, 3d) weight (and 3d bias) split in three gives what three (d, d) weights (and biases) give."""
    rng = np.random.default_rng(1)
    x, fused, b = rng.normal(size=(5, 4)), rng.normal(size=(4, 12)), rng.normal(size=12) * bias
    q, k, v = np.split(x @ fused + b, 3, axis=-1)
    return all(
        np.allclose(part, x @ fused[:, 4 * i : 4 * (i + 1)] + b[4 * i : 4 * (i + 1)])
        for i, part in enumerate((q, k, v))
    )


CASES = [(quiz_id, q.id) for quiz_id, quiz in QUIZZES.items() for q in quiz.questions]


def test_the_bank_is_big_enough():
    questions = [q for quiz in QUIZZES.values() for q in quiz.questions]
    assert len(QUIZZES) >= 4 and len(questions) >= 40
    assert 2 * sum(bool(q.params) for q in questions) >= len(questions), "at least half the questions are parameterized"


def test_every_question_has_an_independent_check():
    assert set(CASES) == set(EXPECTED)


@pytest.mark.parametrize("quiz_id, question_id", CASES, ids=[f"{a}/{b}" for a, b in CASES])
def test_answer_recomputed_independently(quiz_id, question_id):
    quiz = QUIZZES[quiz_id]
    question = quiz.question(question_id)
    if question.pool is not None:
        assert EXPECTED[(quiz_id, question_id)] == POOL
        return
    factory = reference_factory_for(lambda: COURSE)
    variants = [(s, drawn_values(quiz, question, s)) for s in STUDENTS] + [
        (who, values) for who, values in practice_variants(quiz, question)
    ]
    for who, values in variants:
        sitting = "practice" if who.startswith("practice") else "exam"
        keyed = keyed_question(quiz, question, who, factory, sitting) if sitting == "exam" else None
        if keyed is None:
            from attnlab.quiz.variant import keyed_for_values

            keyed = keyed_for_values(quiz, question, values, who, factory, "practice")
        expected = EXPECTED[(quiz_id, question_id)](values)
        if question.type in ("number", "vector", "matrix"):
            assert np.allclose(keyed.key, expected, atol=1e-9), f"{who}: key {keyed.key} != {expected}"
        else:
            assert keyed.key == (tuple(expected) if question.type == "shape" else expected), (
                f"{who}: key {keyed.key} != {expected}"
            )


def causal_gap_of_reversal():
    return causal_gap()


POOL_FACTS = {
    # (quiz, question, sitting, index): what the item's answer must be, computed here.
    ("positions", "causal-breaks-equivariance", "exam", 0): lambda: causal_gap() < 1e-9,
    ("cost", "fused-qkv", "exam", 0): lambda: fused_equals_separate(bias=True),
    ("cost", "fused-qkv", "exam", 1): lambda: fused_equals_separate(bias=True),
    ("cost", "fused-qkv", "practice", 0): lambda: not fused_equals_separate(bias=True),
    ("cost", "fused-qkv", "practice", 1): lambda: fused_equals_separate(bias=False),
    ("masks", "mask-after-softmax", "exam", 1): lambda: (
        "a" if np.allclose(np.array([0.5, 0.3, 0.2]) * [1, 1, 0], [0.5, 0.3, 0]) else "b"
    ),
    ("masks", "minus-infinity", "exam", 1): lambda: "b" if abs(1 / (E**2 + 1 + E) - 0.09) < 0.005 else "a",
    ("masks", "minus-infinity", "practice", 0): lambda: "a" if softmax([1, -np.inf, 2])[1] == 0 else "b",
    ("decode", "mha-gqa-mla", "exam", 0): lambda: "abc"[int(np.argmin([2 * 32 * 128, 2 * 8 * 128, 512 + 64]))],
    ("decode", "mha-gqa-mla", "exam", 1): lambda: "abc"[int(np.argmax([2 * 4 * 128, 2 * 1 * 128, 512 + 64]))],
    ("numerics", "float16-fill", "exam", 0): lambda: "a" if float16_overflows(lambda: np.float16(-1e9)) else "c",
    ("numerics", "float16-fill", "practice", 0): lambda: (
        "b" if np.isfinite(np.finfo(np.float16).min) and float16_overflows(lambda: np.float16(-1e5)) else "c"
    ),
    ("numerics", "float16-fill", "exam", 1): lambda: "b" if torch_masked_fill_refuses(-1e9) else "a",
    ("numerics", "float16-fill", "practice", 1): lambda: "a" if torch_added_bias(-1e9) == -np.inf else "b",
    ("numerics", "torch-sdpa", "exam", 0): lambda: "a" if torch_sdpa_needs_enable_gqa() else "b",
    ("numerics", "half-precision-blind-row", "exam", 1): lambda: (
        "b" if float16_overflows(lambda: np.float16(np.finfo(np.float16).min) - np.float16(64)) else "a"
    ),
    ("numerics", "half-precision-blind-row", "practice", 1): lambda: (
        "b" if np.allclose(float16_softmax([np.finfo(np.float16).min] * 5), 0.2, atol=1e-3) else "a"
    ),
    ("numerics", "minus-1e9", "practice", 0): lambda: (
        float(np.float32(softmax_any([np.float32(0.3), np.float32(-1e9)])[1])) == 0.0
    ),
    ("numerics", "minus-1e9", "exam", 1): lambda: np.allclose(softmax([-1e9] * 4), 0.25),
    ("cost", "linear-attention-reorder", "exam", 1): lambda: "a" if regrouped_linear_attention_agrees() else "b",
    ("cost", "linear-attention-reorder", "practice", 0): lambda: (
        "b" if regrouped_linear_attention_shape(7, 3) == (3, 3) else "a"
    ),
    ("scoring", "hard-vs-soft", "practice", 0): lambda: (
        "a" if [10, 20, 30][int(np.argmax([1.0, 3.0, 2.0]))] == 20 else "c"
    ),
}


def elu_plus_one(x):
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def regrouped_linear_attention_agrees():
    """Non-causal linear attention (phi = elu + 1), the T x T weights first or the d x d product first."""
    rng = np.random.default_rng(2)
    q, k, v = elu_plus_one(rng.normal(size=(6, 3))), elu_plus_one(rng.normal(size=(6, 3))), rng.normal(size=(6, 3))
    normaliser = q @ k.sum(axis=0)
    return np.allclose((q @ k.T) @ v / normaliser[:, None], q @ (k.T @ v) / normaliser[:, None])


def regrouped_linear_attention_shape(t, d):
    return (np.ones((t, d)).T @ np.ones((t, d))).shape


def torch_masked_fill_refuses(value):
    torch = pytest.importorskip("torch")
    try:
        torch.zeros(2, dtype=torch.float16).masked_fill(torch.tensor([True, False]), value)
    except RuntimeError:
        return True
    return False


def torch_sdpa_needs_enable_gqa():
    """8 query heads against 2 key/value heads: refused without enable_gqa, and with it each key/value
    head serves 4 consecutive query heads."""
    torch = pytest.importorskip("torch")
    functional = torch.nn.functional
    q, k, v = torch.randn(1, 8, 5, 4), torch.randn(1, 2, 5, 4), torch.randn(1, 2, 5, 4)
    try:
        functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return False
    except RuntimeError:
        pass
    grouped = functional.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    repeated = functional.scaled_dot_product_attention(
        q, k.repeat_interleave(4, 1), v.repeat_interleave(4, 1), is_causal=True
    )
    return torch.allclose(grouped, repeated)


def torch_added_bias(value):
    torch = pytest.importorskip("torch")
    added = torch.tensor([0.5], dtype=torch.float16) + value
    assert added.dtype == torch.float16
    return float(added[0])


def float16_overflows(compute):
    with np.errstate(over="ignore"):
        return compute() == -np.inf


def float16_softmax(row):
    row = np.array(row, dtype=np.float16)
    w = np.exp(row - row.max())
    return (w / w.sum()).astype(float)


def softmax_any(row):
    row = np.array(row)
    w = np.exp(row - row.max())
    return w / w.sum()


@pytest.mark.parametrize("fact", sorted(POOL_FACTS), ids=lambda f: "/".join(map(str, f)))
def test_pool_items_that_can_be_computed_are_right(fact):
    quiz_id, question_id, sitting, index = fact
    item = QUIZZES[quiz_id].question(question_id).items(sitting)[index]
    assert item.answer == POOL_FACTS[fact](), item.prompt


def test_every_pool_keeps_exam_and_practice_apart_and_answers_among_its_options():
    for quiz in QUIZZES.values():
        for question in (q for q in quiz.questions if q.pool):
            exam = {" ".join(i.prompt.split()) for i in question.pool.exam}
            practice = {" ".join(i.prompt.split()) for i in question.pool.practice}
            assert not exam & practice and len(exam) >= 2 and len(practice) >= 2, question.id
            for item in question.pool.exam + question.pool.practice:
                if question.type in ("single", "multiple"):
                    letters = "abcdefghij"[: len(item.options)]
                    assert all(
                        x in letters for x in (item.answer if isinstance(item.answer, list) else [item.answer])
                    ), item.prompt


def test_the_lessons_wrong_numbers_are_not_the_key():
    """A page prints weights that are not the softmax of its scores; the key is the softmax, and the
    page's numbers are a named mistake."""
    quiz = QUIZZES["softmax"]
    for student in STUDENTS:
        keyed = keyed_question(quiz, quiz.question("the-cat-sat"), student, reference_factory_for(lambda: COURSE))
        printed = [float(x) for x in keyed.asked.prompt.split("weights as (")[1].split(")")[0].split(", ")]
        assert not keyed.asked.kind.matches(printed, keyed.key, keyed.tolerance, keyed.slack)
        assert [m.name for m in keyed.mistakes] == ["the page's numbers"]
    # The lesson's own example: scores (0.5, 2.1, 1.3), printed (0.08, 0.64, 0.28); the softmax is (0.12, 0.61, 0.27).
    lesson = keyed_for_lesson()
    assert np.allclose(lesson, [0.12, 0.61, 0.27], atol=0.005) and not np.allclose(
        lesson, [0.08, 0.64, 0.28], atol=0.005
    )


def keyed_for_lesson():
    from attnlab.quiz.variant import keyed_for_values

    quiz = QUIZZES["softmax"]
    values = {"a": 0.5, "b": 2.1, "c": 1.3, "printed": (0.13, 0.54, 0.33)}
    return keyed_for_values(
        quiz, quiz.question("the-cat-sat"), values, "the lesson", reference_factory_for(lambda: COURSE)
    ).key


def test_students_get_different_variants():
    students = [f"student-{i}" for i in range(8)]
    same_for_alice_and_bob = []
    for quiz in QUIZZES.values():
        for question in (q for q in quiz.questions if q.params or q.pool):
            drawn = [drawn_values(quiz, question, s) for s in students]
            assert len({repr(d) for d in drawn}) >= 2, f"{quiz.id}/{question.id}: every student gets the same variant"
            pair = [drawn_values(quiz, question, s) for s in ("alice", "bob")]
            if pair[0] == pair[1] and question.params:  # a pool of two exam items meets twice in two
                same_for_alice_and_bob.append(question.id)
    # Small choice spaces collide now and then; most questions must still differ between two students.
    assert len(same_for_alice_and_bob) <= 6, same_for_alice_and_bob


def test_every_gqa_head_variant_asks_for_a_head_that_exists():
    quiz = QUIZZES["positions"]
    question = quiz.question("gqa-head")
    drawn = [drawn_values(quiz, question, f"s{i}") for i in range(300)]
    assert all(0 <= p["h"] < p["h_q"] for p in drawn)
    assert {p["h"] for p in drawn} >= set(range(16)) - {p for p in range(16) if all(p >= q["h_q"] for q in drawn)}, (
        "every head is asked for somewhere"
    )


def test_the_gqa_interleaved_mistake_is_the_tiled_kv_heads():
    """The "interleaved" mistake is what np.tile of the key/value heads does (the catalogue's
    h % h_kv), not h % group: named in every variant where it differs from the key, and always a
    key/value head that exists."""
    quiz = QUIZZES["positions"]
    question = quiz.question("gqa-head")
    factory = reference_factory_for(lambda: COURSE)
    named = 0
    for i in range(300):
        keyed = keyed_question(quiz, question, f"s{i}", factory)
        p = drawn_values(quiz, question, f"s{i}")
        tiled = np.tile(np.arange(p["h_kv"]), p["group"])  # the kv head each query head reads under np.tile
        grouped = np.repeat(np.arange(p["h_kv"]), p["group"])
        assert keyed.key == grouped[p["h"]]
        mistakes = {m.name: m.key for m in keyed.mistakes}
        if tiled[p["h"]] != grouped[p["h"]]:
            assert mistakes == {"interleaved, not grouped": tiled[p["h"]]} and 0 <= tiled[p["h"]] < p["h_kv"]
            named += 1
        else:
            assert mistakes == {}
    assert named > 100


def test_at_least_half_the_bank_names_common_mistakes():
    questions = [q for quiz in QUIZZES.values() for q in quiz.questions]
    assert sum(bool(q.mistakes) for q in questions) * 2 >= len(questions)


@pytest.mark.parametrize(
    "question_id", ["weights-shape", "output-shape", "cross-scores-shape", "split-heads-shape", "kv-cache-shape"]
)
def test_shape_questions_never_let_a_named_mistake_pass(question_id):
    """Where two sizes coincide a transposed shape equals the key; the questions' where: rules that out."""
    quiz = QUIZZES["shapes"]
    question = quiz.question(question_id)
    assert question.where
    factory = reference_factory_for(lambda: COURSE)
    for sitting, students in (("exam", [f"s{i}" for i in range(300)]), ("practice", [f"p{i}" for i in range(40)])):
        for student in students:
            keyed = keyed_question(quiz, question, student, factory, sitting)
            assert [m.name for m in keyed.mistakes] == [m.name for m in question.mistakes], (
                f"{sitting} {student}: {keyed.asked.prompt}"
            )


def test_the_scoring_questions_use_the_exercises_definitions():
    """QK-norm is the exercise's RMS norm with gains (not unit length), and additive scores are
    row-major (q W_q + k W_k): each key is what the reference function gives on the variant."""
    from attnlab.quiz.variant import keyed_for_values

    quiz = QUIZZES["scoring"]
    reference = reference_factory_for(lambda: COURSE)()
    for question_id in ("qk-norm-cap", "additive-score"):
        question = quiz.question(question_id)
        for who, values in [(s, drawn_values(quiz, question, s)) for s in STUDENTS] + practice_variants(quiz, question):
            key = keyed_for_values(quiz, question, values, who, reference_factory_for(lambda: COURSE)).key
            if question_id == "qk-norm-cap":
                d, n = values["d"], values["n"]
                q = np.random.default_rng(n).normal(size=(1, d))
                keys = np.concatenate([2 * q] + [-0.3 * q] * (n - 1))
                scores = reference.qk_norm_scores(q, keys, np.ones(d), np.ones(d), eps=1e-12)
                expected = softmax(scores[0])[0]
            else:
                scores = reference.additive_scores(
                    np.array([values["q"]]),
                    np.array([values["k"]]),
                    np.array(values["Wq"]),
                    np.array(values["Wk"]),
                    np.array(values["w"]),
                )
                expected = float(scores[0, 0])
            assert key == pytest.approx(expected, abs=1e-9), (question_id, who)
    texts = " ".join(
        item.prompt + " ".join(item.options or [])
        for question_id in ("qk-norm-cap", "norm-control", "qk-norm-place")
        for item in (
            quiz.question(question_id).pool.exam + quiz.question(question_id).pool.practice
            if quiz.question(question_id).pool
            else [quiz.question(question_id)]
        )
    )
    assert "unit length" not in texts and "length 1" not in texts and "RMS" in texts
