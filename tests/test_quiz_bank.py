"""The question bank: its size, and every answer recomputed independently of the quiz and the reference.

Each expected value below is computed here with plain math/numpy from the
student's drawn parameters; none calls the reference solutions or reuses the
quiz's own expression.
"""

import math

import numpy as np
import pytest
from conftest import COURSE, REPO

from attnlab.quiz import params as drawing
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.items import reference_factory_for
from attnlab.quiz.variant import keyed_question, keyed_quiz

QUIZZES = {path.stem: load_quiz(path) for path in sorted((REPO / "quizzes").glob("*.yaml"))}
STUDENTS = ["alice", "bob", "s1234567"]
E = math.e


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
                    pe[p, 2 * i], pe[p, 2 * i + 1] = math.sin(p / 10000 ** (2 * i / d)), math.cos(p / 10000 ** (2 * i / d))
            tokens = tokens + pe
        q, k, v = tokens @ wq, tokens @ wk, tokens @ wv
        out = np.zeros((n, v.shape[1]))
        for i in range(n):
            out[i] = np.array(softmax([q[i] @ k[j] / math.sqrt(q.shape[1]) for j in range(n)])) @ v
        return out

    return float(np.linalg.norm(attend(x[list(perm)]) - attend(x)[list(perm)]))


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
    ("shapes", "doubling-cost"): lambda p: "b",
    ("softmax", "the-cat-sat"): lambda p: [0.1223, 0.6056, 0.2721],
    ("softmax", "softmax-row"): lambda p: softmax(p["s"]),
    ("softmax", "row-sum"): lambda p: 1.0,
    ("softmax", "which-axis"): lambda p: "b",
    ("softmax", "cross-axis-size"): lambda p: p["L_src"],
    ("softmax", "wrong-axis"): lambda p: "b",
    ("softmax", "scale-divisor"): lambda p: p["d"] ** 0.5,
    ("softmax", "dot-variance"): lambda p: p["d_k"],
    ("softmax", "temperature"): lambda p: "a",
    ("softmax", "stable-pair"): lambda p: softmax([p["a"], p["b"]])[0],
    ("softmax", "scale-saturation"): lambda p: softmax([p["d"] / math.sqrt(p["d"]), 0.0])[0],
    ("softmax", "single-query-output"): lambda p: (np.array(softmax([1, 0, 1])) @ np.array([[10, 0], [0, 10], [5, 5]])).tolist(),
    ("softmax", "single-query-weights"): lambda p: softmax([1, 0, 1]),
    ("masks", "above-diagonal"): lambda p: 0.0,
    ("masks", "visible-keys"): lambda p: p["i"] + 1,
    ("masks", "causal-matrix"): lambda p: [[1.0 if j <= i else 0.0 for j in range(p["n"])] for i in range(p["n"])],
    ("masks", "causal-nonzero"): lambda p: sum(range(1, p["T"] + 1)),
    ("masks", "masked-row"): lambda p: softmax([0, 3]) + [0.0],
    ("masks", "masked-row-drawn"): lambda p: softmax([p["a"], p["b"]]) + [0.0],
    ("masks", "two-token-weights"): lambda p: [[1.0, 0.0], softmax([0.48 / math.sqrt(2), 0.90 / math.sqrt(2)])],
    ("masks", "two-token-output"): lambda p: (np.array(softmax([0.48 / math.sqrt(2), 0.90 / math.sqrt(2)])) @ np.array([[0.54, -0.16], [0.33, 0.54]])).tolist(),
    ("masks", "padding-matrix"): lambda p: [[1.0 if j < n else 0.0 for j in range(p["m"])] for n in p["lengths"]],
    ("masks", "mask-convention"): lambda p: True,
    ("masks", "minus-infinity"): lambda p: "a",
    ("masks", "mask-after-softmax"): lambda p: "b",
    ("masks", "teacher-forcing"): lambda p: True,
    ("positions", "gap-without-positions"): lambda p: 0.0,
    ("positions", "gap-with-positions"): lambda p: gap(p["x"], [1, 0], np.eye(2), np.eye(2), np.eye(2), positions=True),
    ("positions", "rope-targets"): lambda p: ["a", "b"],
    ("positions", "rope-angle"): lambda p: p["p"] / 10000 ** (2 * p["i"] / p["d"]),
    ("positions", "rope-relative"): lambda p: True,
    ("positions", "sinusoid-even"): lambda p: math.sin(p["p"] / 10000 ** (2 * p["i"] / p["d"])),
    ("positions", "sinusoid-odd"): lambda p: math.cos(p["p"] / 10000 ** (2 * p["i"] / p["d"])),
    ("positions", "bert-gpt"): lambda p: "a",
    ("positions", "gqa-head"): lambda p: p["h"] // p["group"],
    ("positions", "online-rescale"): lambda p: math.exp(-p["rise"]),
    ("positions", "cross-bindings"): lambda p: "a",
    ("positions", "kv-cache-valid"): lambda p: True,
    ("positions", "weights-as-explanations"): lambda p: False,
    ("positions", "causal-breaks-equivariance"): lambda p: causal_gap() < 1e-9,
    ("cost", "scores-multiply-adds"): lambda p: p["T"] * p["T"] * p["d_k"],
    ("cost", "projections-multiply-adds"): lambda p: 3 * p["T"] * p["d"] * p["d"],
    ("cost", "where-the-costs-cross"): lambda p: next(t for t in range(1, 10 * p["d"]) if 2 * t * t * p["d"] >= 4 * t * p["d"] ** 2),
    ("cost", "kv-cache-bytes-per-token"): lambda p: p["layers"] * p["h_kv"] * p["d_head"] * p["bytes"] * 2,
    ("cost", "gqa-saves-cache"): lambda p: p["group"],
    ("cost", "multi-query-is-gqa"): lambda p: "a",
    ("cost", "online-softmax-saves"): lambda p: "a",
    ("cost", "fused-qkv"): lambda p: fused_equals_separate(),
    ("cost", "residual-stream"): lambda p: False,
}


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


def fused_equals_separate():
    """One (d, 3d) weight split in three gives what three (d, d) weights give."""
    rng = np.random.default_rng(1)
    x, fused = rng.normal(size=(5, 4)), rng.normal(size=(4, 12))
    q, k, v = np.split(x @ fused, 3, axis=-1)
    return all(np.allclose(part, x @ fused[:, 4 * i: 4 * (i + 1)]) for i, part in enumerate((q, k, v)))

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
    factory = reference_factory_for(lambda: COURSE)
    for student in STUDENTS:
        keyed = next(k for k in keyed_quiz(quiz, student, factory) if k.asked.id == question_id)
        values = drawing.draw({k: v.model_dump(exclude_none=True) for k, v in question.params.items()}, drawing.variant_seed(quiz.id, question_id, student), question.where)
        expected = EXPECTED[(quiz_id, question_id)](values)
        if question.type in ("number", "vector", "matrix"):
            tolerance = 1e-3 if (quiz_id, question_id) == ("softmax", "the-cat-sat") else 1e-9
            assert np.allclose(keyed.key, expected, atol=tolerance), f"{student}: key {keyed.key} != {expected}"
        else:
            assert keyed.key == (tuple(expected) if question.type == "shape" else expected), f"{student}: key {keyed.key} != {expected}"


def test_the_lessons_wrong_numbers_are_not_the_key():
    """The lesson prints (0.08, 0.64, 0.28) for "The cat sat"; the real softmax is (0.12, 0.61, 0.27)."""
    key = next(k for k in keyed_quiz(QUIZZES["softmax"], "alice", reference_factory_for(lambda: COURSE)) if k.asked.id == "the-cat-sat").key
    assert not np.allclose(key, [0.08, 0.64, 0.28], atol=0.005)
    assert np.allclose(key, [0.12, 0.61, 0.27], atol=0.005)


def test_students_get_different_variants():
    students = [f"student-{i}" for i in range(8)]
    same_for_alice_and_bob = []
    for quiz in QUIZZES.values():
        for question in (q for q in quiz.questions if q.params):
            specs = {k: v.model_dump(exclude_none=True) for k, v in question.params.items()}
            drawn = [drawing.draw(specs, drawing.variant_seed(quiz.id, question.id, s), question.where) for s in students]
            assert len({repr(d) for d in drawn}) >= 2, f"{quiz.id}/{question.id}: every student gets the same variant"
            pair = [drawing.draw(specs, drawing.variant_seed(quiz.id, question.id, s), question.where) for s in ("alice", "bob")]
            if pair[0] == pair[1]:
                same_for_alice_and_bob.append(question.id)
    # Small choice spaces collide now and then; most questions must still differ between two students.
    assert len(same_for_alice_and_bob) <= 5, same_for_alice_and_bob


def test_every_gqa_head_variant_asks_for_a_head_that_exists():
    quiz = QUIZZES["positions"]
    question = quiz.question("gqa-head")
    specs = {k: v.model_dump(exclude_none=True) for k, v in question.params.items()}
    drawn = [drawing.draw(specs, drawing.variant_seed(quiz.id, question.id, f"s{i}"), question.where) for i in range(300)]
    assert all(0 <= p["h"] < p["h_q"] for p in drawn)
    assert {p["h"] for p in drawn} >= set(range(16)) - {p for p in range(16) if all(p >= q["h_q"] for q in drawn)}, "every head is asked for somewhere"


def test_at_least_half_the_bank_names_common_mistakes():
    questions = [q for quiz in QUIZZES.values() for q in quiz.questions]
    assert sum(bool(q.mistakes) for q in questions) * 2 >= len(questions)


@pytest.mark.parametrize("question_id", ["weights-shape", "output-shape", "cross-scores-shape", "split-heads-shape", "kv-cache-shape"])
def test_shape_questions_never_let_a_named_mistake_pass(question_id):
    """Where two sizes coincide a transposed shape equals the key; the questions' where: rules that out."""
    quiz = QUIZZES["shapes"]
    question = quiz.question(question_id)
    assert question.where
    factory = reference_factory_for(lambda: COURSE)
    for sitting, students in (("exam", [f"s{i}" for i in range(300)]), ("practice", [f"p{i}" for i in range(40)])):
        for student in students:
            keyed = keyed_question(quiz, question, student, factory, sitting)
            assert [m.name for m in keyed.mistakes] == [m.name for m in question.mistakes], f"{sitting} {student}: {keyed.asked.prompt}"
