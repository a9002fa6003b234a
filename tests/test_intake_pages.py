"""What a student and an instructor read of what was handed in: a missing file said once, not
once a test; how the sandbox ran kept off the students' pages; names in Markdown as written
(``softmax.py``, not ``softmax\\.py``) and still inert; one note for all of a student's notebooks;
whose files are missing, in the class summary; and a fork server that says nothing on Ctrl-C."""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
from conftest import COURSE, REPO
from markdown_it import MarkdownIt
from rich.console import Console

from attnlab.outcomes import Outcome
from attnlab.report.html import render_html
from attnlab.report.markdown import render_markdown
from attnlab.report.terminal import render
from attnlab.results import GradeReport, TestResult

SANDBOX = "bubblewrap sandbox, workers as a private user (uid 71234) with an IPC namespace of its own"
MISSING = ("masks", "attention", "multihead")


def hidden_test(module: str, number: int, outcome=Outcome.PASSED, feedback: str = "") -> TestResult:
    return TestResult(
        f"{module}_fn: check {number}",
        f"{module}_fn",
        module,
        outcome,
        1.0 if outcome is Outcome.PASSED else 0.0,
        1.0,
        feedback,
        None,
        None,
        "",
        0.01,
    )


def missing_files_report() -> GradeReport:
    """Three files not handed in (seven tests each), one wrong answer, two passes."""
    tests = [
        hidden_test("softmax", 1),
        hidden_test("softmax", 2),
        hidden_test("softmax", 3, Outcome.FAILED, "rows do not sum to 1 along the keys"),
    ]
    for module in MISSING:
        tests += [
            hidden_test(
                module, n, Outcome.ERROR, f"{module}.py could not be imported: the submission has no {module}.py"
            )
            for n in range(7)
        ]
    return GradeReport("ada", tuple(tests), SANDBOX, 1.0)


def terminal(report: GradeReport, verbose: bool = False) -> str:
    console = Console(record=True, width=200, color_system=None)
    render(report, console, explain=True, verbose=verbose)
    return console.export_text()


@pytest.mark.parametrize("page", ["markdown", "html", "terminal", "gradescope"])
def test_a_missing_file_is_said_once_not_once_a_test(page):
    # A student missing 6 files got 81 near-identical blocks.
    report = missing_files_report()
    text = {
        "markdown": lambda: render_markdown(report, "ada"),
        "html": lambda: render_html(report, name="ada"),
        "terminal": lambda: terminal(report),
        "gradescope": lambda: report.to_gradescope()["output"],
    }[page]()
    for module in MISSING:
        assert text.count(f"the submission has no {module}.py") == 1, (module, text)
        assert "7 tests" in text
    if page != "gradescope":
        assert "rows do not sum to 1 along the keys" in text  # the wrong answer still has its own block


def test_how_the_sandbox_ran_is_not_on_a_students_pages_but_on_the_instructors():
    from attnlab.report.class_html import render_class_html

    report = missing_files_report()
    for page in (render_html(report, name="ada"), render_markdown(report, "ada"), report.to_gradescope()["output"]):
        assert "uid 71234" not in page and "IPC namespace" not in page
    assert "uid 71234" in terminal(report, verbose=True)  # the instructor's terminal, in full with --verbose
    assert "uid 71234" not in terminal(report) and "IPC namespace" in terminal(report)  # one line by default
    # The class page says it once for the class: each grading process has a private user of its own.
    page = render_class_html("class", [{"student": "ada", **{"report": report.to_dict()}}], [])
    assert "IPC namespace" in page and "uid 71234" not in page


def test_markdown_shows_file_names_as_written_and_student_text_stays_inert():
    report = GradeReport("ada", (hidden_test("softmax", 1, Outcome.FAILED, "wrong"),), SANDBOX, 1.0)
    page = render_markdown(report, "ada")
    assert "softmax.py" in page and "softmax\\.py" not in page and "softmax_fn" in page and "softmax\\_fn" not in page
    hostile = [
        "[x](http://evil.example)",
        "<script>alert(1)</script>",
        "**bold** _it_",
        "www.evil.example",
        "ada@evil.example",
        "# Full marks",
        "1. first",
        "`code`",
        "![i](x.png)",
        "a | b",
        "~~gone~~",
        "&amp;",
        "http://evil.example/x",
        "x_y_",
        "$$\\href{x}{y}$$",
    ]
    for preset in ("commonmark", "gfm-like"):  # gfm-like: with GitHub's autolinks (www., emails, URLs) on
        plain = structure(render_markdown(report, "ada"), preset)
        for student in hostile:
            page = render_markdown(report, student)
            assert structure(page, preset) == plain, (preset, student)  # no token the id made
            heading = MarkdownIt(preset).parse(page)[1]
            assert "".join(t.content for t in heading.children) == f"attnlab feedback · {student}"  # shown as written


def structure(page: str, preset: str) -> list[str]:
    """The kinds of the tokens a Markdown parser makes of ``page``, but its words."""
    made = []
    for token in MarkdownIt(preset).parse(page):
        made += [t.type for t in (token, *(token.children or [])) if t.type not in ("text", "text_special")]
    return made


@pytest.mark.slow
def test_the_notes_of_all_a_students_notebooks_are_one_line_under_a_heading_that_does_not_say_not_graded(tmp_path):
    # "Not graded: softmax.ipynb …" nine times read as if the notebooks were not graded.
    from attnlab.grading.suite import grade, grade_entry
    from attnlab.intake.roster import Entry

    for module in ("softmax", "scores", "masks"):
        source = (COURSE.solutions_dir / f"{module}.py").read_text()
        cells = [
            {"cell_type": "code", "source": source, "metadata": {}},
            {"cell_type": "code", "source": "print('trying it out')", "metadata": {}},
        ]
        (tmp_path / "ada").mkdir(exist_ok=True)
        (tmp_path / "ada" / f"{module}.ipynb").write_text(
            json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
        )
    report = grade_entry(
        COURSE,
        Entry("ada", tmp_path / "ada"),
        grade_folder=lambda folder: grade(COURSE, folder, only=["softmax", "scores", "masks"], in_process=True),
    )
    [note] = report.notes
    assert note.count("no function of yours uses") == 1 and note.count("cell 2 `print('trying it out')`") == 3
    assert all(note.count(f"{m}.ipynb cell") == 1 for m in ("softmax", "scores", "masks"))
    for page in (render_html(report, name="ada"), render_markdown(report, "ada"), terminal(report)):
        assert "Not graded" not in page and "About what you handed in" in page


def test_the_class_summary_names_whose_files_are_missing():
    from attnlab.report.class_summary import render_class_summary

    results = [{"student": name, "report": missing_files_report().to_dict(), "error": None} for name in ("ada", "bob")]
    results.append(
        {
            "student": "cy",
            "report": GradeReport("cy", (hidden_test("masks", 1),), SANDBOX, 1.0).to_dict(),
            "error": None,
        }
    )
    console = Console(record=True, width=200, color_system=None)
    render_class_summary(console, results, [], graded_now=3, reused=0, failures=[], wall=1.0)
    out = console.export_text()
    for module in MISSING:
        assert f"{module}.py: 2 students (ada, bob)" in out


def test_the_fork_server_ends_without_a_word_when_the_grader_goes(tmp_path):
    # One Ctrl-C in two printed a BrokenPipeError traceback from forkserver.py over the grader's
    # last lines: its reply found the grader gone. Here the grader goes while a request waits.
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    boot = "import sys; from attnlab.sandbox.inside.forkserver import main; main(int(sys.argv[1]))"
    server = subprocess.Popen(
        [sys.executable, "-c", boot, str(theirs.fileno())],
        pass_fds=[theirs.fileno()],
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        start_new_session=True,
    )
    theirs.close()
    socket.send_fds(ours, [json.dumps({"op": "reap", "pid": 0}).encode()], [])
    assert ours.recv(1 << 16) is not None  # ready, and answering
    os.kill(server.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group: the server is the grader's to stop
    time.sleep(0.5)
    assert server.poll() is None, server.stderr.read()
    os.kill(server.pid, signal.SIGSTOP)
    socket.send_fds(ours, [json.dumps({"op": "reap", "pid": 0}).encode()], [])
    ours.close()  # the grader goes before the reply
    os.kill(server.pid, signal.SIGCONT)
    assert server.wait(timeout=30) == 0
    assert server.stderr.read() == ""
