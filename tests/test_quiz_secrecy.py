"""What a student copy gives away: an exam copy nothing to test a guess against; a practice copy
only its own pool of practice variants, at the price of one scrypt per guess."""

import hashlib
import json
import os
import subprocess
import sys

import pytest
from conftest import COURSE, REPO

from attnlab.quiz import params as drawing
from attnlab.quiz import student_copy
from attnlab.quiz.items import NOT_CHECKED_IN_PRACTICE, open_quiz, reference_factory_for
from attnlab.quiz.errors import QuizError
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.variant import asked_question, keyed_quiz

QUIZ_DIR = REPO / "quizzes"
FACTORY = reference_factory_for(lambda: COURSE)
CHEAP = {"n": 2**8, "r": 8, "p": 1}
QUIZ_IDS = sorted(p.stem for p in QUIZ_DIR.glob("*.yaml"))
STUDENTS = ["alice", "bob", "s1234567"]


def refusing_factory():
    raise AssertionError("an exam copy is built without computing a single key")


@pytest.mark.parametrize("quiz_id", QUIZ_IDS)
def test_an_exam_copy_holds_only_what_each_student_reads(quiz_id):
    quiz = load_quiz(QUIZ_DIR / f"{quiz_id}.yaml")
    copy = json.loads(json.dumps(student_copy.build(quiz, "exam", refusing_factory, roster=STUDENTS)))  # no key is ever computed
    assert set(copy) == {"format", "sitting", "id", "title", "description", "questions", "students"}
    for entry, question in zip(copy["questions"], quiz.questions):
        assert entry == {"id": question.id, "type": question.type, "points": question.points, "concepts": question.concepts}
    # Each student's text is exactly the prompt and options they read: no parameter (shown or
    # not: gqa-group's hidden `group` is its answer), spec, hint or explanation rides along.
    assert set(copy["students"]) == {student_copy.roster_tag(quiz.id, s) for s in STUDENTS}
    for student in STUDENTS:
        texts = copy["students"][student_copy.roster_tag(quiz.id, student)]
        asked = [asked_question(quiz, q, student, "exam") for q in quiz.questions]
        assert texts == [{"prompt": a.prompt, "options": list(a.options)} for a in asked]
    text = json.dumps(copy, ensure_ascii=False)
    assert not any(name in text for name in ('"params"', '"expr"', '"hint"', '"explanation"', '"tolerance"', '"salt"', '"check"'))
    for question in quiz.questions:
        assert question.hint.strip()[:40] not in text and question.explanation.strip()[:40] not in text, question.id
    assert not any(student in text for student in STUDENTS), "the roster is kept as tags, not names"


@pytest.mark.parametrize("quiz_id", QUIZ_IDS)
def test_guessing_against_an_exam_copy_finds_no_oracle(quiz_id, tmp_path):
    """The attack that recovered 49 of 50 answers from the old copies, run against an exam copy:
    with only the copy and the installed engine, the true key and a wrong guess look the same."""
    quiz = load_quiz(QUIZ_DIR / f"{quiz_id}.yaml")
    path = tmp_path / f"{quiz_id}.exam.json"
    path.write_text(json.dumps(student_copy.build(quiz, "exam", refusing_factory, roster=STUDENTS)))
    opened = open_quiz(path, refusing_factory)
    assert opened.sitting == "exam"
    for student in STUDENTS:
        keys = {k.asked.id: k for k in keyed_quiz(quiz, student, FACTORY, "exam")}
        for item in opened.items_for(student, "exam"):
            key = keys[item.asked.id]
            assert item.asked.prompt == key.asked.prompt, "the exam copy draws the student's exam variant"
            assert item.asked.hint == "" and item.explanation is None
            parsed = item.asked.kind.parse(item.asked.kind.to_text(key.key), len(item.asked.options))
            verdict = item.check(parsed)  # the key itself: nothing says it is right
            assert verdict.right is None and verdict.text is None and verdict.mistake is None
    with pytest.raises(Exception, match="cannot be taken in practice mode"):
        opened.items_for("alice", "practice")


@pytest.mark.parametrize("quiz_id", QUIZ_IDS)
def test_practising_finds_no_exam_answer(quiz_id, tmp_path):
    """The same attack against the practice copy, for the questions it shares with the exam: a
    question without parameters has one variant, the exam's, so the copy keeps nothing to test a
    guess against, and the student's own exam key typed into it gets "recorded, not checked"."""
    quiz = load_quiz(QUIZ_DIR / f"{quiz_id}.yaml")
    copy = student_copy.build(quiz, "practice", FACTORY, cost=CHEAP)
    shared = {q.id for q in quiz.questions if not q.params}
    assert shared and all(not quiz.question(q).checked_in_practice for q in shared), "the bank opts no exam question into practice"
    for entry in copy["questions"]:
        if entry["id"] in shared:
            assert entry["variants"] == [], f"{entry['id']}: the practice copy keeps a check of the exam's question"
    path = tmp_path / f"{quiz_id}.json"
    path.write_text(json.dumps(copy))
    copy_items, yaml_items = (open_quiz(source, FACTORY).items_for for source in (path, QUIZ_DIR / f"{quiz_id}.yaml"))
    for student in STUDENTS:
        keys = {k.asked.id: k for k in keyed_quiz(quiz, student, FACTORY, "exam")}
        for from_copy, from_yaml in zip(copy_items(student, "practice"), yaml_items(student, "practice")):
            if from_copy.asked.id not in shared:
                continue
            key = keys[from_copy.asked.id]
            assert from_copy.asked.prompt == from_yaml.asked.prompt == key.asked.prompt, "the very question of the exam"
            typed = from_copy.asked.kind.parse(from_copy.asked.kind.to_text(key.key), len(from_copy.asked.options))
            assert from_copy.check(typed) == from_yaml.check(typed) == (None, NOT_CHECKED_IN_PRACTICE, None, False)
            assert from_yaml.explanation is None, "a skip in practice shows no explanation of an exam question"


def test_an_author_may_let_practice_check_a_question_without_parameters(tmp_path):
    path = tmp_path / "warm.yaml"
    path.write_text(
        "id: warm\ntitle: t\nquestions:\n  - id: sum\n    type: number\n    prompt: What does a row of weights sum to?\n    answer: 1\n"
        "    practice: check\n    hint: h\n    explanation: e\n    concepts: [c]\n"
        "  - id: kept\n    type: truefalse\n    prompt: Is this in the exam?\n    answer: true\n    hint: h\n    explanation: e\n    concepts: [c]\n"
    )
    copy = tmp_path / "warm.json"
    copy.write_text(json.dumps(student_copy.build(load_quiz(path), "practice", FACTORY, cost=CHEAP)))
    for source in (path, copy):
        warm_up, kept = open_quiz(source, FACTORY).items_for("alice", "practice")
        assert warm_up.check(1.0).right is True, "practice: check accepts that practising gives the exam's answer"
        assert kept.check(True) == (None, NOT_CHECKED_IN_PRACTICE, None, False)
    drawn = path.read_text().replace("    practice: check\n", "    practice: record\n    params: {d: {range: [1, 2]}}\n")
    path.write_text(drawn)
    with pytest.raises(QuizError, match="practice: record is for a question without parameters"):
        load_quiz(path)


def quiz_cli(*args, cwd=REPO, env=None):
    return subprocess.run([sys.executable, "-m", "attnlab.cli", "quiz", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "120", **(env or {})})


def test_an_exam_copy_cannot_mark_answers_anywhere(tmp_path):
    copy = tmp_path / "masks.exam.json"
    roster = tmp_path / "roster.txt"
    roster.write_text("alice\n")
    assert quiz_cli("student-copy", "masks", "--mode", "exam", "--roster", roster, "-o", copy).returncode == 0
    answers = tmp_path / "alice.yaml"
    answers.write_text(quiz_cli("key", "masks", "--student", "alice", "--format", "answers").stdout)
    for args, message in [
        (("take", copy, "--answers", answers), "a student copy cannot mark an answers file"),
        (("grade", copy, answers), "is a student copy: it holds no answers"),
        (("take", copy, "--mode", "practice"), "this is the exam copy of 'masks'"),
    ]:
        result = quiz_cli(*args, env={"ATTNLAB_STATE_DIR": str(tmp_path / "state")})
        assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_an_exam_copy_is_for_its_roster(tmp_path):
    roster = tmp_path / "roster.txt"
    roster.write_text("alice\nbob\n")
    copy = tmp_path / "masks.exam.json"
    unrostered = quiz_cli("student-copy", "masks", "--mode", "exam", "-o", copy)
    assert unrostered.returncode == 2 and "an exam copy is made for a roster" in unrostered.stderr
    assert quiz_cli("student-copy", "masks", "--mode", "exam", "--roster", roster, "-o", copy).returncode == 0
    env = {"ATTNLAB_STATE_DIR": str(tmp_path / "state")}
    typo = quiz_cli("take", copy, "--student", "alcie", env=env)
    assert typo.returncode == 2 and "'alcie' is not on this exam's roster" in typo.stderr and "Traceback" not in typo.stderr
    assert "Question 1 of 13" in quiz_cli("take", copy, "--student", "alice", env=env).stdout


def test_practice_variants_are_a_shared_pool_apart_from_every_exam_variant():
    quiz = load_quiz(QUIZ_DIR / "masks.yaml")
    one = student_copy.build(quiz, "practice", FACTORY, cost=CHEAP)
    # No roster goes in: a practice copy is the same data for every class, so it cannot single out anyone.
    assert "roster" not in one and all("roster" not in entry for entry in one["questions"])
    for question in quiz.questions:
        if not question.params:
            continue
        practice_seeds = {drawing.practice_seed(quiz.id, question.id, i) for i in range(drawing.PRACTICE_VARIANTS)}
        names = STUDENTS + [str(i) for i in range(drawing.PRACTICE_VARIANTS)] + [f"practice\0{i}" for i in range(drawing.PRACTICE_VARIANTS)]
        assert not practice_seeds & {drawing.variant_seed(quiz.id, question.id, s) for s in names}
        for student in STUDENTS:
            assert drawing.seed_for(quiz.id, question.id, student, "practice") in practice_seeds


def test_a_practice_guess_costs_one_scrypt_per_whole_answer(monkeypatch):
    quiz = load_quiz(QUIZ_DIR / "masks.yaml")
    copy = student_copy.build(quiz, "practice", FACTORY, cost=CHEAP)
    calls = []
    real = hashlib.scrypt
    monkeypatch.setattr(hashlib, "scrypt", lambda *a, **k: calls.append(k) or real(*a, **k))
    for asked, check in student_copy.questions_for(copy, "alice"):
        if asked.type != "matrix" or check.variant is None:
            continue
        rows, columns = check.variant["layout"]
        calls.clear()
        check.check([[0.0] * columns for _ in range(rows)])
        assert len(calls) == 1 and rows * columns > 1
    assert student_copy.SCRYPT["n"] * student_copy.SCRYPT["r"] * 128 >= 16 * 2**20, "at least 16 MiB per guess"


def test_a_damaged_copy_is_one_line(tmp_path):
    quiz = load_quiz(QUIZ_DIR / "masks.yaml")
    copy = student_copy.build(quiz, "practice", FACTORY, cost=CHEAP)
    copy["scrypt"] = {"n": 3, "r": 8, "p": 1}
    path = tmp_path / "masks.json"
    path.write_text(json.dumps(copy))
    result = quiz_cli("take", path, "--student", "alice", env={"ATTNLAB_STATE_DIR": str(tmp_path)})
    assert result.returncode == 2 and "damaged" in result.stderr and "Traceback" not in result.stderr


def test_a_copy_with_a_field_missing_is_one_line(tmp_path):
    quiz = load_quiz(QUIZ_DIR / "masks.yaml")
    copy = student_copy.build(quiz, "practice", FACTORY, cost=CHEAP)
    del copy["questions"][2]["variants"]
    path = tmp_path / "masks.json"
    path.write_text(json.dumps(copy))
    result = quiz_cli("take", path, "--student", "alice", env={"ATTNLAB_STATE_DIR": str(tmp_path)})
    assert result.returncode == 2 and "this quiz copy is damaged" in result.stderr and "Traceback" not in result.stderr
