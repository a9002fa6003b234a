"""What a student copy gives away: an exam copy nothing to test a guess against; a practice copy
only its own pool of practice variants (never an exam's variant or pool item), at the price of one
scrypt per guess."""

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
from attnlab.quiz.variant import asked_question, drawn_values, keyed_for_values, keyed_quiz, practice_variants

QUIZ_DIR = REPO / "quizzes"
FACTORY = reference_factory_for(lambda: COURSE)
CHEAP = {"n": 2**8, "r": 8, "p": 1}
QUIZ_IDS = sorted(p.stem for p in QUIZ_DIR.glob("*.yaml"))
STUDENTS = ["alice", "bob", "s1234567"]


def refusing_factory():
    raise AssertionError("an exam copy is opened without computing a single key")


@pytest.mark.parametrize("quiz_id", QUIZ_IDS)
def test_an_exam_copy_holds_only_what_each_student_reads(quiz_id):
    quiz = load_quiz(QUIZ_DIR / f"{quiz_id}.yaml")
    copy = json.loads(json.dumps(student_copy.build(quiz, "exam", FACTORY, roster=STUDENTS)))
    assert set(copy) == {"format", "sitting", "id", "title", "description", "questions", "students"}
    for entry, question in zip(copy["questions"], quiz.questions):
        assert entry == {
            "id": question.id,
            "type": question.type,
            "points": question.points,
            "concepts": question.concepts,
            "expressions": question.expressions,
        }
    # Each student's text is exactly the prompt and options they read, with the size of a vector or
    # matrix answer (which the prompt states): no parameter (shown or not: gqa-group's hidden `group`
    # is its answer), spec, hint or explanation rides along.
    assert set(copy["students"]) == {student_copy.roster_tag(quiz.id, s) for s in STUDENTS}
    for student in STUDENTS:
        texts = copy["students"][student_copy.roster_tag(quiz.id, student)]
        keys = keyed_quiz(quiz, student, FACTORY, "exam")
        assert texts == [
            {"prompt": k.asked.prompt, "options": list(k.asked.options)}
            | ({"layout": k.asked.kind.shape(k.key)} if k.asked.kind.sized else {})
            for k in keys
        ]
        assert [k.asked.prompt for k in keys] == [
            asked_question(quiz, q, student, "exam").prompt for q in quiz.questions
        ]
    text = json.dumps(copy, ensure_ascii=False)
    assert not any(
        name in text for name in ('"params"', '"expr"', '"hint"', '"explanation"', '"tolerance"', '"salt"', '"check"')
    )
    for question in quiz.questions:
        assert question.hint.strip()[:40] not in text and question.explanation.strip()[:40] not in text, question.id
    assert not any(student in text for student in STUDENTS), "the roster is kept as tags, not names"
    for question in (q for q in quiz.questions if q.pool):
        assert not any(
            json.dumps(item.prompt.strip(), ensure_ascii=False) in text for item in question.pool.practice
        ), "an exam copy holds no practice item"


@pytest.mark.parametrize("quiz_id", QUIZ_IDS)
def test_guessing_against_an_exam_copy_finds_no_oracle(quiz_id, tmp_path):
    """The attack that recovered 49 of 50 answers from the old copies, run against an exam copy:
    with only the copy and the installed engine, the true key and a wrong guess look the same."""
    quiz = load_quiz(QUIZ_DIR / f"{quiz_id}.yaml")
    path = tmp_path / f"{quiz_id}.exam.json"
    path.write_text(json.dumps(student_copy.build(quiz, "exam", FACTORY, roster=STUDENTS)))
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
            assert item.refuse(parsed) is None  # its size is taken, as any answer of that size is
    with pytest.raises(Exception, match="cannot be taken in practice mode"):
        opened.items_for("alice", "practice")


EXAM_STUDENTS = STUDENTS + [f"s{i:03d}" for i in range(120)]


def practice_prompts(quiz, question) -> set[str]:
    """Every prompt the practice pool of ``question`` asks (its variants, or its practice items)."""
    return {
        keyed_for_values(quiz, question, values, who, FACTORY, "practice").asked.text()
        for who, values in practice_variants(quiz, question)
    }


@pytest.mark.parametrize("quiz_id", QUIZ_IDS)
def test_practising_finds_no_exam_answer(quiz_id, tmp_path):
    """The attack against the practice copy: a student looks in it for their own exam question, to
    test their exam answer against its hash. Practice checks every question of the bank, and no
    practice variant or pool item is any student's exam question (an exam draw that equals a
    practice variant is drawn again; a pool's exam and practice items are apart), so the student's
    own exam key, typed into the practice copy, is never checked as the exam's."""
    quiz = load_quiz(QUIZ_DIR / f"{quiz_id}.yaml")
    copy = student_copy.build(quiz, "practice", FACTORY, cost=CHEAP)
    assert all(q.checked_in_practice and q.practice is None for q in quiz.questions), (
        "every question checked, none by giving its exam answer away"
    )
    for entry, question in zip(copy["questions"], quiz.questions):
        assert entry["variants"], f"{question.id}: practice checks it"
        practice = practice_prompts(quiz, question)
        copy_prompts = {
            a.text()
            for name in [f"p{i}" for i in range(40)]
            for a, _ in [student_copy.questions_for(copy, name)[quiz.questions.index(question)]]
        }
        assert copy_prompts <= practice, "the copy asks the practice pool's questions, and only them"
        for student in EXAM_STUDENTS:
            assert asked_question(quiz, question, student, "exam").text() not in practice, (
                f"{question.id}: {student}'s exam question is in the practice pool"
            )
        if question.pool is not None:
            shipped = [(item["prompt"], item["options"]) for item in entry["items"]]
            assert not any((item.prompt, item.options or []) in shipped for item in question.pool.exam), (
                f"{question.id}: an exam item is in the practice copy"
            )
        else:
            practice_values = [values for _, values in practice_variants(quiz, question)]
            assert not any(drawn_values(quiz, question, student) in practice_values for student in EXAM_STUDENTS)
    path = tmp_path / f"{quiz_id}.json"
    path.write_text(json.dumps(copy))
    for (
        student
    ) in STUDENTS:  # the exam key, typed where the copy asks the same question id: checked against practice's key only
        keys = {k.asked.id: k for k in keyed_quiz(quiz, student, FACTORY, "exam")}
        for item in open_quiz(path, FACTORY).items_for(student, "practice"):
            assert item.asked.text() != keys[item.asked.id].asked.text()


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
    drawn = path.read_text().replace(
        "    practice: check\n", "    practice: record\n    params: {d: {range: [1, 2]}}\n"
    )
    path.write_text(drawn)
    with pytest.raises(QuizError, match="practice: record is for a question without parameters"):
        load_quiz(path)


def quiz_cli(*args, cwd=REPO, env=None):
    return subprocess.run(
        [sys.executable, "-m", "attnlab.cli", "quiz", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "120", **(env or {})},
    )


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
    assert (
        typo.returncode == 2
        and "'alcie' is not on this exam's roster" in typo.stderr
        and "Traceback" not in typo.stderr
    )
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
        names = (
            STUDENTS
            + [str(i) for i in range(drawing.PRACTICE_VARIANTS)]
            + [f"practice\0{i}" for i in range(drawing.PRACTICE_VARIANTS)]
        )
        assert not practice_seeds & {drawing.variant_seed(quiz.id, question.id, s) for s in names}
        for student in STUDENTS:
            assert drawing.seed_for(quiz.id, question.id, student, "practice") in practice_seeds
        # Seeds apart are not enough where a parameter has few values: the exam's draws avoid practice's values.
        practice = [values for _, values in practice_variants(quiz, question)]
        assert not any(drawn_values(quiz, question, f"x{i}") in practice for i in range(300))


def test_a_practice_guess_costs_one_scrypt_per_whole_answer(monkeypatch):
    quiz = load_quiz(QUIZ_DIR / "masks.yaml")
    copy = student_copy.build(quiz, "practice", FACTORY, cost=CHEAP)
    calls = []
    real = hashlib.scrypt
    monkeypatch.setattr(hashlib, "scrypt", lambda *a, **k: calls.append(k) or real(*a, **k))
    matrices = 0
    for asked, check in student_copy.questions_for(copy, "alice"):
        if asked.type not in ("matrix", "vector") or check.variant is None:
            continue
        layout = check.variant["layout"]
        guess = [[0.0] * layout[1] for _ in range(layout[0])] if asked.type == "matrix" else [0.0] * layout[0]
        calls.clear()
        check.check(guess)
        assert len(calls) == 1, "one scrypt per guess, however many accepted answers the slack has"
        matrices += 1
    assert matrices >= 3
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
