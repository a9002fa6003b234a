"""What a student copy gives away: an exam copy nothing to test a guess against; a practice copy
only its own pool of practice variants, at the price of one scrypt per guess."""

import hashlib
import json
import os
import subprocess
import sys

import pytest
import yaml
from conftest import COURSE, REPO

from attnlab.quiz import params as drawing
from attnlab.quiz import student_copy
from attnlab.quiz.items import open_quiz, reference_factory_for
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.variant import keyed_quiz

QUIZ_DIR = REPO / "quizzes"
FACTORY = reference_factory_for(lambda: COURSE)
CHEAP = {"n": 2**8, "r": 8, "p": 1}
QUIZ_IDS = sorted(p.stem for p in QUIZ_DIR.glob("*.yaml"))
STUDENTS = ["alice", "bob", "s1234567"]


def refusing_factory():
    raise AssertionError("an exam copy is built without computing a single key")


def strings_and_numbers(value):
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings_and_numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_and_numbers(item)
    else:
        yield value


@pytest.mark.parametrize("quiz_id", QUIZ_IDS)
def test_an_exam_copy_holds_only_what_the_author_wrote_in_prompts(quiz_id):
    quiz = load_quiz(QUIZ_DIR / f"{quiz_id}.yaml")
    copy = json.loads(json.dumps(student_copy.build(quiz, "exam", refusing_factory, roster=STUDENTS)))  # no key is ever computed
    data = yaml.safe_load((QUIZ_DIR / f"{quiz_id}.yaml").read_text())
    for question in data["questions"]:
        del question["answer"], question["explanation"], question["hint"]
    for entry, question in zip(copy["questions"], quiz.questions):
        assert set(entry) == set(student_copy.EXAM_FIELDS), f"{question.id}: {sorted(set(entry) - set(student_copy.EXAM_FIELDS))}"
        for text in (question.hint, question.explanation):
            assert text.strip()[:40] not in json.dumps(copy, ensure_ascii=False), f"{question.id}: hint or explanation in the exam copy"
    # Every string and number in the copy (but the roster's tags, the format's own words and default
    # points) is in the author's quiz outside its answers, hints and explanations.
    own_words = {"format", "sitting", "exam", "id", "title", "description", "roster", "questions", student_copy.FORMAT, *student_copy.EXAM_FIELDS, 1.0}
    specs = json.loads(json.dumps([{k: v.model_dump(exclude_none=True) for k, v in q.params.items()} for q in quiz.questions]))  # with the schema's defaults
    authored = set(strings_and_numbers(data)) | set(strings_and_numbers(specs))
    for leaf in strings_and_numbers({k: v for k, v in copy.items() if k != "roster"}):
        if isinstance(leaf, bool) or leaf in own_words or leaf == "" or leaf is None:
            continue
        assert leaf in authored, f"{leaf!r} is not from the author's quiz"
    for tag in copy["roster"]:
        assert not any(ch.isdigit() for ch in tag) and len(tag) == 10


@pytest.mark.parametrize("quiz_id", QUIZ_IDS)
def test_guessing_against_an_exam_copy_finds_no_oracle(quiz_id, tmp_path):
    """The attack that recovered 49 of 50 answers from the old copies, run against an exam copy:
    with only the copy and the installed engine, the true key and a wrong guess look the same."""
    quiz = load_quiz(QUIZ_DIR / f"{quiz_id}.yaml")
    path = tmp_path / f"{quiz_id}.exam.json"
    path.write_text(json.dumps(student_copy.build(quiz, "exam", refusing_factory)))
    opened = open_quiz(path, refusing_factory)
    assert opened.sitting == "exam"
    for student in STUDENTS:
        keys = {k.asked.id: k for k in keyed_quiz(quiz, student, FACTORY, "exam")}
        for item in opened.items_for(student, "exam"):
            key = keys[item.asked.id]
            assert item.asked.prompt == key.asked.prompt, "the exam copy draws the student's exam variant"
            assert item.asked.hint == "" and item.explanation is None
            parsed = item.asked.kind.parse(item.asked.kind.to_text(key.key), len(item.asked.options))
            assert item.check(parsed) == (None, None)  # the key itself: nothing says it is right
    with pytest.raises(Exception, match="cannot be taken in practice mode"):
        opened.items_for("alice", "practice")


def quiz_cli(*args, cwd=REPO, env=None):
    return subprocess.run([sys.executable, "-m", "attnlab.cli", "quiz", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "120", **(env or {})})


def test_an_exam_copy_cannot_mark_answers_anywhere(tmp_path):
    copy = tmp_path / "masks.exam.json"
    assert quiz_cli("student-copy", "masks", "--mode", "exam", "-o", copy).returncode == 0
    answers = tmp_path / "alice.yaml"
    answers.write_text(quiz_cli("key", "masks", "--student", "alice", "--format", "answers").stdout)
    for args, message in [
        (("take", copy, "--answers", answers), "a student copy cannot mark an answers file"),
        (("grade", copy, answers), "is a student copy: it holds no answers"),
        (("take", copy, "--mode", "practice"), "this is the exam copy of 'masks'"),
    ]:
        result = quiz_cli(*args, env={"ATTNLAB_STATE_DIR": str(tmp_path / "state")})
        assert result.returncode == 2 and message in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_an_exam_warns_an_id_that_is_not_on_the_roster(tmp_path):
    roster = tmp_path / "roster.txt"
    roster.write_text("alice\nbob\n")
    copy = tmp_path / "masks.exam.json"
    assert quiz_cli("student-copy", "masks", "--mode", "exam", "--roster", roster, "-o", copy).returncode == 0
    env = {"ATTNLAB_STATE_DIR": str(tmp_path / "state")}
    assert "not on this exam's roster" in quiz_cli("take", copy, "--student", "alcie", env=env).stderr
    assert "roster" not in quiz_cli("take", copy, "--student", "alice", env=env).stderr
    assert "alice" not in copy.read_text(), "the roster is kept as tags, not names"


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
        if asked.type != "matrix":
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
