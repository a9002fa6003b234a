"""Reading answers, bounded and forgiving: huge numbers, exploding YAML and bad files in a class."""

import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from conftest import COURSE, REPO

from attnlab.quiz import marking, student_copy
from attnlab.quiz.errors import QuizError
from attnlab.quiz.items import open_quiz, reference_factory_for
from attnlab.quiz.kinds import KINDS, AnswerFormatError
from attnlab.quiz.runner import Progress, run
from attnlab.quiz.schema import load_quiz
from attnlab.wording import with_article

FACTORY = reference_factory_for(lambda: COURSE)
LAUGHS = (
    "quiz: masks\nstudent: lol\n"
    + "\n".join(
        [f"a0: &a0 [{', '.join(['x'] * 9)}]"] + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    )
    + "\nanswers:\n  above-diagonal: *a9\n"
)


@pytest.mark.parametrize(
    "text",
    [
        "10^400",
        "-(10^400)",
        "((2^1000)^1000)^1000",
        "(999**999)**999",
        "9^9^9",
        "exp(1000)",
        "1e308*10",
        "10^308*10",
        "2^1000*2^1000*2^1000",
        "9" * 400,
        "1e999999999",
    ],
)
@pytest.mark.parametrize("kind", ["number", "integer", "vector"])
def test_huge_values_are_too_large_and_cost_nothing(kind, text):
    """Where arithmetic is allowed; without it, the arithmetic is refused (as fast) and a huge
    literal (``1e999999999``) is too large before anything is computed with it."""
    started = time.process_time()
    with pytest.raises(AnswerFormatError, match="too large"):
        KINDS[kind].parse(text, 0, True)
    literal = re.fullmatch(r"[\d/.e-]+", text) is not None
    with pytest.raises(AnswerFormatError, match="too large" if literal else "this question takes a number"):
        KINDS[kind].parse(text, 0, False)
    assert time.process_time() - started < 0.5


def test_too_large_in_practice_is_an_answer_that_cannot_be_read():
    items = open_quiz(REPO / "quizzes" / "masks.yaml", FACTORY).items_for("alice", "practice")[:1]
    said = []
    inputs = iter(["1e400", "9" * 400, "skip"])
    run(items, Progress("masks", "alice", "practice"), lambda prompt: next(inputs), said.append, lambda p: None)
    assert sum("Could not read that (too large)" in line for line in said) == 2


def test_an_exploding_yaml_answers_file_is_refused_at_once(tmp_path):
    path = tmp_path / "laughs.yaml"
    path.write_text(LAUGHS)
    assert len(LAUGHS) < 1200
    started = time.process_time()
    with pytest.raises(QuizError, match=r"laughs.yaml:\d+: not an answers file \(an alias \(\*name\) is not allowed"):
        marking.read_answers(path)
    assert time.process_time() - started < 0.5
    big = tmp_path / "big.yaml"
    big.write_text("quiz: masks\nstudent: big\nanswers:\n" + "".join(f"  q{i}: '{'1' * 100}'\n" for i in range(3000)))
    with pytest.raises(QuizError, match="too large for an answers file"):
        marking.read_answers(big)


def quiz_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "attnlab.cli", "quiz", *map(str, args)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_a_class_with_bad_files_is_still_graded(tmp_path):
    key = quiz_cli("key", "masks", "--student", "alice", "--format", "answers").stdout
    (tmp_path / "alice.yaml").write_text(key)
    (tmp_path / "bob.yaml").write_text(
        "quiz: masks\nstudent: bob\nanswers:\n  above-diagonal: '10^400'\n  mask-convention: '(999**999)**999'\n"
    )
    (tmp_path / "bob-again.yaml").write_text("quiz: masks\nstudent: bob\nanswers:\n  above-diagonal: '0'\n")
    (tmp_path / "softmax-file.yaml").write_text("quiz: softmax\nstudent: carol\nanswers:\n  row-sum: '1'\n")
    (tmp_path / "broken.yaml").write_text("quiz: masks\nstudent: dan\nanswers: [unclosed\n")
    (tmp_path / "laughs.yaml").write_text(LAUGHS)
    (tmp_path / "latin1.yaml").write_bytes("quiz: masks\nstudent: é\n".encode("latin-1"))
    files = sorted(tmp_path.glob("*.yaml"))
    result = quiz_cli("grade", "masks", *files, "--csv", tmp_path / "scores.csv")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    rows = {r["file"]: r for r in csv.DictReader((tmp_path / "scores.csv").open())}
    assert set(rows) == {str(f) for f in files}
    assert rows[str(tmp_path / "alice.yaml")]["score"] == "13" and rows[str(tmp_path / "alice.yaml")]["problem"] == ""
    bob = rows[str(tmp_path / "bob.yaml")]
    assert (
        bob["score"] == "0"
        and "also claimed by" in bob["problem"]
        and str(tmp_path / "bob-again.yaml") in bob["problem"]
    )
    assert "also claimed by" in rows[str(tmp_path / "bob-again.yaml")]["problem"]
    assert rows[str(tmp_path / "softmax-file.yaml")]["problem"] == "answers quiz 'softmax', not 'masks': not graded"
    assert rows[str(tmp_path / "softmax-file.yaml")]["score"] == ""
    # The unclosed [ is on line 3; the parser finds out at the end of the file, past its last line.
    assert (
        rows[str(tmp_path / "broken.yaml")]["problem"]
        == "line 3: not an answers file (a [ list that is never closed with ])"
    )
    assert "alias" in rows[str(tmp_path / "laughs.yaml")]["problem"]
    assert "not UTF-8" in rows[str(tmp_path / "latin1.yaml")]["problem"]
    assert "6 of 7 answers files have problems" in result.stderr
    for name in ("bob-again.yaml", "softmax-file.yaml", "broken.yaml", "laughs.yaml", "latin1.yaml"):
        assert any(name in line for line in result.stderr.splitlines()), name
    assert "alice" in result.stdout and "13/13" in result.stdout


def test_a_student_id_cannot_become_a_spreadsheet_formula(tmp_path):
    (tmp_path / "evil.yaml").write_text("quiz: masks\nstudent: '=HYPERLINK(\"http://x\")'\nanswers: {}\n")
    result = quiz_cli("grade", "masks", tmp_path / "evil.yaml", "--csv", tmp_path / "scores.csv")
    assert result.returncode == 0, result.stderr
    row = next(csv.DictReader((tmp_path / "scores.csv").open()))
    assert row["student"].startswith("'=")


@pytest.mark.parametrize(
    "text, value",
    [
        ("0.12 0.61 0.27", [0.12, 0.61, 0.27]),
        ("[0.1 0.2]", [0.1, 0.2]),
        ("1/2 1/3", [0.5, 1 / 3]),
        ("1 / 2  1 / 3", [0.5, 1 / 3]),
        ("e / (2e + 1)", [math.e / (2 * math.e + 1)]),
    ],
)
def test_a_vector_typed_with_spaces_is_a_vector(text, value):
    assert KINDS["vector"].parse(text, 0, True) == pytest.approx(value)


@pytest.mark.parametrize(
    "text, message",
    [
        ("sqr(2)", "unknown name `sqr` (did you mean `sqrt`?)"),
        ("exp(x)", "unknown name `x`"),
        ("Sqrt(2)", "did you mean `sqrt`?"),
        ("pie", "did you mean `pi`?"),
    ],
)
def test_an_unknown_name_is_named_with_the_closest_known_one(text, message):
    with pytest.raises(AnswerFormatError, match=re.escape(message)):
        KINDS["number"].parse(text, 0, True)


def test_a_wrong_sized_answer_is_refused_not_marked(tmp_path):
    """Two numbers for a three-vector (or a 2 × 2 matrix for a 4 × 4) is refused in practice, from
    the YAML and from the copy alike, with the size expected: not counted as an attempt, not marked."""
    quiz = REPO / "quizzes" / "masks.yaml"
    copy = tmp_path / "masks.json"
    copy.write_text(
        json.dumps(student_copy.build(load_quiz(quiz), "practice", FACTORY, cost={"n": 2**4, "r": 1, "p": 1}))
    )
    for source in (quiz, copy):
        items = open_quiz(source, FACTORY).items_for("alice", "practice")
        matrix = next(i for i in items if i.asked.id == "causal-matrix")
        n = int(matrix.asked.prompt.split("×")[0].split()[-1])
        vector = next(i for i in items if i.asked.id == "masked-row-drawn")
        said = []
        inputs = iter(["0.5, 0.5", "skip", "; ".join(["1 0"] * 2), "skip"])
        progress = Progress("masks", "alice", "practice")
        run([vector, matrix], progress, lambda prompt: next(inputs), said.append, lambda p: None)
        text = "\n".join(said)
        assert "Could not take that (3 numbers are expected, not 2). Type the whole answer again." in text, text
        assert f"Could not take that ({with_article(f'{n} × {n}')} matrix is expected, not 2 × 2)" in text, text
        assert (
            "Not right" not in text
            and progress.attempts == {}
            and progress.answers == {"masked-row-drawn": None, "causal-matrix": None}
        )


def test_grade_says_why_an_answer_is_unreadable_in_the_table_and_the_csv(tmp_path):
    """A decimal comma ("0,05; 0,95") was "unreadable" with no reason anywhere."""
    answers = tmp_path / "eve.yaml"
    answers.write_text(
        "quiz: masks\nstudent: eve\nanswers:\n  masked-row-drawn: '0,05; 0,95; 0'\n  visible-keys: 'three'\n  masked-row: '0.5, 0.5'\n"
    )
    result = quiz_cli("grade", "masks", answers, "--csv", tmp_path / "scores.csv")
    assert result.returncode == 0, result.stderr
    row = next(csv.DictReader((tmp_path / "scores.csv").open()))
    reasons = dict(part.split(": ", 1) for part in row["unreadable"].split("; "))
    assert reasons["masked-row-drawn"].startswith(
        "`0,05` has a comma inside a number: write decimals with a point (0.05)"
    )
    assert (
        reasons["visible-keys"].startswith("`three` is not a number")
        and reasons["masked-row"] == "3 numbers are expected, not 2"
    )
    table = " ".join(result.stdout.split())
    assert (
        "unreadable answers" in table and "comma inside a number" in table and "3 numbers are expected, not 2" in table
    )


UNCOMPUTABLE = """id: bad
title: A quiz with a key that cannot be computed
questions:
  - id: div
    type: number
    prompt: "What is 1/(n-n) for n = {n}? Give two decimals."
    params:
      n: {range: [1, 3]}
    answer: {expr: "1/(n-n)"}
    tolerance: 0.01
    hint: think
    explanation: "It cannot be."
    concepts: [masks]
"""


def test_a_key_that_cannot_be_computed_mid_quiz_is_one_line_and_keeps_the_progress(tmp_path):
    """From the YAML a key is worked out when an answer is checked: a quiz whose key fails there
    (lint would have said so) ends with the reason, not a traceback, and the answer is kept."""
    shutil.copytree(REPO / "exercises", tmp_path / "exercises")
    (tmp_path / "quizzes").mkdir()
    (tmp_path / "quizzes" / "bad.yaml").write_text(UNCOMPUTABLE)
    done = subprocess.run(
        [sys.executable, "-m", "attnlab.cli", "quiz", "take", "bad", "--student", "s1", "--course", str(tmp_path)],
        input="5\n",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "the answer cannot be computed for student 's1'" in done.stderr and "progress is saved" in done.stderr
