"""The nbgrader export, proven with the real nbgrader: generate_assignment, then autograde.

A submission filled with the reference solutions scores full marks in nbgrader's own gradebook,
the untouched release scores zero, and a buggy one loses exactly the points `attnlab grade` takes.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import COURSE, SUBMISSIONS, build_submission, read_fixture

from attnlab.export.nbgrader import export_course
from attnlab.grading.suite import grade

nbgrader_api = pytest.importorskip("nbgrader.api", reason="nbgrader is a dev dependency: pip install -e '.[dev]'")

ASSIGNMENT = "attnlab"


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    # nbgrader runs `alembic` (and the kernel) from PATH: this interpreter's folder comes first.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, capture_output=True, text=True, timeout=900, env=env)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    return result


def fill_solutions(release: Path, source: Path, target: Path, replace: dict[str, str] | None = None) -> None:
    """A student's submission: the released notebooks with each solution cell answered by the
    reference (the source cell without nbgrader's markers), or by ``replace[grade_id]``."""
    target.mkdir(parents=True)
    for notebook in sorted(release.glob("*.ipynb")):
        released = json.loads(notebook.read_text())
        reference = json.loads((source / notebook.name).read_text())
        cells = {c["metadata"]["nbgrader"]["grade_id"]: c for c in reference["cells"] if "nbgrader" in c["metadata"]}
        for cell in released["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("solution"):
                code = "".join(cells[meta["grade_id"]]["source"])
                code = (replace or {}).get(meta["grade_id"], code)
                cell["source"] = "\n".join(line for line in code.splitlines() if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)
        (target / notebook.name).write_text(json.dumps(released))


@pytest.fixture(scope="module")
def autograded(tmp_path_factory):
    course = tmp_path_factory.mktemp("nbgrader-course")
    written = export_course(COURSE, course, ASSIGNMENT)
    assert [p.stem for p in written] == list(COURSE.modules)
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    release = course / "release" / ASSIGNMENT
    source = course / "source" / ASSIGNMENT
    submitted = course / "submitted"
    fill_solutions(release, source, submitted / "reference" / ASSIGNMENT)
    shutil.copytree(release, submitted / "untouched" / ASSIGNMENT)
    buggy = read_fixture(SUBMISSIONS / "buggy" / "causal_upper_triangular.py")
    bug = "".join(buggy.path.read_text().partition("def causal_mask")[1:]).split("\n\n\n")[0]
    fill_solutions(release, source, submitted / "buggy" / ASSIGNMENT, {"masks-causal_mask": bug})
    for notebook in (submitted / "buggy" / ASSIGNMENT).glob("*.ipynb"):
        if notebook.stem != "masks":
            notebook.unlink()  # a student who handed in one notebook: nbgrader grades what is there
    nbgrader(course, "autograde", ASSIGNMENT, "--force")
    with nbgrader_api.Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {}
        for student in ("reference", "untouched", "buggy"):
            submission = gradebook.find_submission(ASSIGNMENT, student)
            scores[student] = (submission.score, submission.max_score, {nb.name: nb.score for nb in submission.notebooks})
    return course, scores, buggy


def test_the_release_keeps_no_solution_or_hidden_test(autograded):
    course, *_ = autograded
    for notebook in (course / "release" / ASSIGNMENT).glob("*.ipynb"):
        text = notebook.read_text()
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text and "hidden_test(" not in text
        assert "raise NotImplementedError()" in text


def test_the_reference_scores_full_marks_with_the_graders_points(autograded):
    _, scores, _ = autograded
    score, max_score, _ = scores["reference"]
    assert max_score == grade(COURSE, COURSE.solutions_dir, in_process=True).max_score
    assert score == max_score > 0


def test_the_untouched_release_scores_zero(autograded):
    _, scores, _ = autograded
    assert scores["untouched"][0] == 0


def test_a_bug_costs_what_attnlab_grade_takes(autograded, tmp_path):
    _, scores, buggy = autograded
    expected = grade(COURSE, build_submission(tmp_path / "buggy", buggy), only=["masks"], in_process=True)
    assert 0 < expected.score < expected.max_score
    assert scores["buggy"][2]["masks"] == pytest.approx(expected.score)
    assert scores["buggy"][0] == pytest.approx(expected.score)  # the notebooks not handed in score nothing
