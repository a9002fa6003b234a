"""Exam day, without a terminal: a wrong size refused from the exam copy, the review that ends an
exam, matrices typed one row a line, the messages of a missing copy, and ``quiz list``."""

import json
import os
import subprocess
import sys

import pytest
from conftest import COURSE, REPO

from attnlab.quiz import student_copy
from attnlab.quiz.errors import QuizError
from attnlab.quiz.items import find_quiz, open_quiz, reference_factory_for
from attnlab.quiz.runner import Progress, run
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.variant import keyed_quiz

FACTORY = reference_factory_for(lambda: COURSE)
CHEAP = {"n": 2**4, "r": 1, "p": 1}
MASKS = REPO / "quizzes" / "masks.yaml"


@pytest.fixture(scope="module")
def exam_copy(tmp_path_factory):
    path = tmp_path_factory.mktemp("exam") / "masks.exam.json"
    path.write_text(json.dumps(student_copy.build(load_quiz(MASKS), "exam", FACTORY, ["ann", "bob"])))
    return path


def keys(student: str, sitting: str = "exam") -> dict[str, str]:
    return {k.asked.id: k.asked.kind.to_text(k.key) for k in keyed_quiz(load_quiz(MASKS), student, FACTORY, sitting)}


def sit(items, inputs, progress=None):
    """Run the loop over ``inputs``; (what was said, the progress, whether it returned)."""
    said, typed = [], iter(inputs)
    progress = progress or Progress("masks", "ann", "exam")

    def ask(prompt):
        said.append(prompt)
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    try:
        done = run(items, progress, ask, said.append, lambda p: None)
    except EOFError:
        done = False
    return "\n".join(said), progress, done


def test_an_exam_copy_refuses_a_wrong_size_as_it_is_typed(exam_copy):
    """The review's finding: "0.99, 0.01" for three weights was taken in the exam and marked 0 after."""
    items = open_quiz(exam_copy, FACTORY).items_for("ann", "exam")
    index = [i.asked.id for i in items].index("masked-row")
    answers = keys("ann")
    said, progress, _ = sit(items[index:], ["0.99, 0.01", answers["masked-row"], "quit"])
    assert "Could not take that (3 numbers are expected, not 2). Type the whole answer again." in said
    assert progress.answers["masked-row"] == answers["masked-row"] and progress.attempts["masked-row"] == 1
    matrix = [i for i in items if i.asked.id == "causal-matrix"][0]
    assert matrix.refuse(matrix.asked.read("1 0; 0 1")) == "a 4 × 4 matrix is expected, not 2 × 2"
    # The copy holds the sizes the prompts state, and nothing more: no key, no value of one.
    data = json.loads(exam_copy.read_text())
    entries = [text for texts in data["students"].values() for text in texts]
    assert {tuple(sorted(e)) for e in entries} == {("options", "prompt"), ("layout", "options", "prompt")}
    assert "0.99" not in exam_copy.read_text() and "0.993" not in exam_copy.read_text()


def test_the_exam_ends_on_a_review_and_hands_in_only_when_confirmed(exam_copy):
    """Skipping the last question handed the exam in at once, with 12 of 13 skipped; now a review lists
    every question, goes back to any, and hands in only on yes."""
    items = open_quiz(exam_copy, FACTORY).items_for("ann", "exam")
    answers = [keys("ann")[i.asked.id] for i in items]
    said, progress, done = sit(items, [answers[0], "skip", "review", "hand in", "no"])
    assert not done and not progress.finished, "nothing is handed in without a yes"
    assert "Review: 1 of 13 questions answered, 1 skipped, 11 not reached." in said
    assert " 2. visible-keys: skipped" in said and "13. teacher-forcing: not reached" in said
    assert "12 questions have no answer (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13): each scores 0." in said
    assert "Not handed in" in said
    # Back to question 2 from the review: its answer leads back to the review, not to question 3.
    said, progress, done = sit(items, ["2", answers[1], "13", "skip", "hand in", "yes"], progress)
    assert done and progress.finished
    assert said.startswith("Resuming at the review of your answers.")
    assert "Question 3 of 13" not in said and said.count("Review: ") == 3
    assert "Review: 2 of 13 questions answered, 1 skipped, 10 not reached." in said
    assert progress.answers[items[1].asked.id] == answers[1] and progress.answers[items[12].asked.id] is None


def test_every_question_answered_still_ends_on_the_review(exam_copy):
    items = open_quiz(exam_copy, FACTORY).items_for("bob", "exam")
    answers = [keys("bob")[i.asked.id] for i in items]
    said, progress, done = sit(items, answers)  # input ends at the review: saved, not handed in
    assert not done and not progress.finished and progress.position == len(items)
    assert "Review: 13 of 13 questions answered, 0 skipped." in said and "no answer" not in said
    said, progress, done = sit(items, ["hand in", "y"], progress)
    assert done and progress.finished


def test_a_matrix_is_typed_one_row_a_line_each_row_checked_as_it_comes():
    """The refusal said "(or on separate lines)", and a second line could not be typed."""
    items = open_quiz(MASKS, FACTORY).items_for("ann", "practice")
    matrix = next(i for i in items if i.asked.id == "causal-matrix")
    rows = keys("ann", "practice")["causal-matrix"].split("; ")
    assert len(rows) >= 2
    wrong_row = rows[1] + " 1"
    said, progress, _ = sit([matrix], [rows[0], wrong_row, *rows[1:]], Progress("masks", "ann", "practice"))
    assert "(A matrix: type one row a line, or every row on one line with ; between the rows.)" in said
    assert f"row 2 of {len(rows)} > " in said
    width = len(rows[0].split())
    assert (
        f"Could not take that row ({width} numbers are expected in each row, not {width + 1}). Type row 2 again."
        in said
    )
    assert "✓ Right" in said and progress.finished
    assert progress.answers["causal-matrix"] == "\n".join(rows)
    # The whole matrix on one line is read as it is; so is a command typed at a row's prompt.
    said, progress, _ = sit([matrix], ["; ".join(rows)], Progress("masks", "ann", "practice"))
    assert "✓ Right" in said and "row 2" not in said
    said, progress, _ = sit([matrix], [rows[0], "skip"], Progress("masks", "ann", "practice"))
    assert "Skipped" in said and progress.answers["causal-matrix"] is None


def test_rows_of_a_size_nobody_states_end_at_an_empty_line(exam_copy):
    """An exam copy made before copies held sizes: the rows end at an empty line."""
    data = json.loads(exam_copy.read_text())
    for texts in data["students"].values():
        for text in texts:
            text.pop("layout", None)
    items = student_copy.questions_for(data, "ann")
    asked, check = next((a, c) for a, c in items if a.id == "causal-matrix")
    from attnlab.quiz.items import Item

    item = Item(asked, check.check, None, checked=False, refuse=check.refuse, layout=check.layout)
    said, progress, _ = sit([item], ["1 0 0 0", "1 1 0 0", "", "quit"])
    assert "row 2 (an empty line ends the matrix) > " in said and "row 3 (an empty line ends the matrix) > " in said
    assert progress.answers["causal-matrix"] == "1 0 0 0\n1 1 0 0"


def test_a_missing_exam_copy_says_what_is_missing_and_how_one_is_made(tmp_path):
    """`--mode exam` without an exam copy once said "no quiz named 'decode' (available: ..., decode, ...)"."""
    (tmp_path / "decode.json").write_text("{}")
    (tmp_path / "masks.exam.json").write_text("{}")
    with pytest.raises(QuizError) as missing:
        find_quiz("decode", tmp_path, "exam")
    message = str(missing.value)
    assert "no quiz named" not in message
    assert f"there is no exam copy of 'decode' here ({tmp_path / 'decode.exam.json'} is missing)" in message
    assert "attnlab release --roster" in message and "without --mode exam you practise it" in message
    with pytest.raises(QuizError, match="there is no practice copy of 'masks' here .* take the exam with --mode exam"):
        find_quiz("masks", tmp_path, "practice")
    with pytest.raises(
        QuizError, match=r"no quiz named 'nope' in .* \(quizzes there: decode, masks; with an exam copy: masks\)"
    ):
        find_quiz("nope", tmp_path, "exam")


def quiz_cli(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "attnlab.cli", "quiz", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )


def test_quiz_list_says_which_quizzes_have_an_exam_copy_for_this_student(tmp_path, exam_copy):
    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "course.toml").write_text("[course]\nmodules = []\n")  # a course of its own
    quizzes = tmp_path / "quizzes"
    quizzes.mkdir()
    (quizzes / "masks.exam.json").write_text(exam_copy.read_text())
    shapes = load_quiz(REPO / "quizzes" / "shapes.yaml")
    (quizzes / "shapes.json").write_text(json.dumps(student_copy.build(shapes, "practice", FACTORY, cost=CHEAP)))
    listed = quiz_cli("list", "--student", "ann", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = {
        line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
        for line in listed.stdout.splitlines()
        if line.count("│") > 4
    }
    assert rows["masks"] == ["Causal and padding masks", "13", "no copy", "yes"]
    assert rows["shapes"] == [shapes.title, "11", "yes", "no copy"]
    other = quiz_cli("list", "--student", "zed", cwd=tmp_path)
    assert "yes, but not for 'zed' (not on its roster)" in other.stdout
    assert "No exam copy holds your questions here" in other.stdout
    instructor = quiz_cli("list", cwd=REPO)
    assert (
        instructor.returncode == 0 and "scoring" in instructor.stdout and "the instructor's quiz" in instructor.stdout
    )
    for path in quizzes.iterdir():
        path.unlink()
    empty = quiz_cli("list", cwd=tmp_path)
    assert empty.returncode == 2 and "no quizzes in" in empty.stderr and "Traceback" not in empty.stderr
