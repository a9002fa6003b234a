"""One roster reader for every command that takes ``--roster``: the class lists LMSs export (Canvas,
Moodle, Gradescope) and a plain list of ids, read alike by ``release``, ``quiz student-copy`` and
``grade``; anything else refused in one line before a command writes anything."""

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner
from conftest import COURSE, REPO

from attnlab.intake.class_list import read_roster
from attnlab.quiz import student_copy
from attnlab.intake.roster import RosterError

ATTNLAB = [sys.executable, "-m", "attnlab.cli"]
CHEAP = {"n": 2**8, "r": 8, "p": 1}

# The shapes of the class lists instructors download (headers as the LMSs write them).
CANVAS = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Attention 1 (8123)\n"
    "    Points Possible,,,,,182\n"
    '"Lovelace, Ada",90211,s2301,ada,Sec A,\n'
    '"García, José",90212,s2302,jose,Sec B,\n'
    '"Student, Test",90299,,,Sec A,\n'
)
MOODLE = "First name,Last name,ID number,Institution,Department,Email address\nAda,Lovelace,s2301,Uni,CS,ada@uni.edu\nJosé,García,s2302,Uni,CS,jose@uni.edu\n"
GRADESCOPE = (
    "First Name,Last Name,SID,Email,Role,Sections\n"
    "Ada,Lovelace,s2301,ada@uni.edu,Student,A\n"
    "Grace,Hopper,,grace@uni.edu,Instructor,\n"
    "José,García,s2302,jose@uni.edu,Student,B\n"
)
PLAIN = "# week 3\ns2301\n\ns2302\n"


@pytest.mark.parametrize(
    "text",
    [CANVAS, MOODLE, GRADESCOPE, PLAIN, MOODLE.replace(",", ";"), "id\ns2301\ns2302\n"],
    ids=["canvas", "moodle", "gradescope", "plain", "semicolons", "one-column"],
)
def test_each_form_of_class_list_gives_the_same_students(tmp_path, text):
    path = tmp_path / "roster.csv"
    path.write_bytes(text.encode("utf-8-sig"))
    roster = read_roster(path)
    assert roster.ids == ["s2301", "s2302"]
    if text not in (PLAIN, "id\ns2301\ns2302\n"):
        assert roster.students[1].name in ("García, José", "José García")


def test_a_moodle_or_gradescope_list_gives_names_and_emails(tmp_path):
    path = tmp_path / "gs.csv"
    path.write_text(GRADESCOPE)
    roster = read_roster(path)
    ada = roster.students[0]
    assert (ada.name, ada.email, ada.section) == ("Ada Lovelace", "ada@uni.edu", "A")
    assert roster.find("nobody", "ADA@uni.edu") is ada  # an SID not on the roster, its email is


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"s2301,Ada Lovelace,ada@uni.edu\ns2302,Jose,jose@uni.edu\n",
            "the first line names no id column",
        ),  # a CSV without its header
        (b"s2301\ns2302,Jose\n", "roster.csv:2: 's2302,Jose' is not one id"),
        (
            b"s2301\nS2301\n",
            "roster.csv:2: student 'S2301' is also on line 1",
        ),  # one results file on a case-insensitive disk
        (b"PK\x03\x04workbook", "a spreadsheet workbook"),
        (b"\n# nobody yet\n", "an empty roster"),
    ],
)
def test_a_list_that_is_neither_form_is_refused_in_one_line(tmp_path, content, message):
    path = tmp_path / "roster.csv"
    path.write_bytes(content)
    with pytest.raises(RosterError) as refused:
        read_roster(path)
    assert message in str(refused.value) and "\n" not in str(refused.value)


@pytest.fixture
def cheap_release(monkeypatch, tmp_path):
    """Practice copies hashed cheaply, and kept apart from the user's: the release's own cost is
    not what is tested here."""
    monkeypatch.setattr(student_copy, "SCRYPT", CHEAP)
    monkeypatch.setenv("ATTNLAB_PRACTICE_COPIES", str(tmp_path / "kept-practice-copies"))


def exam_students(copy_path) -> set[str]:
    copy = json.loads(copy_path.read_text())
    return set(copy["students"])


def tags(quiz_id: str, ids) -> set[str]:
    return {student_copy.roster_tag(quiz_id, s) for s in ids}


def test_release_reads_a_canvas_class_list_as_its_students(tmp_path, cheap_release):
    # It once read the CSV one line an id: 4 "students" ("Student,ID,...", ...) and every real one refused.
    from attnlab.cli import main

    roster = tmp_path / "canvas.csv"
    roster.write_text(CANVAS)
    result = CliRunner().invoke(
        main, ["release", str(tmp_path / "out"), "--roster", str(roster), "--course", str(REPO)]
    )
    assert result.exit_code == 0, result.output
    assert exam_students(tmp_path / "out" / "quizzes" / "masks.exam.json") == tags("masks", ["s2301", "s2302"])


def test_release_says_how_many_students_it_released_to_and_what_it_skipped(tmp_path, cheap_release):
    from attnlab.cli import main

    roster = tmp_path / "canvas.csv"
    roster.write_text(CANVAS)
    result = CliRunner().invoke(
        main, ["release", str(tmp_path / "out"), "--roster", str(roster), "--course", str(REPO)]
    )
    assert result.exit_code == 0, result.output
    said = (
        f"released to 2 students (read from {roster}: 2 students; the Points Possible row and the test student skipped)"
    )
    # The terminal wraps a long path anywhere, even inside a word: compare without the white space.
    assert "".join(said.split()) in "".join(result.output.split())


def test_a_canvas_student_without_a_sis_id_is_read_by_another_id_not_the_roster_refused(tmp_path):
    # One unsynced student (an empty SIS User ID) once refused the whole class list.
    path = tmp_path / "canvas.csv"
    path.write_text(CANVAS + '"Hopper, Grace",90213,,grace,Sec A,\n' + '"Nobody, Known",,,,Sec A,\n')
    roster = read_roster(path)
    assert roster.ids == ["s2301", "s2302", "grace"]
    assert roster.by_other_id == ("line 6 (Hopper, Grace) by its SIS Login ID 'grace' (SIS User ID is empty)",)
    assert roster.skipped == (
        "the Points Possible row",
        "the test student",
        "line 7 (Nobody, Known), without an id in any column",
    )


def test_a_second_release_hashes_no_practice_copy_again(tmp_path, cheap_release, monkeypatch):
    # Practice copies are most of a release's time and do not depend on the roster: a release with
    # --roster after one without once hashed every answer again.
    from attnlab.export.release import build

    made = []
    practice = student_copy.build_practice
    monkeypatch.setattr(student_copy, "build_practice", lambda *a, **k: made.append(a[0].id) or practice(*a, **k))
    first = build(COURSE, tmp_path / "first")
    assert first.kept_practice == 0 and len(made) == first.quizzes
    made.clear()
    second = build(COURSE, tmp_path / "second", ["s2301", "s2302"])
    assert made == [] and second.kept_practice == second.quizzes
    for copy in (tmp_path / "first" / "quizzes").glob("*.json"):
        assert (tmp_path / "second" / "quizzes" / copy.name).read_text() == copy.read_text()
    assert exam_students(tmp_path / "second" / "quizzes" / "masks.exam.json") == tags("masks", ["s2301", "s2302"])


def test_quiz_student_copy_reads_a_class_list_as_release_does(tmp_path):
    roster = tmp_path / "moodle.csv"
    roster.write_text(MOODLE)
    copy = tmp_path / "masks.exam.json"
    made = subprocess.run(
        [
            *ATTNLAB,
            "quiz",
            "student-copy",
            "masks",
            "--mode",
            "exam",
            "--roster",
            str(roster),
            "-o",
            str(copy),
            "--course",
            str(REPO),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 0, made.stderr
    assert exam_students(copy) == tags("masks", ["s2301", "s2302"])


@pytest.mark.parametrize("command", ["release", "student-copy", "grade"])
def test_every_command_refuses_a_roster_it_cannot_read_before_writing_anything(tmp_path, command):
    roster = tmp_path / "headless.csv"
    roster.write_text("s2301,Ada Lovelace,ada@uni.edu\n")
    out = tmp_path / "out"
    (tmp_path / "class" / "ada").mkdir(parents=True)
    (tmp_path / "class" / "ada" / "softmax.py").write_text((COURSE.solutions_dir / "softmax.py").read_text())
    args = {
        "release": ["release", str(out), "--roster", str(roster)],
        "student-copy": ["quiz", "student-copy", "masks", "--mode", "exam", "--roster", str(roster), "-o", str(out)],
        "grade": ["grade", str(tmp_path / "class"), "--roster", str(roster), "--csv", str(out)],
    }[command]
    result = subprocess.run([*ATTNLAB, *args, "--course", str(REPO)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and "headless.csv: the first line names no id column" in result.stderr
    assert not out.exists() and not (tmp_path / "class.results").exists()


def test_grade_takes_a_plain_list_of_ids_as_its_roster(tmp_path):
    # It once refused one ("the header has no id column").
    (tmp_path / "class" / "s2301").mkdir(parents=True)
    (tmp_path / "class" / "s2301" / "softmax.py").write_text((COURSE.solutions_dir / "softmax.py").read_text())
    roster = tmp_path / "ids.txt"
    roster.write_text(PLAIN)
    sheet = tmp_path / "sheet.csv"
    result = subprocess.run(
        [
            *ATTNLAB,
            "grade",
            str(tmp_path / "class"),
            "--only",
            "softmax",
            "--roster",
            str(roster),
            "--csv",
            str(sheet),
            "--course",
            str(REPO),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    rows = sheet.read_text(encoding="utf-8-sig").splitlines()
    assert rows[1].startswith('"s2301"') and rows[2].startswith('"s2302"')
    assert "on the roster without a score" in result.stderr and "s2302" in result.stderr


def test_a_release_on_a_terminal_shows_its_progress_and_a_log_gets_no_bar():
    import io

    from rich.console import Console

    from attnlab.export.release_progress import ReleaseProgress

    screen = Console(file=io.StringIO(), force_terminal=True, width=120)
    with ReleaseProgress(screen) as progress:
        progress.expect(4, 6)
        progress.practice_done(3)
        progress.exam_done()
        progress.progress.refresh()
        shown = screen.file.getvalue()
    assert "Practice copies (questions)" in shown and "3/4" in shown
    assert "Exam copies (students × quizzes)" in shown and "1/6" in shown
    log = Console(file=io.StringIO(), force_terminal=False)
    with ReleaseProgress(log) as progress:
        progress.expect(4, 0)
        progress.practice_done(4)
    assert log.file.getvalue() == ""
