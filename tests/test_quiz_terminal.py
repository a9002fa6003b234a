"""The quiz as a student meets it: a real pseudo-terminal, and the instructor's commands as processes."""

import csv
import json
import os
import re
import subprocess
import sys

import pexpect
import pytest
from conftest import COURSE, REPO

from attnlab.quiz import student_copy
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.items import reference_factory_for
from attnlab.quiz.variant import keyed_quiz

FACTORY = reference_factory_for(lambda: COURSE)


def key_texts(quiz_id: str, student: str, sitting: str = "exam") -> list[str]:
    quiz = load_quiz(REPO / "quizzes" / f"{quiz_id}.yaml")
    return [k.asked.kind.to_text(k.key) for k in keyed_quiz(quiz, student, FACTORY, sitting)]


def spawn(args, state_dir):
    env = {**os.environ, "ATTNLAB_STATE_DIR": str(state_dir), "NO_COLOR": "1", "COLUMNS": "100"}
    return pexpect.spawn(
        sys.executable,
        ["-m", "attnlab.cli", *args],
        cwd=str(REPO),
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 100),
    )


def checked_in_practice(quiz_id: str) -> list[bool]:
    return [q.checked_in_practice for q in load_quiz(REPO / "quizzes" / f"{quiz_id}.yaml").questions]


def scientific(text: str) -> str:
    """A key's text with every number in scientific notation, as a scientist types it (0.12 -> 1.2e-01)."""
    return re.sub(r"-?\d+\.\d+|-?\d+", lambda m: f"{float(m.group(0)):.12e}", text)


def test_a_practice_session_in_a_real_terminal(tmp_path):
    answers = key_texts("softmax", "dana", "practice")
    assert all(checked_in_practice("softmax")), "practice checks every question"
    child = spawn(["quiz", "take", "softmax", "--student", "dana"], tmp_path)
    child.expect("Question 1 of 13")
    child.expect("answer .* > ")
    child.sendline("(0.1, 0.2")  # cannot be read
    child.expect("Could not read that")
    child.expect("Answer like this: 0.43, 0.57")
    child.sendline("0,12; 0,61; 0,27")  # a decimal comma: refused with the reason, never read as other numbers
    child.expect("has a comma inside a number: write decimals with a point")
    child.sendline("0.1 0.9")  # two numbers for three: refused, not marked
    child.expect(r"Could not take that \(3 numbers are expected, not 2\)")
    child.sendline("hint")
    child.expect("Hint: exp each score")
    child.sendline(scientific(answers[0]).replace("e", "E", 1))  # 1.2E-01, 6.1e-01, ...: numbers are numbers
    child.expect("Right")
    child.expect("Question 2 of 13")
    child.expect("answer .* > ")
    child.sendline("9, 9, 9")
    child.expect("Not right")
    child.sendline(
        "  " + answers[1].replace(", ", " ").replace("-", "\u2212") + ",  "
    )  # spaces, the Unicode minus, a trailing comma
    child.expect("Right")
    child.expect("Question 3 of 13")
    child.expect("answer .* > ")
    child.sendintr()  # Ctrl-C
    child.expect("Progress saved")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130

    child = spawn(["quiz", "take", "softmax", "--student", "dana"], tmp_path)
    child.expect("Resuming at question 3 of 13")
    for answer in answers[2:]:
        child.expect("answer .* > ")
        child.sendline(scientific(answer))
        child.expect("Right")
    child.expect(r"total\s+│\s+13\s+│\s+13/13")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "asked as in the exam" not in child.before


def hand_in(child):
    """At the exam's review: hand in, and confirm."""
    child.expect("Review: ")
    child.expect(r"review \(a number, hand in, quit\) > ")
    child.sendline("hand in")
    child.expect(r"Hand in now\? .*\(yes/no\) > ")
    child.sendline("yes")


def quiz_cli(*args, cwd=REPO, env=None, input=None, timeout=120):
    return subprocess.run(
        [sys.executable, "-m", "attnlab.cli", "quiz", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        input=input,
        env={**os.environ, "COLUMNS": "120", **(env or {})},
    )


CHEAP = {"n": 2**4, "r": 1, "p": 1}
"""The cost of a guess changes nothing of what a copy checks; one test builds a copy at full cost."""


def cheap_copy(quiz_id: str, path):
    path.write_text(
        json.dumps(student_copy.build(load_quiz(REPO / "quizzes" / f"{quiz_id}.yaml"), "practice", FACTORY, cost=CHEAP))
    )
    return path


@pytest.mark.parametrize("command", ["list", "take", "key", "grade", "lint", "student-copy"])
def test_help(command):
    result = quiz_cli(command, "--help")
    assert result.returncode == 0 and result.stdout.startswith("Usage: ")


def test_key_answers_grade_and_csv(tmp_path):
    files = []
    for student in ("alice", "bob", "carol"):
        key = quiz_cli("key", "masks", "--student", student, "--format", "answers")
        assert key.returncode == 0, key.stderr
        path = tmp_path / f"{student}.yaml"
        path.write_text(key.stdout)
        files.append(path)
        taken = quiz_cli("take", "masks", "--answers", path)
        assert taken.returncode == 0 and "13/13" in taken.stdout
    wrong = tmp_path / "mallory.yaml"
    wrong.write_text(
        "quiz: masks\nstudent: mallory\nanswers:\n  above-diagonal: '1'\n  mask-convention: 'true'\n  visible-keys: not a number\n"
    )
    result = quiz_cli("grade", "masks", *files, wrong, "--csv", tmp_path / "scores.csv")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader((tmp_path / "scores.csv").open()))
    assert [r["student"] for r in rows] == ["alice", "bob", "carol", "mallory"]
    assert [r["score"] for r in rows] == ["13", "13", "13", "1"]
    assert rows[3]["mask-convention"] == "1" and rows[3]["above-diagonal"] == "0"


def test_student_copy_can_be_practised_with(tmp_path):
    copy = tmp_path / "masks.json"
    built = quiz_cli("student-copy", "masks", "-o", copy, timeout=600)  # the release's cost: a few hundred scrypts
    assert built.returncode == 0, built.stderr
    practice = quiz_cli("key", "masks", "--student", "zed", "--mode", "practice", "--format", "answers").stdout
    answers = key_texts("masks", "zed", "practice")
    assert answers != key_texts("masks", "zed", "exam"), "practice variants are not the exam's"
    taken = quiz_cli(
        "take",
        copy,
        "--student",
        "zed",
        input="\n".join(answers) + "\n",
        env={"ATTNLAB_STATE_DIR": str(tmp_path / "state")},
    )
    assert taken.returncode == 0, taken.stderr
    checked = sum(checked_in_practice("masks"))
    assert taken.stdout.count("✓ Right") == checked and taken.stdout.count("Recorded, not checked") == 13 - checked
    assert f"{checked}/{checked}" in taken.stdout
    answers_file = tmp_path / "zed.yaml"
    answers_file.write_text(practice)
    refused = quiz_cli("take", copy, "--answers", answers_file)
    assert refused.returncode == 2 and "a student copy cannot mark an answers file" in refused.stderr


def test_exam_mode_writes_the_answers_to_hand_in_and_shows_no_score(tmp_path):
    answers = key_texts("shapes", "erin")
    child = spawn(
        ["quiz", "take", "shapes", "--student", "erin", "--mode", "exam", "--answers-out", str(tmp_path / "erin.yaml")],
        tmp_path,
    )
    child.expect("answer .* > ")
    child.sendline("hint")
    child.expect("No hints in an exam")
    for answer in answers:
        child.expect("answer .* > ")
        child.sendline(answer)
    hand_in(child)
    child.expect("hand this file in")
    child.expect(pexpect.EOF)
    assert "11/11" not in child.before and "Right" not in child.before and "total" not in child.before
    assert "qkt-entries" in (tmp_path / "erin.yaml").read_text()
    graded = quiz_cli("grade", "shapes", tmp_path / "erin.yaml", "--csv", tmp_path / "scores.csv")
    assert graded.returncode == 0 and "11/11" in graded.stdout
    again = quiz_cli(
        "take", "shapes", "--student", "erin", "--mode", "exam", "--restart", env={"ATTNLAB_STATE_DIR": str(tmp_path)}
    )
    assert (
        again.returncode == 2
        and "you handed in this exam" in again.stderr
        and "--restart does not apply" in again.stderr
    )
    rerun = quiz_cli("take", "shapes", "--student", "erin", "--mode", "exam", env={"ATTNLAB_STATE_DIR": str(tmp_path)})
    assert rerun.returncode == 0 and "You handed in this exam" in rerun.stdout and "Question 1" not in rerun.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["take", "nonsense", "--answers", "x.yaml"], "no quiz named 'nonsense'"),
        (["take", "masks", "--answers", "missing.yaml"], "no such answers file"),
        (["key", "masks"], "Missing option '--student'"),
        (["lint", "no/such/path"], "no such file or folder"),
    ],
)
def test_bad_input_is_one_line(args, message):
    result = quiz_cli(*args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_lint_reports_every_problem_with_its_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "id: bad\ntitle: t\nquestions:\n  - id: q\n    type: single\n    prompt: p\n    answer: a\n    hint: h\n    explanation: e\n    concepts: [c]\n"
    )
    result = quiz_cli("lint", REPO / "quizzes", bad)
    assert result.returncode == 1
    assert f"{bad}:4: questions.0: a single question needs at least two options" in result.stderr
    assert result.stdout.count("ok ") == len(list((REPO / "quizzes").glob("*.yaml")))


def test_a_closed_terminal_loses_nothing(tmp_path):
    answers = key_texts("masks", "fay")
    child = spawn(["quiz", "take", "masks", "--student", "fay", "--mode", "exam"], tmp_path)
    for answer in answers[:3]:
        child.expect("answer .* > ")
        child.sendline(answer)
    child.expect("Question 4 of 13")
    child.close(force=True)  # the terminal goes away: SIGHUP, then SIGKILL
    # Killed by the hangup, or ended on reading the closed terminal's end first (a busy machine).
    assert not child.isalive()
    child = spawn(
        ["quiz", "take", "masks", "--student", "fay", "--mode", "exam", "--answers-out", str(tmp_path / "fay.yaml")],
        tmp_path,
    )
    child.expect("Resuming at question 4 of 13 \\(3 answered so far\\)")
    for answer in answers[3:]:
        child.expect("answer .* > ")
        child.sendline(answer)
    hand_in(child)
    child.expect("hand this file in")
    child.expect(pexpect.EOF)
    graded = quiz_cli("grade", "masks", tmp_path / "fay.yaml", "--csv", tmp_path / "scores.csv")
    assert "13/13" in graded.stdout


def test_bytes_that_are_not_utf8_are_an_unreadable_answer_not_a_crash(tmp_path):
    # A UTF-8 locale reads the terminal strictly (here as PYTHONIOENCODING says): a pasted Latin-1
    # byte once ended the quiz with a UnicodeDecodeError.
    answers = key_texts("masks", "gus", "practice")
    env = {
        **os.environ,
        "ATTNLAB_STATE_DIR": str(tmp_path),
        "NO_COLOR": "1",
        "COLUMNS": "100",
        "PYTHONIOENCODING": "utf-8:strict",
    }
    child = pexpect.spawn(
        sys.executable,
        ["-m", "attnlab.cli", "quiz", "take", "masks", "--student", "gus"],
        cwd=str(REPO),
        env=env,
        timeout=30,
        dimensions=(40, 100),
    )
    child.expect(b"answer .* > ")
    child.send(b"0.5\xe9\r")
    child.expect(b"Could not read that \\(`0.5\\\\xe9` is not a number")
    child.expect(b"answer .* > ")
    child.sendline(answers[0].encode())
    child.expect(b"Question 2 of 13")
    child.sendline(b"quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_the_practice_summary_counts_every_question_of_the_bank(tmp_path):
    # The concept table once said "masks 13 questions 9/9" while 4 were not checked; now all 13 are.
    copy = cheap_copy("masks", tmp_path / "masks.json")
    answers = key_texts("masks", "zed", "practice")
    taken = quiz_cli(
        "take",
        copy,
        "--student",
        "zed",
        input="\n".join(answers) + "\n",
        env={"ATTNLAB_STATE_DIR": str(tmp_path / "state")},
    )
    rows = [[cell for cell in re.split(r"[│┃\s]+", line) if cell] for line in taken.stdout.splitlines()]
    assert ["total", "13", "13/13"] in rows, taken.stdout
    assert "Recorded, not checked" not in taken.stdout and "asked as in the exam" not in taken.stdout


def write_exam(tmp_path, student, name=None):
    """``student`` sits the masks exam from its exam copy and hands in the file ``name``."""
    roster = tmp_path / "roster.txt"
    roster.write_text("alice\nbob\n")
    copy = tmp_path / "masks.exam.json"
    if not copy.exists():
        assert quiz_cli("student-copy", "masks", "--mode", "exam", "--roster", roster, "-o", copy).returncode == 0
    target = tmp_path / f"{name or student}.yaml"
    answers = key_texts("masks", student)
    taken = quiz_cli(
        "take",
        copy,
        "--student",
        student,
        "--answers-out",
        target,
        input="\n".join([*answers, "hand in", "yes"]) + "\n",
        env={"ATTNLAB_STATE_DIR": str(tmp_path / f"state-{student}")},
    )
    assert taken.returncode == 0, taken.stderr
    return target


def test_a_mistyped_id_is_not_marked_against_questions_nobody_saw(tmp_path):
    """`quiz grade` without --roster marked any id against a variant drawn for it, with no word. An
    exam's answers file names the questions it answered; one whose id draws others is not graded."""
    alice = write_exam(tmp_path, "alice")
    assert "variant:" in alice.read_text()
    typo = tmp_path / "alcie.yaml"
    typo.write_text(alice.read_text().replace("student: alice", "student: alcie"))
    result = quiz_cli("grade", "masks", alice, typo, "--csv", tmp_path / "scores.csv")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "scores.csv").open())}
    assert rows["alice"]["score"] == "13" and rows["alcie"]["score"] == ""
    assert "answers other questions than 'alcie'" in rows["alcie"]["problem"] and "mistyped" in rows["alcie"]["problem"]
    assert "No --roster" in result.stderr and "mistyped id" in result.stderr
    # With a roster, the sheet names an id the class does not have.
    class_list = tmp_path / "class.csv"
    class_list.write_text("id,name,email\nalice,Alice,a@x.org\nbob,Bob,b@x.org\n")
    carol = tmp_path / "carol.yaml"
    carol.write_text(quiz_cli("key", "masks", "--student", "carol", "--format", "answers").stdout)
    rostered = quiz_cli("grade", "masks", alice, carol, "--roster", class_list, "--csv", tmp_path / "sheet.csv")
    assert rostered.returncode == 0 and "No --roster" not in rostered.stderr
    assert "graded but not on the roster, written at the end without a name: carol" in " ".join(rostered.stderr.split())


def test_skip_on_a_student_copy_says_it_skipped(tmp_path):
    copy = cheap_copy("shapes", tmp_path / "shapes.json")
    taken = quiz_cli(
        "take", copy, "--student", "zed", input="skip\nquit\n", env={"ATTNLAB_STATE_DIR": str(tmp_path / "state")}
    )
    assert taken.returncode == 0 and "Skipped: type back at the next question to return to it." in taken.stdout, (
        taken.stdout
    )


def test_a_wrong_layout_is_said_with_the_right_article():
    from attnlab.quiz.kinds import KINDS

    assert KINDS["matrix"].layout_reason([[1.0, 2.0]], [8, 8]) == "an 8 × 8 matrix is expected"
    assert KINDS["matrix"].layout_reason([[1.0, 2.0]], [4, 4]) == "a 4 × 4 matrix is expected"


def test_exam_day_from_an_exam_copy_in_a_real_terminal(tmp_path):
    """The review's sitting: a wrong size refused as it is typed, a matrix typed one row a line, the
    last question skipped, the review, back to it, and handed in only on yes; the file earns full marks."""
    roster = tmp_path / "roster.txt"
    roster.write_text("hana\n")
    copy = tmp_path / "masks.exam.json"
    assert quiz_cli("student-copy", "masks", "--mode", "exam", "--roster", roster, "-o", copy).returncode == 0
    answers = key_texts("masks", "hana")
    ids = [q.id for q in load_quiz(REPO / "quizzes" / "masks.yaml").questions]
    out = tmp_path / "hana.yaml"
    child = spawn(["quiz", "take", str(copy), "--student", "hana", "--answers-out", str(out)], tmp_path)
    child.expect("go back to any question")
    for number, (question, answer) in enumerate(zip(ids, answers), 1):
        child.expect(f"Question {number} of 13")
        child.expect(r"answer \(skip, back, review, quit\) > ")
        if question == "masked-row":
            child.sendline(answer.split(", ")[0])  # one number of three
            child.expect(r"Could not take that \(3 numbers are expected, not 1\)")
            child.expect("answer .* > ")
        if question == "causal-matrix":
            rows = answer.split("; ")
            child.sendline(rows[0])
            for row in range(2, len(rows) + 1):
                child.expect(f"row {row} of {len(rows)} > ")
                child.sendline(rows[row - 1])
            continue
        child.sendline("skip" if number == 13 else answer)
    child.expect("Skipped: the review at the end lists it")
    child.expect(r"Review: 12 of 13 questions answered, 1 skipped\.")
    child.expect(r"13\. teacher-forcing: skipped")
    child.expect(r"review \(a number, hand in, quit\) > ")
    child.sendline("hand in")
    child.expect(r"1 question has no answer \(13\): it scores 0\.")
    child.expect(r"\(yes/no\) > ")
    child.sendline("no")
    child.expect("Not handed in")
    child.expect(r"review .* > ")
    child.sendline("13")
    child.expect("Question 13 of 13")
    child.expect("answer .* > ")
    child.sendline(answers[12])
    hand_in(child)
    child.expect("hand this file in")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    graded = quiz_cli("grade", "masks", out, "--csv", tmp_path / "scores.csv")
    assert graded.returncode == 0 and "13/13" in graded.stdout, graded.stdout
