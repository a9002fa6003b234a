"""Student text is inert wherever it is shown: terminals, CSV files, Gradescope's Markdown, HTML.

Hostile fixtures speak in escape sequences, Markdown and spreadsheet formulas; they are graded
as one submission and in a class through the real command line, and what reaches people is
read back: the terminal output, the CSV cells, results.json rendered by a CommonMark parser.
"""

import csv
import html.parser
import io
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import (
    REPO,
    SUBMISSIONS,
    assert_inert_markdown,
    build_submission,
    gradescope_markdown_is_inert,
    markdown_tokens as tokens,
    read_fixture,
)
from hypothesis import given, strategies as st
from markdown_it import MarkdownIt

from attnlab.inert import markdown_literal, spreadsheet_cell, terminal_text, write_csv
from attnlab.outcomes import Outcome
from attnlab.results import GradeReport, TestResult

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

ATTNLAB = [sys.executable, "-m", "attnlab.cli"]
HOSTILE = ["speaks_in_escape_sequences", "writes_markdown_into_feedback", "names_itself_a_formula"]
# What a terminal obeys instead of showing: C0 but tab and newline, DEL, C1, bidi controls.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
FORMULA_CLASS_IDS = ["-1+1", "@SUM(A1)"]  # what safe_id keeps of a student's folder name
FORMULA_FOLDER = '=HYPERLINK("evil.example","Open")'  # holds no exercise file: its name reaches the error column
ESCAPE_FOLDER = "\x1b]52;c;cHduZWQ=\x07\x1b[2Jeve"  # likewise: a clipboard write and a clear screen in its name


def attnlab(*args, env=None):
    return subprocess.run(
        [*ATTNLAB, *map(str, args), "--course", REPO],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "120", **(env or {})},
    )


def hostile(name: str):
    return read_fixture(SUBMISSIONS / "hostile" / f"{name}.py")


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


# -- the module, by its properties -------------------------------------------------------------


@given(st.text())
def test_terminal_text_leaves_no_control_and_is_idempotent(text):
    shown = terminal_text(text)
    assert not CONTROL.search(shown)
    assert terminal_text(shown) == shown


@given(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E)))
def test_terminal_text_keeps_printable_text(text):
    assert terminal_text(text) == text


def test_terminal_text_takes_out_whole_sequences_and_keeps_the_words():
    fixture = (SUBMISSIONS / "hostile" / "speaks_in_escape_sequences.py").read_text()
    namespace = {}
    exec(compile(fixture, "fixture", "exec"), namespace)
    shown = terminal_text(namespace["ATTACK"])
    assert shown == "look grades\n\u2713 all hidden tests passeddessap"


@given(st.text())
def test_markdown_literal_is_one_code_block_holding_the_text(text):
    made = MarkdownIt("commonmark").parse(markdown_literal(text))
    assert [t.type for t in made] == ["fence"]
    assert made[0].content == terminal_text(text).rstrip("\n") + "\n"


@pytest.mark.parametrize("cell", ["=1+1", "+cmd", "-1+1", "@SUM(A1)", "\t=1", "\r=1", " =1", "-", "@"])
def test_a_cell_that_would_start_a_formula_is_text(cell):
    shown = spreadsheet_cell(cell)
    assert shown.startswith("'") and shown[1:] == terminal_text(cell)


@pytest.mark.parametrize("number", [-2.5, -3, 0, 1e-9, "-2.5", "-3", "+4", "1e-5", "-.5"])
def test_numbers_stay_numbers(number):
    assert spreadsheet_cell(number) == number
    out = io.StringIO()
    write_csv(out, [["x", number]])
    assert float(next(csv.reader(io.StringIO(out.getvalue())))[1]) == float(number)


def test_every_text_cell_is_quoted_so_no_separator_starts_a_formula_mid_cell():
    out = io.StringIO()
    write_csv(out, [["alice;=1+1", -2.5]])
    assert out.getvalue() == '"alice;=1+1",-2.5\r\n'


# -- one submission, through the command line ------------------------------------------------


@pytest.fixture(scope="module")
def one(tmp_path_factory):
    """Each hostile fixture graded alone (softmax only): --explain with --json and --html, and the
    plain report; the escape-sequence one also in colour and through ``attnlab check``."""
    root = tmp_path_factory.mktemp("inert-one")
    runs = {}
    for name in HOSTILE:
        folder = build_submission(root / name, hostile(name))
        runs[name] = {
            "explain": attnlab(
                "grade",
                folder,
                "--only",
                "softmax",
                "--explain",
                "--json",
                root / f"{name}.json",
                "--html",
                root / f"{name}.html",
            ),
            "plain": attnlab("grade", folder, "--only", "softmax"),
            "results": root / f"{name}.json",
            "page": root / f"{name}.html",
            "folder": folder,
        }
    folder = runs["speaks_in_escape_sequences"]["folder"]
    # In colour, as on a terminal, with a folder whose name sets the window title: the spinner shows it.
    titled = build_submission(root / "\x1b]0;pwned\x07eve", hostile("speaks_in_escape_sequences"))
    runs["colour"] = attnlab(
        "grade", titled, "--only", "softmax", "--explain", env={"FORCE_COLOR": "1", "TERM": "xterm-256color"}
    )
    runs["check"] = attnlab("check", folder, "--only", "softmax")
    return runs


@pytest.mark.parametrize("name", HOSTILE)
def test_one_submission_reaches_the_terminal_inert(one, name):
    for kind in ("explain", "plain"):
        result = one[name][kind]
        assert result.returncode == 0, result.stderr[-2000:]
        assert "softmax" in result.stdout and "error" in result.stdout
        assert not CONTROL.search(result.stdout + result.stderr), repr(CONTROL.findall(result.stdout + result.stderr))
    if name == "speaks_in_escape_sequences":
        assert "look grades" in one[name]["explain"].stdout  # shown, not obeyed


def test_in_colour_the_only_escape_sequences_are_the_graders_own_colours(one):
    result = one["colour"]
    assert result.returncode == 0, result.stderr[-2000:]
    assert "\x1b[" in result.stdout  # the colours are there
    assert not CONTROL.search(re.sub(r"\x1b\[[0-9;]*m", "", result.stdout))
    # stderr has the status spinner's own cursor moves, and no student text to carry others
    assert not re.search(r"\x1b[\]P^_X]|[\x80-\x9f\u202a-\u202e]", result.stderr)


def test_the_check_command_reaches_the_terminal_inert(one):
    result = one["check"]
    assert result.returncode == 1, result.stderr[-2000:]
    assert "ValueError: look grades" in result.stdout
    assert not CONTROL.search(result.stdout + result.stderr)


@pytest.mark.parametrize("name", HOSTILE)
def test_one_submissions_gradescope_markdown_is_inert(one, name):
    gradescope_markdown_is_inert(json.loads(one[name]["results"].read_text()), name)


class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)


@pytest.mark.parametrize("name", HOSTILE)
def test_the_html_report_escapes_student_text(one, name):
    page = one[name]["page"].read_text()
    parser = Tags()
    parser.feed(page)
    assert not {"script", "img", "details", "a"} & set(parser.tags), parser.tags
    if name == "writes_markdown_into_feedback":
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


# -- Gradescope: the grader's own words still render -------------------------------------------


def test_the_graders_words_render_as_markdown_and_the_known_mistake_is_three_paragraphs():
    feedback = "Known mistake: the mask is inverted.\nIt keeps the future.\nHint: use `~mask`.\n\nscaled_dot_product_attention raised ValueError: # All hidden tests passed"
    test = TestResult(
        "sdpa: masked",
        "scaled_dot_product_attention",
        "attention",
        Outcome.FAILED,
        0.0,
        1.0,
        feedback,
        "sdpa_mask_inverted",
        None,
        "[Click](https://phish.example)\n",
        0.1,
    )
    output = GradeReport("eve", (test,), "bubblewrap", 1.0).to_gradescope()["tests"][0]["output"]
    assert_inert_markdown(output)
    made = tokens(output)
    paragraphs = [t for t in made if t.type == "inline"]
    assert [p.content for p in paragraphs[:3]] == [
        "**Known mistake:** the mask is inverted.",
        "It keeps the future.",
        "**Hint:** use `~mask`.",
    ]
    assert {"strong_open", "code_inline"} <= {t.type for t in made}
    fences = [t.content for t in made if t.type == "fence"]
    assert fences == [
        "scaled_dot_product_attention raised ValueError: # All hidden tests passed\n",
        "[Click](https://phish.example)\n",
    ]


# -- a class, through the command line -------------------------------------------------------


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("inert-class")
    classroom = root / "class"
    for name in HOSTILE:
        build_submission(classroom / name, hostile(name))
    for student in FORMULA_CLASS_IDS:
        build_submission(classroom / student, hostile("names_itself_a_formula"))
    for folder in (FORMULA_FOLDER, ESCAPE_FOLDER):
        (classroom / folder).mkdir()
        (classroom / folder / "notes.txt").write_text("no code")
    result = attnlab("grade", classroom, "--only", "softmax", "--jobs", "2", "--csv", root / "class.csv")
    return root, result


def test_a_class_reaches_the_terminal_inert(graded_class):
    root, result = graded_class
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Score distribution" in result.stdout
    assert not CONTROL.search(result.stdout + result.stderr), repr(CONTROL.findall(result.stdout + result.stderr))
    for path in (root / "class.results").glob("*.json"):  # stored inert too: jq -r and sqlite3 print to terminals
        assert not any(CONTROL.search(text) for text in strings(json.loads(path.read_text()))), path.name


def test_a_class_csv_has_no_formula_and_keeps_its_numbers(graded_class):
    root, _ = graded_class
    rows = list(csv.reader((root / "class.csv").open(newline="")))
    header, body = rows[0], rows[1:]
    assert header[:3] == ["student", "total", "max_total"]
    students = {row[0] for row in body}
    assert {"'-1+1", "'@SUM_A1"} <= students, students
    for row in body:
        for cell in row:
            assert not cell.lstrip().startswith(("=", "+", "-", "@", "\t", "\r")), row
            assert not CONTROL.search(cell), row
        assert float(row[1]) >= 0 and (row[2] == "" or float(row[2]) > 0)  # numbers stay numbers
    errors = [row[-1] for row in body if row[-1]]
    assert any(e.startswith("'=HYPERLINK") for e in errors), errors


def test_a_class_renders_to_gradescope_markdown_inert(graded_class):
    root, _ = graded_class
    for name in HOSTILE:
        stored = json.loads((root / "class.results" / f"{name}.json").read_text())["report"]
        tests = tuple(TestResult(**{**t, "outcome": Outcome(t["outcome"])}) for t in stored["tests"])
        report = GradeReport(stored["submission"], tests, stored["sandbox"], stored["duration"])
        gradescope_markdown_is_inert(report.to_gradescope(), name)


# -- a quiz graded from students' answers files ---------------------------------------------


def test_quiz_grading_shows_and_writes_a_students_id_inert(tmp_path):
    answers = tmp_path / "eve.yaml"
    answers.write_text(
        'quiz: masks\nstudent: "=HYPERLINK(\\"evil.example\\")\\e]52;c;cHduZWQ=\\a\\e[2J"\nanswers:\n  above-diagonal: "1"\n'
    )
    result = attnlab("quiz", "grade", "masks", answers, "--csv", tmp_path / "scores.csv")
    assert result.returncode == 0, result.stderr
    assert 'HYPERLINK("evil.example")' in result.stdout
    assert not CONTROL.search(result.stdout + result.stderr)
    rows = list(csv.reader((tmp_path / "scores.csv").open(newline="")))
    assert rows[1][0] == "'=HYPERLINK(\"evil.example\")"
    assert float(rows[1][1]) >= 0


@pytest.mark.parametrize("name", HOSTILE)
def test_alone_and_in_a_class_gradescope_shows_the_same(one, graded_class, name):
    root, _ = graded_class
    alone = json.loads(one[name]["results"].read_text())["tests"]
    stored = json.loads((root / "class.results" / f"{name}.json").read_text())["report"]
    tests = tuple(TestResult(**{**t, "outcome": Outcome(t["outcome"])}) for t in stored["tests"])
    in_class = GradeReport(stored["submission"], tests, stored["sandbox"], stored["duration"]).to_gradescope()["tests"]
    assert [(t["name"], t["score"], t["output"]) for t in alone] == [
        (t["name"], t["score"], t["output"]) for t in in_class
    ]


def test_marking_one_students_answers_file_shows_their_id_inert(tmp_path):
    answers = tmp_path / "eve.yaml"
    answers.write_text('quiz: masks\nstudent: "\\e]52;c;cHduZWQ=\\a\\e[2J\\u202eeve"\nanswers:\n  visible-keys: "7"\n')
    result = attnlab("quiz", "take", "masks", "--answers", answers)
    assert result.returncode == 0, result.stderr
    assert "masks · eve" in result.stdout  # the id the file gives is shown, its escape sequences not obeyed
    assert not CONTROL.search(result.stdout + result.stderr), repr(result.stdout[:300])
