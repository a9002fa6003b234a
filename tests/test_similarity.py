"""``attnlab similarity``: copies are paired, independent solutions and the stubs are not, and the
report is safe to open whatever the students wrote."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import shutil
import subprocess
import tokenize
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import COURSE, REPO, SUBMISSIONS, fixtures_in, read_fixture, splice

pytest.importorskip("copydetect", reason="attnlab similarity needs copydetect: pip install 'attnlab[similarity]'")

from attnlab.cli import main  # noqa: E402
from attnlab.similarity.html_report import render_html  # noqa: E402
from attnlab.similarity.reading import MAX_FILE_CHARACTERS, MAX_STUDENT_CHARACTERS, StudentCode, read_class  # noqa: E402
from attnlab.similarity import scoring  # noqa: E402
from attnlab.similarity.scoring import THRESHOLD, compare_class  # noqa: E402

MODULES = ["softmax", "scores", "masks", "attention"]
"""The files of the small classes: enough code to copy, little to tokenize."""
STUBS = {m: (COURSE.exercises_dir / f"{m}.py").read_text() for m in COURSE.modules}
REFERENCE = {m: (COURSE.solutions_dir / f"{m}.py").read_text() for m in COURSE.modules}
BUG = read_fixture(SUBMISSIONS / "buggy" / "sdpa_softmax_over_queries.py")


def renamed_without_comments(source: str) -> str:
    """``source`` as a student who copied it would hide it: every name a function binds (its
    arguments, its variables) renamed and every comment gone, the layout and the working code kept
    (keyword arguments, attributes and imports keep their names; so do names inside f-strings,
    which matters to no comparison: strings are filtered out)."""
    bound = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bound.update(a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs))
            bound.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    new_names = {name: f"renamed_{number}" for number, name in enumerate(sorted(bound - {"self", "cls"}))}
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    edits, depth, line_start = [], 0, None  # (row, start column, end column, new text)
    for index, token in enumerate(tokens):
        if token.type == tokenize.NEWLINE or (token.type == tokenize.NL and depth == 0):
            line_start = None  # the logical line ends
            continue
        if line_start is None and token.type not in (tokenize.INDENT, tokenize.DEDENT):
            line_start = token.string
        if token.type == tokenize.OP:
            depth += (token.string in "([{") - (token.string in ")]}")
        following = tokens[index + 1].string if index + 1 < len(tokens) else ""
        if token.type == tokenize.COMMENT:
            edits.append((*token.start, token.end[1], ""))
        elif (
            token.type == tokenize.NAME
            and token.string in new_names
            and line_start not in ("import", "from")
            and tokens[index - 1].string != "."
            and not (depth > 0 and following == "=" and line_start != "def")
        ):
            edits.append((*token.start, token.end[1], new_names[token.string]))
    lines = source.splitlines(keepends=True)
    for row, start, end, text in sorted(edits, reverse=True):
        lines[row - 1] = lines[row - 1][:start] + text + lines[row - 1][end:]
    return "".join(lines)


def reworked(source: str) -> str:
    """``renamed_without_comments``, its docstrings deleted too and its layout redone
    (``ast.unparse``: parentheses, line breaks, quotes)."""
    tree = ast.parse(renamed_without_comments(source))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and ast.get_docstring(node):
            node.body = node.body[1:] or [ast.Pass()]
    return ast.unparse(tree) + "\n"


def hand_in(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True)
    for module, text in files.items():
        (folder / f"{module}.py").write_text(text)
    return folder


def filled(module: str, student_code: str) -> str:
    """The stub of ``module`` with the student's functions in place of its own."""
    return splice(STUBS[module], student_code)


@pytest.fixture(scope="module")
def small_class(tmp_path_factory) -> Path:
    """ada hands in the reference with a bug; ann the same files; ben ada's files renamed and
    stripped of comments; cy and dee the stubs as released; eve and fay one line each."""
    folder = tmp_path_factory.mktemp("class")
    ada = {m: REFERENCE[m] for m in MODULES}
    ada["attention"] = splice(ada["attention"], BUG.path.read_text())
    hand_in(folder / "ada", ada)
    hand_in(folder / "ann", ada)
    hand_in(folder / "ben", {m: renamed_without_comments(text) for m, text in ada.items()})
    hand_in(folder / "cy", {m: STUBS[m] for m in MODULES})
    hand_in(folder / "dee", {m: STUBS[m] for m in MODULES})
    one_line = "def softmax(x, axis=-1):\n    return np.exp(x) / np.exp(x).sum(axis=axis, keepdims=True)\n"
    hand_in(folder / "eve", {**{m: STUBS[m] for m in MODULES}, "softmax": filled("softmax", one_line)})
    hand_in(folder / "fay", {**{m: STUBS[m] for m in MODULES}, "softmax": filled("softmax", one_line)})
    return folder


@pytest.fixture(scope="module")
def small_result(small_class):
    code = read_class(small_class, COURSE)
    return compare_class(code.students, STUBS)


def pair_of(result, a: str, b: str):
    found = [p for p in result.pairs if {p.a, p.b} == {a, b}]
    return found[0] if found else None


def test_identical_files_with_the_same_bug_are_the_top_pair(small_result):
    top = small_result.above()[0]
    assert {top.a, top.b} == {"ada", "ann"}
    assert top.score == 1.0 and {f.module for f in top.files} == set(MODULES)


def test_a_copy_with_names_renamed_and_no_comments_is_paired_with_its_source(small_result):
    disguised = renamed_without_comments(REFERENCE["scores"])
    assert "renamed_" in disguised and "### BEGIN SOLUTION" not in disguised
    pair = pair_of(small_result, "ada", "ben")
    assert pair is not None and pair.score >= THRESHOLD
    assert {f.module for f in pair.files if f.score >= THRESHOLD} >= {"scores", "masks", "attention"}


def test_the_stubs_and_one_line_each_make_no_pair(small_result):
    """cy and dee hand in the stubs untouched; eve and fay fill in the same one line: the stubs'
    text is subtracted, and one line in common is too little to be evidence."""
    involved = {s for p in small_result.pairs for s in (p.a, p.b)}
    assert not involved & {"cy", "dee", "eve", "fay"}, [(p.a, p.b, p.score) for p in small_result.pairs]


def test_independent_correct_solutions_are_not_paired():
    """The reference and each correct variant of tests/submissions/correct, every variant handed in
    as its functions in the released stub: written apart, so none scores THRESHOLD against the
    reference. Two kinds are not independent, and are paired: flash_refuses_through_range is the
    reference's flash_attention with its first check changed, and the torch variants are one
    author's template (the same __init__ and RoPE, a different forward), so they are paired with
    each other, not with the reference.

    THRESHOLD sits between the highest score of an independent solution against the reference
    (0.39: torch_rope_complex, much of torch_attention.py dictated by its contract) and the lowest
    file score of a copy hidden by renaming, deleting comments and docstrings and redoing the
    layout (0.70: test_threshold_has_room_on_both_sides)."""
    students = [StudentCode("reference", dict(REFERENCE))]
    for fixture in fixtures_in("correct"):
        module = fixture.file.removesuffix(".py")
        students.append(StudentCode(fixture.path.stem, {module: filled(module, fixture.path.read_text())}))
    result = compare_class(students, STUBS)
    against_reference = {p.b if p.a == "reference" else p.a: p.score for p in result.pairs if "reference" in (p.a, p.b)}
    derived = {"flash_refuses_through_range"}
    assert against_reference["flash_refuses_through_range"] >= THRESHOLD  # the detector sees a derivative
    assert max(score for name, score in against_reference.items() if name not in derived) < THRESHOLD - 0.05
    for pair in result.above():
        if "reference" not in (pair.a, pair.b):
            assert pair.a.startswith("torch_") and pair.b.startswith("torch_"), (pair.a, pair.b, pair.score)


@pytest.mark.parametrize("disguise", [renamed_without_comments, reworked])
def test_threshold_has_room_on_both_sides(disguise):
    """Every file of the reference hidden as a copier would hide it scores well above THRESHOLD
    against the reference where the two share MIN_SHARED characters or more (a three-line softmax
    reworked does not: too little to be evidence). Renamed without comments, every file scores
    100%; reworked too, 70% (attention.py) and more."""
    students = [
        StudentCode("source", dict(REFERENCE)),
        StudentCode("copy", {m: disguise(text) for m, text in REFERENCE.items()}),
    ]
    (pair,) = compare_class(students, STUBS).pairs
    assert min(f.score for f in pair.files) >= THRESHOLD + 0.15, [(f.module, f.score) for f in pair.files]
    assert len(pair.files) >= len(COURSE.modules) - 1


def test_processes_score_as_one_process_does(monkeypatch):
    monkeypatch.setattr(scoring, "FILES_PER_TASK", 2)
    students = [StudentCode(f"s{n}", {m: REFERENCE[m] + f"\nx{n} = {n}\n" for m in MODULES}) for n in range(4)]
    students.append(StudentCode("copy", {m: renamed_without_comments(t) for m, t in students[0].files.items()}))
    alone, forked = compare_class(students, STUBS, jobs=1), compare_class(students, STUBS, jobs=2)
    assert [(p.a, p.b, p.score, p.shared) for p in alone.pairs] == [(p.a, p.b, p.score, p.shared) for p in forked.pairs]
    assert alone.pairs


def test_a_class_is_read_as_grading_reads_it(tmp_path):
    """A zip, a notebook and a folder nested in a zip are each their student's code, with the ids
    grading gives them; a zip that is no submission is named in one line."""
    ada = {m: REFERENCE[m] for m in MODULES}
    with zipfile.ZipFile(tmp_path / "ada.zip", "w") as bundle:
        for module, text in ada.items():
            bundle.writestr(f"work/{module}.py", text)
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": ada["masks"], "outputs": [], "execution_count": None}
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "Ben Brown").mkdir()
    (tmp_path / "Ben Brown" / "masks.ipynb").write_text(json.dumps(notebook))
    (tmp_path / "cy.zip").write_bytes(b"not a zip")
    code = read_class(tmp_path, COURSE)
    assert [s.student for s in code.students] == ["Ben_Brown", "ada"]
    assert any(line.startswith("cy: not compared: cy.zip") for line in code.not_compared), code.not_compared
    (pair,) = compare_class(code.students, STUBS).pairs
    assert {pair.a, pair.b} == {"ada", "Ben_Brown"} and pair.files[0].module == "masks" and pair.score > 0.9


def test_swollen_files_cost_no_more_than_their_first_characters(tmp_path):
    """Tokenizing a file of stray bytes costs a token a character: a student who swells every file
    is compared on MAX_STUDENT_CHARACTERS in all, and told so."""
    hand_in(tmp_path / "ada", {m: STUBS[m] + "\x00" * 50_000 for m in COURSE.modules})
    hand_in(tmp_path / "ben", {"softmax": STUBS["softmax"]})
    code = read_class(tmp_path, COURSE)
    ada = next(s for s in code.students if s.student == "ada")
    assert max(map(len, ada.files.values())) == MAX_FILE_CHARACTERS
    assert sum(map(len, ada.files.values())) == MAX_STUDENT_CHARACTERS
    assert len(ada.notes) == len(COURSE.modules) and "only its first 40,000 characters" in ada.notes[0]


HOSTILE = '''def softmax(x, axis=-1):
    """</script><img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>"""
    # </pre><img src=x onerror=alert(1)>
    shifted = x - np.max(x, axis=axis, keepdims=True)  # <b>bold</b> & <i>
    label = "</script><img src=x onerror=alert(2)>"
    exps = np.exp(shifted)
    total = np.sum(exps, axis=axis, keepdims=True)
    return exps / total
'''


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory) -> Path:
    """Two students hand in the same hostile file: its text is in the passages shown."""
    folder = tmp_path_factory.mktemp("hostile")
    for student in ("mallory", "trudy"):
        hand_in(folder / "class" / student, {"softmax": filled("softmax", HOSTILE)})
    code = read_class(folder / "class", COURSE)
    result = compare_class(code.students, STUBS)
    assert result.above(), "the hostile pair must be shown for the page to test anything"
    page = folder / "similarity.html"
    page.write_text(render_html(result, title="Similar code · <class>", threshold=THRESHOLD, top=5))
    return page


def test_the_page_escapes_what_students_wrote(hostile_page):
    html = hostile_page.read_text()
    assert "<img" not in html and "<b>" not in html and html.count("<script") == 0
    assert "&lt;/script&gt;&lt;img src=x onerror=" in html
    assert "<mark>" in html and "mallory" in html and "trudy" in html


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"), reason="chromium is not installed")
def test_the_page_in_a_browser_runs_nothing_and_shows_the_passages(hostile_page, tmp_path):
    from test_html_report import FLAGS, console_errors

    result = subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            hostile_page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert not console_errors(result.stderr), console_errors(result.stderr)
    dom = result.stdout
    assert "<title>Similar code · &lt;class&gt;</title>" in dom  # no script changed it to 'pwned'
    assert "<img" not in dom and "pwned</title>" not in dom
    assert len(re.findall(r"<mark>", dom)) >= 2 and "</script>&lt;img" not in dom
    assert "&lt;/script&gt;&lt;img src=x onerror=" in dom


def run(*args):
    return CliRunner().invoke(main, ["similarity", *map(str, args), "--course", str(REPO)])


def test_the_terminal_shows_the_top_pairs_and_says_it_is_no_grade(small_class, tmp_path):
    result = run(small_class, "--html", tmp_path / "page.html")
    assert result.exit_code == 0, result.output
    rows = [line for line in result.stdout.splitlines() if re.match(r"│\s+\d+ │", line)]
    assert re.match(r"│\s+1 │ ada\s+│ ann\s+│\s+100% │", rows[0]), result.stdout
    assert "never a grade" in result.stdout
    page = (tmp_path / "page.html").read_text()
    assert "Wrote" in result.stderr and page.count("<h2 id=") == len(rows)
    # The stubs' lines (docstrings, signatures) are greyed, never marked as shared.
    assert '<span class="stub">    Shapes: ' in page and not re.search(r"<mark>[^<]*Shapes: ", page)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda tmp: tmp / "missing", "missing: no such folder"),
        (lambda tmp: hand_in(tmp / "one", {"softmax": STUBS["softmax"]}) / "softmax.py", "a file, not a class folder"),
        (lambda tmp: hand_in(tmp / "one", {"softmax": STUBS["softmax"]}), "one submission, not a class folder"),
        (lambda tmp: (tmp / "empty").mkdir() or tmp / "empty", "not a class folder (no folder or .zip in it holds"),
        (
            lambda tmp: hand_in(tmp / "class" / "ada", {"softmax": STUBS["softmax"]}).parent,
            "1 student with exercise files to compare",
        ),
    ],
    ids=["missing", "a file", "one submission", "empty", "one student"],
)
def test_bad_input_is_one_line(tmp_path, make, message):
    result = run(make(tmp_path))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("attnlab: error: ") and message in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_help_reads_well():
    result = CliRunner().invoke(main, ["similarity", "--help"], prog_name="attnlab")
    assert result.exit_code == 0 and result.stdout.startswith("Usage: attnlab similarity [OPTIONS] CLASS")
    assert "never a grade" in result.stdout and "--html FILE" in result.stdout
