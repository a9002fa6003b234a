"""A wrong answer that is right to one decimal fewer than asked is told it is close: by the
instructor's marking for every number, vector and matrix, and in practice (from the YAML and
from the practice copy alike) for a single number, at no discount to a brute force of the copy."""

import csv
import hashlib
import json
import os
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal

import pytest
import yaml
from conftest import COURSE, REPO

from attnlab.quiz import student_copy
from attnlab.quiz.items import open_quiz, reference_factory_for
from attnlab.quiz.kinds import KINDS, close_note
from attnlab.quiz.runner import Progress, run
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.variant import keyed_question, keyed_quiz

FACTORY = reference_factory_for(lambda: COURSE)
CHEAP = {"n": 2**4, "r": 1, "p": 1}
NOTE = "close: right to the nearest 0.1, but not to the nearest 0.01 this question asks for"


def one_decimal_fewer(value, tolerance):
    """The key as someone who rounds one decimal too soon writes it (halves away from zero)."""
    if isinstance(value, list):
        return [one_decimal_fewer(x, tolerance) for x in value]
    step = Decimal(repr(20 * tolerance))
    return float((Decimal(repr(value)) / step).to_integral_value(ROUND_HALF_UP) * step)


def test_close_means_right_to_one_decimal_fewer():
    number, vector = KINDS["number"], KINDS["vector"]
    assert close_note(0.005) == NOTE
    assert close_note(0.0005) == "close: right to the nearest 0.01, but not to the nearest 0.001 this question asks for"
    assert close_note(0.5) == "close: right to the nearest 10, but not to the nearest 1 this question asks for"
    for answer, close in [(0.41, True), (0.43, True), (0.35, True), (0.4, True), (0.45, False), (0.34, False)]:
        assert not number.matches(answer, 0.4195, 0.005) and number.close(answer, 0.4195, 0.005) is close, answer
    assert vector.close([0.41, 0.23], [0.4195, 0.2416], 0.005)
    assert not vector.close([0.41, 0.25], [0.4195, 0.2416], 0.005), "every element must agree on the wider grid"
    assert not vector.close([0.4], [0.4195, 0.2416], 0.005), "and the layout must be the key's"
    assert not KINDS["integer"].close(5, 4, 0.005) and not KINDS["shape"].close((2, 3), (2, 4), 0.005)


ROOT = (
    "id: root\ntitle: t\nquestions:\n  - id: root\n    type: number\n    prompt: \"sqrt({d}) to two decimals?\"\n"
    "    params:\n      d: {choice: [2, 3, 5, 7]}\n    answer: {expr: \"sqrt(d)\"}\n"
    "    mistakes:\n      - {answer: {expr: \"d / 2\"}, name: halved, explanation: \"That is d / 2.\"}\n"
    "    hint: h\n    explanation: e\n    concepts: [c]\n"
    "  - id: pair\n    type: vector\n    prompt: \"sqrt({d}) and 1 (two decimals)?\"\n"
    "    params:\n      d: {choice: [2, 3, 5, 7]}\n    answer: {expr: \"(sqrt(d), 1)\"}\n    hint: h\n    explanation: e\n    concepts: [c]\n"
)


@pytest.fixture
def root_quiz(tmp_path):
    path = tmp_path / "root.yaml"
    path.write_text(ROOT)
    copy = tmp_path / "root.json"
    copy.write_text(json.dumps(student_copy.build(load_quiz(path), "practice", FACTORY, cost=CHEAP)))
    return path, copy


def test_practice_says_close_for_a_number_from_either_source(root_quiz):
    path, copy = root_quiz
    quiz = load_quiz(path)
    key = keyed_question(quiz, quiz.questions[0], "alice", FACTORY, "practice")
    close = one_decimal_fewer(key.key, 0.005)
    assert not KINDS["number"].matches(close, key.key, 0.005), "sqrt of 2, 3, 5 and 7 all have a second decimal"
    for source in (path, copy):
        item = open_quiz(source, FACTORY).items_for("alice", "practice")[0]
        assert item.check(close) == (False, NOTE, None, True)
        assert item.check(close + 0.3) == (False, None, None, False), "not close: no hint of where the key is"
        assert item.check(key.key).right is True
        said, inputs = [], iter([str(close), str(key.key)])
        run([item], Progress("root", "alice", "practice"), lambda prompt: next(inputs), said.append, lambda p: None)
        assert f"✗ Not right ({NOTE}). Try again" in said[-2] and said[-1].startswith("✓ Right"), said


def test_a_named_mistake_is_said_before_close(root_quiz):
    path, copy = root_quiz
    quiz = load_quiz(path)
    for source in (path, copy):
        items = open_quiz(source, FACTORY).items_for("bob", "practice")
        d = int(items[0].asked.prompt.split("sqrt(")[1].split(")")[0])
        assert items[0].check(d / 2).mistake == "halved"
    assert quiz.questions[0].mistakes


def test_practice_does_not_say_close_for_a_vector_from_either_source(root_quiz):
    path, copy = root_quiz
    quiz = load_quiz(path)
    key = keyed_question(quiz, quiz.questions[1], "alice", FACTORY, "practice")
    close = one_decimal_fewer(key.key, 0.005)
    for source in (path, copy):
        assert open_quiz(source, FACTORY).items_for("alice", "practice")[1].check(close) == (False, None, None, False)
    assert "close" not in json.loads(copy.read_text())["questions"][1]["variants"][0], "no coarse hash of a vector"
    exam = open_quiz(path, FACTORY).items_for("alice", "exam")[1]
    exam_key = keyed_question(quiz, quiz.questions[1], "alice", FACTORY, "exam")
    assert exam.check(one_decimal_fewer(exam_key.key, 0.005)) == (False, NOTE, None, True), (
        "the instructor's marking says it"
    )


def test_the_close_check_costs_ten_guesses(root_quiz, monkeypatch):
    """A tenth of the guesses on the wider grid, each ten times dearer: no cheaper than guessing the key."""
    _, copy = root_quiz
    data = json.loads(copy.read_text())
    [(asked, check), _] = student_copy.questions_for(data, "alice")
    calls = []
    real = hashlib.scrypt
    monkeypatch.setattr(hashlib, "scrypt", lambda *a, **k: calls.append(k) or real(*a, **k))
    check.check(100.0)  # wrong and not close: the answer's hash, then the close hash
    assert [(c["n"], c["r"], c["p"]) for c in calls] == [(16, 1, 1), (16, 1, 10)]
    assert student_copy.close_cost(student_copy.SCRYPT) == {**student_copy.SCRYPT, "p": 10}


def test_an_exam_copy_says_nothing_close(tmp_path):
    path = tmp_path / "root.yaml"
    path.write_text(ROOT)
    quiz = load_quiz(path)
    copy = tmp_path / "root.exam.json"
    copy.write_text(json.dumps(student_copy.build(quiz, "exam", None, roster=["alice"])))
    assert "close" not in copy.read_text()
    key = keyed_question(quiz, quiz.questions[0], "alice", FACTORY, "exam")
    item = open_quiz(copy, FACTORY).items_for("alice", "exam")[0]
    assert item.check(one_decimal_fewer(key.key, 0.005)) == (None, None, None, False)


@pytest.mark.slow
def test_the_class_grading_counts_close_answers_in_the_table_and_the_csv(tmp_path):
    quiz = load_quiz(REPO / "quizzes" / "softmax.yaml")
    files, expected = [], {}
    for student in ("ann", "ben"):
        keyed = keyed_quiz(quiz, student, FACTORY, "exam")
        answers = {k.asked.id: k.asked.kind.to_text(k.key) for k in keyed}
        expected[student] = []
        if student == "ann":  # rounds every number one decimal too soon
            for k in keyed:
                if k.asked.type in ("number", "vector") and not quiz.question(k.asked.id).relative:
                    early = one_decimal_fewer(k.key, k.tolerance)
                    if not k.asked.kind.matches(early, k.key, k.tolerance) and not any(
                        k.asked.kind.matches(early, m.key, k.tolerance) for m in k.mistakes
                    ):
                        answers[k.asked.id] = k.asked.kind.to_text(early)
                        expected[student].append(k.asked.id)
        path = tmp_path / f"{student}.yaml"
        path.write_text(yaml.safe_dump({"quiz": "softmax", "student": student, "answers": answers}))
        files.append(path)
    assert any(quiz.question(q).type == "vector" for q in expected["ann"]) and any(
        quiz.question(q).type == "number" for q in expected["ann"]
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnlab.cli",
            "quiz",
            "grade",
            "softmax",
            *map(str, files),
            "--csv",
            str(tmp_path / "s.csv"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "160"},
    )
    assert result.returncode == 0, result.stderr
    assert "close" in result.stdout.splitlines()[2]
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "s.csv").open())}
    assert rows["ann"]["close"] == "; ".join(expected["ann"]) and rows["ben"]["close"] == ""
    assert rows["ann"]["score"] == str(13 - len(expected["ann"])), "close is still wrong"
