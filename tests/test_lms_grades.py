"""Grades into the LMS: a roster as schools export it, and the columns Canvas's and Moodle's
gradebook imports read, with every cell inert in a spreadsheet."""

import csv
import io
import subprocess
import sys

import pytest
from conftest import REPO

from attnlab.export.sheets.grades import Score, score_sheet, sheet_csv
from attnlab.intake.class_list import read_roster
from attnlab.intake.roster import RosterError

ATTNLAB = [sys.executable, "-m", "attnlab.cli"]
ROSTER = 'id,name,email,section\ns1,"Lovelace, Ada",ada@example.org,A\ns2,"=HYPERLINK(""http://x"",""y"")",bob@example.org,B\ns3,"Cy ""the"" Young",cy@example.org,A\n'


def write(tmp_path, data: bytes, name="roster.csv"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "cp1252"])
def test_a_roster_is_read_in_the_encodings_spreadsheets_save(tmp_path, encoding):
    text = ROSTER.replace("Lovelace", "Lövelace")
    roster = read_roster(write(tmp_path, text.encode(encoding)))
    assert [s.id for s in roster.students] == ["s1", "s2", "s3"]
    assert roster.students[0].name == "Lövelace, Ada" and roster.students[2].name == 'Cy "the" Young'
    assert roster.students[1].email == "bob@example.org" and roster.students[0].section == "A"


def test_a_roster_separated_by_semicolons_or_tabs_with_its_own_header_names(tmp_path):
    roster = read_roster(write(tmp_path, "Student Name;SIS User ID;E-mail\nAda;s1;a@x.org\n".encode()))
    assert roster.students[0].id == "s1" and roster.students[0].name == "Ada" and roster.students[0].email == "a@x.org"
    assert read_roster(write(tmp_path, b"ID\tName\nt1\tTab\n", "tabs.csv")).students[0].name == "Tab"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "an empty roster"),
        (b"name,section\nAda,A\n", "no id column"),
        (b"id,name\n", "a header and no students"),
        (b"id,name\ns1,Ada\ns1,Bob\n", "roster.csv:3: student 's1' is also on line 2"),
        (b"id,name\na b,Ada\na_b,Bob\n", "is also on line 2"),  # one results file, a_b.json, for both
        # A row without an id is skipped and named, not the roster refused (test_rosters.py): here it was the only one.
        (b"id,name\n,Ada\n", "a header and no students (line 2 (Ada), without an id in any column skipped)"),
        (b"id,name,email\ns1,Lovelace, Ada,a@x.org\n", "roster.csv:2: 4 cells where the header has 3"),
    ],
)
def test_a_roster_that_cannot_be_used_is_refused_with_its_line(tmp_path, content, message):
    with pytest.raises(RosterError) as refused:
        read_roster(write(tmp_path, content))
    assert (
        str(refused.value).startswith(str(tmp_path))
        and message in str(refused.value)
        and "\n" not in str(refused.value)
    )


def test_a_grading_id_finds_its_student_by_id_or_email(tmp_path):
    roster = read_roster(write(tmp_path, ROSTER.encode()))
    assert roster.find("s3").name == 'Cy "the" Young'
    assert roster.find("bob@example.org").id == "s2"  # a Gradescope export names a student without an SID by email
    assert roster.find("nobody") is None


def sheet(tmp_path, output_format):
    roster = read_roster(write(tmp_path, ROSTER.encode()))
    scores = [Score("s1", 10, 11), Score("bob@example.org", 7.5, 11), Score("stray", 3, 11)]
    made = score_sheet(output_format, scores, roster, "Attention 1")
    return made, list(csv.reader(io.StringIO(sheet_csv(made))))


def test_the_canvas_sheet_has_the_columns_of_canvas_gradebook_import(tmp_path):
    made, rows = sheet(tmp_path, "canvas")
    assert rows[0] == ["Student", "ID", "SIS User ID", "Section", "Attention 1"]
    assert rows[1] == ["Points Possible", "", "", "", "11"]
    assert rows[2] == ["Lovelace, Ada", "", "s1", "A", "10"]
    assert rows[3][2:] == ["s2", "B", "7.5"] and rows[3][0].startswith("'=")  # text, not a formula
    assert rows[4] == ['Cy "the" Young', "", "s3", "A", ""]  # no score: left as it was in Canvas
    assert rows[5] == ["", "", "stray", "", "3"]
    assert made.not_on_roster == ["stray"] and made.without_score == ["s3"]


def test_the_moodle_sheet_identifies_by_id_number_or_email_and_has_one_grade_column(tmp_path):
    _, rows = sheet(tmp_path, "moodle")
    assert rows[0] == ["ID number", "Email address", "Full name", "Attention 1"]
    assert rows[1] == ["s1", "ada@example.org", "Lovelace, Ada", "10"] and rows[2][:2] == ["s2", "bob@example.org"]


def test_no_cell_of_any_sheet_is_a_formula(tmp_path):
    for output_format in ("canvas", "moodle", "csv"):
        _, rows = sheet(tmp_path, output_format)
        cells = [cell for row in rows for cell in row]
        assert not [
            cell
            for cell in cells
            if cell[:1] in ("=", "+", "@") or (cell[:1] == "-" and not cell[1:].replace(".", "").isdigit())
        ]


@pytest.mark.slow
def test_quiz_grade_writes_a_moodle_sheet_from_the_roster(tmp_path):
    for student in ("s1", "zoe"):
        key = subprocess.run(
            [*ATTNLAB, "quiz", "key", "shapes", "--student", student, "--format", "answers"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
        (tmp_path / f"{student}.yaml").write_text(key.stdout)
    roster = write(tmp_path, ROSTER.encode())
    graded = subprocess.run(
        [
            *ATTNLAB,
            "quiz",
            "grade",
            "shapes",
            tmp_path / "s1.yaml",
            tmp_path / "zoe.yaml",
            "--roster",
            roster,
            "--format",
            "moodle",
            "--csv",
            tmp_path / "out.csv",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert graded.returncode == 0, graded.stderr
    assert "graded but not on the roster, written at the end without a name: zoe" in " ".join(graded.stderr.split())
    rows = list(csv.reader((tmp_path / "out.csv").open()))
    assert rows[0] == ["ID number", "Email address", "Full name", "Shapes and sizes"]
    full = rows[1][3]
    assert rows[1][:3] == ["s1", "ada@example.org", "Lovelace, Ada"] and float(full) > 0
    assert rows[2][3] == "" and rows[4][0] == "zoe" and rows[4][3] == full
    refused = subprocess.run(
        [*ATTNLAB, "quiz", "grade", "shapes", tmp_path / "s1.yaml", "--roster", tmp_path / "missing.csv"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2 and "no such roster file" in refused.stderr and "Traceback" not in refused.stderr


def test_two_results_that_are_one_roster_student_leave_the_cell_empty(tmp_path):
    roster = read_roster(write(tmp_path, ROSTER.encode()))
    made = score_sheet("moodle", [Score("s2", 1, 2), Score("bob@example.org", 2, 2)], roster, "A")
    assert made.rows[2] == ["s2", "bob@example.org", made.rows[2][2], ""] and made.scored_twice == {
        "s2": ["s2", "bob@example.org"]
    }
    assert made.not_on_roster == [] and "s2" not in made.without_score


def test_the_canvas_sheet_fills_canvas_own_id_from_a_canvas_class_list(tmp_path):
    # It left ID empty even where the roster was Canvas's own export, which has it.
    canvas = (
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        "    Points Possible,,,,\n"
        '"Lovelace, Ada",90211,s2301,ada,Sec A\n'
        '"Hopper, Grace",90213,,grace,Sec A\n'
    )
    roster = read_roster(write(tmp_path, canvas.encode()))
    made = score_sheet("canvas", [Score("s2301", 10, 11), Score("grace", 9, 11)], roster, "A")
    rows = list(csv.reader(io.StringIO(sheet_csv(made))))
    assert rows[2] == ["Lovelace, Ada", "90211", "s2301", "Sec A", "10"]
    assert rows[3] == ["Hopper, Grace", "90213", "grace", "Sec A", "9"]


def test_a_moodle_sheet_says_the_maximum_its_grade_item_needs(tmp_path):
    # Moodle reads no maximum from the CSV: a new grade item's is 100, and a grade above it stops the import.
    from attnlab.export.sheets.commands import write_sheet

    said = []
    roster = read_roster(write(tmp_path, ROSTER.encode()))
    write_sheet(
        tmp_path / "moodle.csv", [Score("s1", 150, 182), Score("s2", 7.5, 182)], roster, "moodle", "A", said.append
    )
    assert said[0] == (
        "Moodle reads no maximum from a CSV: set the grade item's maximum grade to 182 before the import"
        " (a new grade item's is 100, and one grade above the maximum stops the import)"
    )


def test_the_detailed_csv_gives_a_submission_that_could_not_be_graded_the_class_maximum():
    from attnlab.classroom.gradebook import StoredResult, gradebook_csv

    report = {"score": 7.0, "max_score": 11.0, "tests": []}
    results = [
        StoredResult("ada", "f", "g", None, report, {}),
        StoredResult("bob", "f", "g", "an empty zip", None, {}),
    ]
    rows = list(csv.reader(io.StringIO(gradebook_csv(results, ["softmax"]))))
    assert rows[1][:3] == ["ada", "7.0", "11.0"]
    assert rows[2][:3] == ["bob", "0.0", "11.0"] and rows[2][-1] == "an empty zip"
