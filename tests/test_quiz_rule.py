"""One rule for right and wrong: a practice copy and the instructor give the same verdict on every
answer, and name the same common mistake.

The rule, as docs/quizzes.md states it: a number (each element of a vector or matrix) is right
when it rounds to a point of the question's grid that some value within the question's slack of
the key rounds to (with no slack: the key's own point), the grid being twice the tolerance wide
(in decimal on the numbers as written, halves away from zero); anything else is right when it
equals the key.
"""

import json
import math
from fractions import Fraction

import pytest
from conftest import COURSE, REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnlab.quiz import student_copy
from attnlab.quiz.items import NOT_CHECKED_IN_PRACTICE, open_quiz, reference_factory_for
from attnlab.quiz.kinds import KINDS, LETTERS
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.variant import keyed_question

QUIZ_DIR = REPO / "quizzes"
FACTORY = reference_factory_for(lambda: COURSE)
CHEAP = {"n": 2**4, "r": 1, "p": 1}
"""The hash's cost changes nothing of what is compared; a cheap one lets hypothesis try many answers."""
QUIZZES = {path.stem: load_quiz(path) for path in sorted(QUIZ_DIR.glob("*.yaml"))}
QUESTIONS = [(quiz_id, question.id) for quiz_id, quiz in QUIZZES.items() for question in quiz.questions]


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    folder = tmp_path_factory.mktemp("copies")
    opened = {}
    for quiz_id, quiz in QUIZZES.items():
        path = folder / f"{quiz_id}.json"
        path.write_text(json.dumps(student_copy.build(quiz, "practice", FACTORY, cost=CHEAP)))
        opened[quiz_id] = (open_quiz(path, FACTORY), open_quiz(QUIZ_DIR / f"{quiz_id}.yaml", FACTORY))
    return opened


def grid(x, tolerance):
    """The rule, written here apart from the engine's own: exact fractions of the numbers as written."""
    ratio = abs(Fraction(repr(float(x))) / Fraction(repr(2 * tolerance)))
    cells = math.floor(ratio + Fraction(1, 2))
    return -cells if x < 0 else cells


def within(g, k, tolerance, slack):
    """Whether ``g``'s grid point is one that a value within ``slack`` of ``k`` rounds to."""
    low, high = (Fraction(repr(float(k))) + d for d in (-Fraction(repr(float(slack))), Fraction(repr(float(slack)))))
    return (
        grid(float(low), tolerance) <= grid(g, tolerance) <= grid(float(high), tolerance)
        if slack
        else grid(g, tolerance) == grid(k, tolerance)
    )


def expected_verdict(kind, given, key, tolerance, slack=0.0):
    """The rule; ``slack`` one number, or one per element of the key."""
    if kind in ("number", "vector", "matrix"):
        flat = lambda v: [x for row in v for x in row] if kind == "matrix" else (v if isinstance(v, list) else [v])  # noqa: E731
        same_shape = (
            (len(given), len(given[0])) == (len(key), len(key[0]))
            if kind == "matrix"
            else len(flat(given)) == len(flat(key))
        )
        slacks = list(slack) if isinstance(slack, (list, tuple)) else [slack] * len(flat(key))
        return same_shape and all(within(g, k, tolerance, e) for g, k, e in zip(flat(given), flat(key), slacks))
    return given == key


# Offsets in tolerances: inside, at, and just past the tolerance and the grid's edges; and out to
# the edges of the grid ten times wider, where an answer stops being close.
OFFSETS = st.one_of(
    st.sampled_from([0.0, 0.5, -0.5, 0.99, -0.99, 1.0, -1.0, 1.01, -1.01, 1.5, -1.5, 2.0, -2.0, 2.01, -2.01, 3.0]),
    st.floats(-3.5, 3.5),
    st.sampled_from([4.0, -6.0, 9.5, -10.0, 10.01, 12.0, -19.99, 20.0]),
    st.floats(-25, 25),
)


@st.composite
def answers_around(draw, kind, key, tolerance, options, slack=0.0):
    if kind == "number":
        return (
            key
            + draw(OFFSETS) * tolerance
            + draw(st.sampled_from([0.0, 0.0, 1.0, -1.0])) * max(slack if isinstance(slack, tuple) else [slack])
        )
    if kind == "vector":
        length = len(key) + draw(st.sampled_from([0, 0, 0, 0, 1, -1]))
        return [(key[i] if i < len(key) else 0.0) + draw(OFFSETS) * tolerance for i in range(max(length, 1))]
    if kind == "matrix":
        return [[x + draw(OFFSETS) * tolerance for x in row] for row in key]
    if kind == "integer":
        return key + draw(st.integers(-2, 2))
    if kind == "shape":
        return tuple(x + draw(st.sampled_from([0, 0, 0, 1, -1])) for x in key)
    if kind == "single":
        return draw(st.sampled_from(LETTERS[:options]))
    if kind == "multiple":
        return sorted(draw(st.sets(st.sampled_from(LETTERS[:options]), min_size=1)))
    return draw(st.booleans())


@settings(
    max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    question=st.sampled_from(QUESTIONS),
    student=st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12),
    data=st.data(),
)
def test_practice_and_instructor_give_the_same_verdict(copies, question, student, data):
    quiz_id, question_id = question
    practice_copy, instructor = copies[quiz_id]
    quiz = QUIZZES[quiz_id]
    keyed = keyed_question(quiz, quiz.question(question_id), student, FACTORY, "practice")
    index = [q.id for q in quiz.questions].index(question_id)
    copy_item = practice_copy.items_for(student, "practice")[index]
    instructor_item = instructor.items_for(student, "practice")[index]
    assert copy_item.asked.prompt == keyed.asked.prompt
    if not quiz.question(question_id).checked_in_practice:  # the exam's own question: neither source checks it
        answer = keyed.asked.read(keyed.asked.kind.to_text(keyed.key))
        assert copy_item.check(answer) == instructor_item.check(answer) == (None, NOT_CHECKED_IN_PRACTICE, None, False)
        return
    # Around the key, or around one of the variant's common mistakes.
    centre = data.draw(st.sampled_from([keyed.key, keyed.key, *[m.key for m in keyed.mistakes]]))
    answer = data.draw(answers_around(keyed.asked.type, centre, keyed.tolerance, len(keyed.asked.options), keyed.slack))
    verdict = expected_verdict(keyed.asked.type, answer, keyed.key, keyed.tolerance, keyed.slack)
    mistake = (
        None
        if verdict
        else next(
            (m.name for m in keyed.mistakes if expected_verdict(keyed.asked.type, answer, m.key, keyed.tolerance)), None
        )
    )
    # Close (practice says it of a single number only): right on the grid ten times wider.
    close = (
        keyed.asked.type == "number"
        and not verdict
        and mistake is None
        and expected_verdict("number", answer, keyed.key, 10 * keyed.tolerance, keyed.slack)
    )
    from_copy, from_instructor = copy_item.check(answer), instructor_item.check(answer)
    assert (from_copy.right, from_copy.mistake, from_copy.close) == (verdict, mistake, close)
    assert (from_instructor.right, from_instructor.mistake, from_instructor.close) == (verdict, mistake, close)
    assert from_copy.text == from_instructor.text
    # Through the text a student types, too (the full-precision form the answers file holds).
    if keyed.asked.type in ("number", "vector", "matrix"):
        typed = keyed.asked.read(keyed.asked.kind.to_text(answer))
        assert copy_item.check(typed)[0] is instructor_item.check(typed)[0]


def test_the_issue_example_is_wrong_in_both_places(tmp_path):
    path = tmp_path / "pair.yaml"
    path.write_text(
        "id: pair\ntitle: t\nquestions:\n  - id: weights\n    type: vector\n    prompt: The two weights, to two decimals?\n"
        "    answer: [0.4195, 0.2416]\n    tolerance: 0.005\n    practice: check\n    hint: h\n    explanation: e\n    concepts: [c]\n"
    )
    copy = tmp_path / "pair.json"
    copy.write_text(json.dumps(student_copy.build(load_quiz(path), "practice", FACTORY, cost=CHEAP)))
    for opened in (open_quiz(path, FACTORY), open_quiz(copy, FACTORY)):
        item = opened.items_for("alice", "practice")[0]
        assert item.check(KINDS["vector"].parse("0.413, 0.233"))[0] is False  # practice once said ✓
        assert item.check(KINDS["vector"].parse("0.42, 0.24"))[0] is True
        assert item.check(KINDS["vector"].parse("0.4195, 0.2416"))[0] is True


def test_halves_round_as_people_round_them():
    kind = KINDS["number"]
    for key, right, wrong in [(0.125, 0.13, 0.12), (-0.125, -0.13, -0.12), (0.4195, 0.42, 0.41), (2.675, 2.68, 2.67)]:
        assert kind.matches(right, key, 0.005) and not kind.matches(wrong, key, 0.005), key
