"""Feedback to hand back, through the real commands: a small class graded with `attnlab grade`,
then `attnlab feedback` writes a folder per student and the class page, each opened in headless
Chromium, where a hostile submission's printed script and raised HTML must not run."""

import html.parser
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import REPO, SUBMISSIONS, build_submission, markdown_tokens, read_fixture
from markdown_it import MarkdownIt
from rich.console import Console
from test_html_report import CHROMIUM, chromium, console_errors

from attnlab.classroom.gradebook import ResultStore
from attnlab.report import html as html_report
from attnlab.report.class_summary import ClassProgress
from attnlab.classroom.feedback import stored_reports
from attnlab.report.html import render_html
from attnlab.results import GradeReport

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

ATTNLAB = [sys.executable, "-m", "attnlab.cli"]
ONLY = ["--only", "softmax", "--only", "scores", "--only", "masks"]
STUDENTS = {"ada", "bob", "carl", "eve", "empty-handed"}
NAMED_MISTAKE = "scaled by 1/d_k instead of 1/√d_k"
RECORDING = "Recording the reference's run"


def attnlab(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*ATTNLAB, *map(str, args), "--course", REPO],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "120", **(env or {})},
    )


def fixture(kind: str, name: str):
    return read_fixture(SUBMISSIONS / kind / f"{name}.py")


def fresh_tmpdir(tmp_path: Path) -> Path:
    """A temporary folder the grader's sandboxes go in: as root the workers' private users need
    one outside /tmp's subfolders (``host.workroot_base``), so one in /var/tmp where it can be."""
    if os.geteuid() == 0 and os.access("/var/tmp", os.W_OK):
        folder = Path(tempfile.mkdtemp(prefix="attnlab-test-tmpdir-", dir="/var/tmp"))
        folder.chmod(0o755)
        return folder
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    return folder


def grade_watching_tmpdir(args: list, tmpdir: Path, recordings: Path) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Grade with TMPDIR=``tmpdir`` and the user's recordings in ``recordings``; also the names of
    the sandbox folders seen in TMPDIR meanwhile."""
    command = [*ATTNLAB, *map(str, args), "--course", str(REPO)]
    env = {**os.environ, "COLUMNS": "120", "TMPDIR": str(tmpdir), "ATTNLAB_RECORDINGS": str(recordings)}
    seen: set[str] = set()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as process:
        while process.poll() is None:
            seen.update(n for n in os.listdir(tmpdir) if n.startswith("attnlab-sandbox-"))
            time.sleep(0.05)
        stdout, stderr = process.communicate()
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr), seen


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A class of five, graded on three files: right, one named mistake, hostile HTML, a missing and
    an unimportable file, and no exercise file at all; then its feedback written."""
    root = tmp_path_factory.mktemp("feedback")
    classroom = root / "class"
    build_submission(classroom / "ada", fixture("correct", "softmax_logsumexp"))
    build_submission(classroom / "carl", fixture("buggy", "scores_scaled_by_d_k"))
    build_submission(classroom / "eve", fixture("hostile", "scripts_its_feedback_page"))
    bob = build_submission(classroom / "bob", fixture("correct", "softmax_logsumexp"))
    (bob / "scores.py").unlink()
    (bob / "masks.py").write_text((bob / "masks.py").read_text() + "\ndef broken(:\n")
    (classroom / "empty-handed").mkdir()
    (classroom / "empty-handed" / "notes.txt").write_text("I did not do it")
    tmpdir = fresh_tmpdir(root)
    try:
        # No recording kept anywhere yet: the first run records the reference's (and says so).
        first, sandboxes = grade_watching_tmpdir(
            ["grade", classroom, *ONLY, "--jobs", "2"], tmpdir, root / "recordings"
        )
        left = sorted(os.listdir(tmpdir))
    finally:
        if str(tmpdir).startswith("/var/tmp/"):
            shutil.rmtree(tmpdir, ignore_errors=True)
    written = attnlab("feedback", classroom)
    return {
        "root": root,
        "class": classroom,
        "first": first,
        "sandboxes": sandboxes,
        "left": left,
        "written": written,
        "out": root / "class.feedback",
    }


def stored(graded, student: str) -> dict:
    return json.loads((graded["root"] / "class.results" / f"{student}.json").read_text())


def test_the_class_run_leaves_nothing_in_tmpdir(graded):
    assert graded["first"].returncode == 0, graded["first"].stderr[-2000:]
    if os.geteuid() == 0:  # a sandbox per grading process, in the TMPDIR it was given
        assert graded["sandboxes"], (
            "the grading processes' sandboxes were not made in TMPDIR: the check below proves nothing"
        )
    assert graded["left"] == []


def test_the_class_summary_separates_missing_files_and_names_the_mistake(graded):
    out = graded["first"].stdout
    assert RECORDING in graded["first"].stderr
    # Whose files, by name: the summary once counted them only.
    assert "File missing / not importable:\n  masks.py: 1 student (bob)\n  scores.py: 1 student (bob)\n" in out, out
    table = out[out.index("Tests most students answer wrong") :]
    assert NAMED_MISTAKE in table
    assert "could not be imported" not in table  # bob's missing and broken files are not wrong answers
    assert not re.search(r"│ error\s+│", table)


def test_every_student_gets_a_folder_of_their_own_feedback(graded):
    assert graded["written"].returncode == 0, graded["written"].stderr
    out = graded["out"]
    assert {p.name for p in out.iterdir() if p.is_dir()} == STUDENTS
    assert (out / "_class-summary.html").is_file()
    for student in STUDENTS:
        assert sorted(p.name for p in (out / student).iterdir()) == ["feedback.html", "feedback.md"]
        page = (out / student / "feedback.html").read_text()
        assert str(graded["class"]) not in page  # the instructor's folders are not handed back
        report = stored(graded, student)["report"]
        if report is None:
            assert (
                "Not graded: 0 points" in page and "Not graded: 0 points" in (out / student / "feedback.md").read_text()
            )
        else:
            assert f"<strong>{report['score']:g} / {report['max_score']:g}</strong>" in page
            assert f"**{report['score']:g} of" in (out / student / "feedback.md").read_text()
    assert NAMED_MISTAKE in (out / "carl" / "feedback.html").read_text()


def dump(tmp_path, page: Path) -> str:
    result = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    assert not console_errors(result.stderr), console_errors(result.stderr)
    return result.stdout


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_every_page_opens_in_chromium_and_no_student_script_runs(graded, tmp_path):
    out = graded["out"]
    pages = {
        page: dump(tmp_path, page)
        for page in [out / "_class-summary.html", *(out / s / "feedback.html" for s in sorted(STUDENTS))]
    }
    for page, dom in pages.items():
        assert "data-pwned" not in dom, page
    eve = pages[out / "eve" / "feedback.html"]
    assert "&lt;script&gt;document.body.dataset.pwned = 'printed'&lt;/script&gt;" in eve  # shown as text
    assert "&lt;img src=\"x\" onerror=" in eve
    summary = pages[out / "_class-summary.html"]
    assert len(re.findall(r'<rect class="bar"', summary)) == 11
    assert NAMED_MISTAKE in summary


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_the_script_check_can_fail(graded, tmp_path, monkeypatch):
    """Eve's own words, on a page that forgot to escape them, do run: the check above can fail."""
    report = GradeReport.from_dict(stored(graded, "eve")["report"])
    monkeypatch.setattr(html_report.html, "escape", lambda text, quote=True: text)
    unescaped = tmp_path / "unescaped.html"
    unescaped.write_text(render_html(report, name="eve"))
    assert "data-pwned" in dump(tmp_path, unescaped)


class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.links = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.links += [value for name, value in attrs if name == "href"]


def test_the_class_page_links_each_student_and_counts_missing_files_apart(graded):
    parser = Tags()
    parser.feed((graded["out"] / "_class-summary.html").read_text())
    assert not {"script", "img", "iframe"} & set(parser.tags)
    assert sorted(parser.links) == sorted(f"{s}/feedback.html" for s in STUDENTS)
    assert all((graded["out"] / link).is_file() for link in parser.links)
    page = (graded["out"] / "_class-summary.html").read_text()
    assert "<li>masks.py: 1 student (bob)</li>" in page and "<li>scores.py: 1 student (bob)</li>" in page
    missed = page[page.index('class="summary most-missed"') :].split("</table>")[0]
    assert "could not be imported" not in missed and NAMED_MISTAKE in missed


def test_the_markdown_renders_only_the_graders_words(graded):
    for student in STUDENTS:
        text = (graded["out"] / student / "feedback.md").read_text()
        tokens = markdown_tokens(text)
        assert not {t.type for t in tokens} & {"html_block", "html_inline", "link_open", "image"}, student
        assert MarkdownIt("commonmark").render(text).startswith(f"<h1>attnlab feedback · {student}</h1>"), student
    eve = markdown_tokens((graded["out"] / "eve" / "feedback.md").read_text())
    assert any("<script>" in t.content for t in eve if t.type == "fence")


def test_grade_with_student_prints_their_own_table_and_reuses_the_recording(graded):
    result = attnlab("grade", graded["class"], *ONLY, "--student", "carl", "--explain")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Hint: Use np.sqrt(d_k)" in result.stdout  # --explain: the whole feedback
    assert RECORDING not in result.stderr  # the kept recording was reused
    assert "attnlab grade ·" in result.stdout and "carl" in result.stdout and "attention_scores" in result.stdout
    assert "Score distribution" not in result.stdout
    assert NAMED_MISTAKE in result.stdout


def test_feedback_for_one_student_writes_their_folder_only(graded, tmp_path):
    result = attnlab("feedback", graded["class"], "--student", "carl", "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["carl"]


@pytest.mark.parametrize(
    "args, says",
    [
        (["--student", "zed"], "no stored result for zed"),
        (["--out", "INSIDE"], "inside the class folder"),
        (["--results", "NOWHERE"], "no results in"),
    ],
)
def test_bad_input_is_one_line(graded, tmp_path, args, says):
    args = [
        str(graded["class"] / "feedback") if a == "INSIDE" else str(tmp_path / "none") if a == "NOWHERE" else a
        for a in args
    ]
    result = attnlab("feedback", graded["class"], *args)
    assert result.returncode == 2 and says in result.stderr and len(result.stderr.strip().splitlines()) == 1, (
        result.stderr
    )
    assert not (graded["class"] / "feedback").exists()


def test_a_changed_submission_is_said_and_an_edited_result_refused(graded, tmp_path):
    classroom, results = tmp_path / "class", tmp_path / "results"
    shutil.copytree(graded["class"], classroom)
    shutil.copytree(graded["root"] / "class.results", results)
    (classroom / "ada" / "softmax.py").write_text((classroom / "ada" / "softmax.py").read_text() + "\n# changed\n")
    result = attnlab("feedback", classroom, "--results", results, "--out", tmp_path / "out")
    assert result.returncode == 0 and "changed since graded" in result.stderr and "ada" in result.stderr, result.stderr
    data = json.loads((results / "carl.json").read_text())
    data["report"]["tests"][0]["outcome"] = "forged"
    (results / "carl.json").write_text(json.dumps(data))
    result = attnlab("feedback", classroom, "--results", results, "--out", tmp_path / "out")
    assert result.returncode == 2 and "carl.json" in result.stderr and "Traceback" not in result.stderr, result.stderr


def test_only_files_named_by_a_student_id_are_taken(tmp_path):
    store = ResultStore(tmp_path)
    # ".." would be the folder above; "_class-summary" would be the class page's name.
    for name, student in (
        ("ada", "ada"),
        ("..", ".."),
        ("mallory", "ada"),
        ("_class-summary.html", "_class-summary.html"),
    ):
        (tmp_path / f"{name}.json").write_text(
            json.dumps({"student": student, "fingerprint": "f", "grader": "g", "report": None, "error": "x"})
        )
    assert list(stored_reports(store)) == ["ada"]


def test_at_80_columns_the_progress_bar_keeps_done_total_elapsed_and_eta():
    buffer = io.StringIO()
    console = Console(file=buffer, width=80, color_system=None)
    progress = ClassProgress(console, 14)
    outcomes = (
        ["passed"] * 50
        + ["failed"] * 7
        + ["not implemented"] * 12
        + ["timed out"] * 3
        + ["error"] * 9
        + ["out of memory", "crashed"]
    )
    for _ in range(3):
        progress.graded({"report": {"tests": [{"outcome": o} for o in outcomes]}, "error": None})
    console.print(progress.progress.get_renderable())
    line = buffer.getvalue().rstrip("\n")
    assert "\n" not in line and len(line) <= 80
    assert re.match(r"Grading\s+3/14 \d:\d\d:\d\d ETA (\d:\d\d:\d\d|-:--:--) ", line), line
    assert "passed 150" in line


def test_a_students_score_line_rounds_points_as_people_write_them():
    # It once read "Graded 3 hidden tests: 0.333333 of 1.67 points."
    from attnlab.outcomes import Outcome
    from attnlab.results import TestResult

    def test(name: str, outcome: Outcome, earned: float, possible: float) -> TestResult:
        feedback = "" if outcome is Outcome.PASSED else "wrong values"
        return TestResult(
            f"softmax: {name}", "softmax", "softmax", outcome, earned, possible, feedback, None, None, "", 0.1
        )

    third = 1 / 3
    report = GradeReport(
        "ada",
        (
            test("a", Outcome.FAILED, 0.0, third),
            test("b", Outcome.PASSED, third, third),
            test("c", Outcome.PASSED, 1.0, 1.0),
        ),
        "bubblewrap",
        1.0,
    )
    first = report.summary_lines()[0]
    assert first == "Graded 3 hidden tests: 1.33 of 1.67 points.", first
    assert report.to_gradescope()["output"].startswith("Graded 3 hidden tests: 1.33 of 1.67 points.")


def test_the_sandbox_is_one_line_in_every_report_but_the_instructors_class_page_which_has_it_once():
    # Its 10-line paragraph was printed on every command, and twice on the class page (once per
    # grading process, whose private users differ only by their numbers).
    from attnlab.report.class_html import render_class_html
    from attnlab.report.sandbox_line import in_one_line
    from attnlab.sandbox.mode import SandboxMode

    bubblewrap = (
        "bubblewrap sandbox (no network, only the Python runtime and the submission visible), workers as a private"
        " user (uid {uid}), with rlimits and a deadline per call; each worker writes only into a memory folder of its"
        " own (64 MiB in all: its scratch folder and /tmp) and has an IPC namespace of its own, both gone with it"
    )
    assert in_one_line(bubblewrap.format(uid=61000)) == (
        "bubblewrap sandbox, workers as a private user, with rlimits and a deadline per call"
    )
    plain = SandboxMode(uid=None, bwrap=None, private_mounts=False).describe(False)
    assert in_one_line(plain).endswith("NOT isolated: student code can read and write whatever the grader can")
    assert "\n" not in in_one_line(plain)

    def result(student: str, uid: int) -> dict:
        report = {"score": 1.0, "max_score": 1.0, "tests": [], "sandbox": bubblewrap.format(uid=uid)}
        return {"student": student, "report": report, "error": None}

    page = render_class_html("class", [result("ada", 61000), result("bob", 61001)], [])
    assert page.count("bubblewrap sandbox (no network") == 1 and "uid 6100" not in page
