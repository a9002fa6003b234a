"""The nbgrader export, round trip: the export's own notebooks, handed in, grade the same everywhere.

The real nbgrader makes the release (generate_assignment) and grades it (autograde); the same
handed-in notebooks are graded by the real ``attnlab grade`` command and by the Gradescope
autograder run as Gradescope runs it (test_gradescope's ``run_autograder``). The students:

- ``reference``: every released notebook answered with the reference: full marks in all three;
- ``untouched``: the release as it is: zero;
- ``buggy``: only ``masks.ipynb``, one solution cell wrong: the score ``attnlab grade --only masks``
  gives that file, in all three;
- ``explorer``: only ``softmax.ipynb``, answered, with cells of their own that import matplotlib
  (which no grader here holds), plot and print: softmax's full marks in all three, and the
  report of ``attnlab grade`` and of Gradescope names the cells it did not run.

The released notebooks are also run as a student would, in a Jupyter kernel that cannot import
attnlab: they import each other and pass their public tests.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import COURSE, REPO, SUBMISSIONS, build_submission, read_fixture
import test_gradescope
from test_gradescope import check_results_format, run_autograder

from attnlab.export.nbgrader import export_course
from attnlab.grading.suite import grade

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

autograder = test_gradescope.autograder  # the zip, unpacked as Gradescope does (a fixture)
nbgrader_api = pytest.importorskip("nbgrader.api", reason="nbgrader is a dev dependency: pip install -e '.[dev]'")

ASSIGNMENT = "attnlab"
STUDENTS = ("reference", "untouched", "buggy", "explorer")
EXPLORATION = [
    "import matplotlib.pyplot as plt",
    "weights = softmax(np.array([[1.0, 2.0], [0.5, 0.5]]))\nplt.imshow(weights)\nprint(weights)",
]


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    # nbgrader runs `alembic` (and the kernel) from PATH: this interpreter's folder comes first.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(
        [sys.executable, "-m", "nbgrader", *args], cwd=course, capture_output=True, text=True, timeout=900, env=env
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    return result


def fill_solutions(
    release: Path, source: Path, target: Path, replace: dict[str, str] | None = None, only: str | None = None
) -> None:
    """A student's submission: the released notebooks (or ``only`` one) with each solution cell
    answered by the reference (the source cell without nbgrader's markers), or by ``replace[grade_id]``."""
    target.mkdir(parents=True)
    for notebook in sorted(release.glob("*.ipynb")):
        if only and notebook.stem != only:
            continue
        released = json.loads(notebook.read_text())
        reference = json.loads((source / notebook.name).read_text())
        cells = {c["metadata"]["nbgrader"]["grade_id"]: c for c in reference["cells"] if "nbgrader" in c["metadata"]}
        for cell in released["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("solution"):
                code = "".join(cells[meta["grade_id"]]["source"])
                code = (replace or {}).get(meta["grade_id"], code)
                cell["source"] = "\n".join(
                    line
                    for line in code.splitlines()
                    if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line
                )
        (target / notebook.name).write_text(json.dumps(released))


def add_exploration(notebook: Path) -> None:
    """Cells a student adds: an import first, after the set-up, and a plot at the end."""
    document = json.loads(notebook.read_text())
    first, last = (
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": s} for s in EXPLORATION
    )
    document["cells"].insert(2, first)
    document["cells"].append(last)
    notebook.write_text(json.dumps(document))


@pytest.fixture(scope="module")
def course_folder(tmp_path_factory):
    """The exported course, released by nbgrader, with the students' notebooks in submitted/."""
    course = tmp_path_factory.mktemp("nbgrader-course")
    written = export_course(COURSE, course, ASSIGNMENT)
    assert [p.stem for p in written] == list(COURSE.modules)
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--force")
    release, source, submitted = course / "release" / ASSIGNMENT, course / "source" / ASSIGNMENT, course / "submitted"
    fill_solutions(release, source, submitted / "reference" / ASSIGNMENT)
    shutil.copytree(release, submitted / "untouched" / ASSIGNMENT)
    buggy = read_fixture(SUBMISSIONS / "buggy" / "causal_upper_triangular.py")
    bug = "".join(buggy.path.read_text().partition("def causal_mask")[1:]).split("\n\n\n")[0]
    # A student who handed in one notebook: every grader grades what is there.
    fill_solutions(release, source, submitted / "buggy" / ASSIGNMENT, {"masks-causal_mask": bug}, only="masks")
    fill_solutions(release, source, submitted / "explorer" / ASSIGNMENT, only="softmax")
    add_exploration(submitted / "explorer" / ASSIGNMENT / "softmax.ipynb")
    return course, buggy


@pytest.fixture(scope="module")
def autograded(course_folder):
    """nbgrader's autograde: each student's (total, max, {notebook: score})."""
    course, _ = course_folder
    nbgrader(course, "autograde", ASSIGNMENT, "--force")
    with nbgrader_api.Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {}
        for student in STUDENTS:
            submission = gradebook.find_submission(ASSIGNMENT, student)
            scores[student] = (
                submission.score,
                submission.max_score,
                {nb.name: nb.score for nb in submission.notebooks},
            )
    return scores


@pytest.fixture(scope="module")
def attnlab_graded(course_folder, tmp_path_factory):
    """The real ``attnlab grade`` on each student's handed-in folder: Gradescope-format results."""
    course, _ = course_folder
    out = tmp_path_factory.mktemp("attnlab-grade")
    results = {}
    for student in ("reference", "buggy", "explorer"):
        command = [
            sys.executable,
            "-m",
            "attnlab.cli",
            "grade",
            str(course / "submitted" / student / ASSIGNMENT),
            "--json",
            str(out / f"{student}.json"),
            "--course",
            str(REPO),
        ]
        process = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert process.returncode == 0, process.stderr[-3000:]
        results[student] = json.loads((out / f"{student}.json").read_text())
    return results


@pytest.fixture(scope="module")
def gradescope_graded(course_folder, autograder):
    """The Gradescope autograder, each student's notebooks uploaded as they are."""
    course, _ = course_folder
    results = {}
    for student in ("reference", "buggy", "explorer"):
        folder = course / "submitted" / student / ASSIGNMENT
        results[student] = run_autograder(autograder, {p.name: p.read_text() for p in folder.glob("*.ipynb")})
        check_results_format(results[student])
    return results


@pytest.fixture(scope="module")
def expected_bug(course_folder, tmp_path_factory):
    """What ``attnlab grade --only masks`` gives the bug, as a .py file."""
    _, buggy = course_folder
    return grade(COURSE, build_submission(tmp_path_factory.mktemp("buggy"), buggy), only=["masks"])


def test_the_release_keeps_no_solution_or_hidden_test(course_folder):
    course, _ = course_folder
    for notebook in (course / "release" / ASSIGNMENT).glob("*.ipynb"):
        text = notebook.read_text()
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text and "hidden_test" not in text
        assert "raise NotImplementedError()" in text


def test_the_release_needs_no_attnlab_and_has_the_public_tests(course_folder):
    course, _ = course_folder
    release = course / "release" / ASSIGNMENT
    assert sorted(p.name for p in release.glob("*.py")) == ["notebook_imports.py", "public_checks.py"]
    for path in release.iterdir():
        text = path.read_text()
        assert "attnlab." not in text.replace("attnlab export nbgrader", ""), path.name
        if path.suffix == ".ipynb":
            public = [
                c
                for c in json.loads(text)["cells"]
                if c["metadata"].get("nbgrader", {}).get("grade_id", "").startswith("public-tests-")
            ]
            assert len(public) == 1 and "run_public_tests([test_" in "".join(public[0]["source"]), path.name


def test_the_reference_scores_full_marks_in_all_three_graders(autograded, attnlab_graded, gradescope_graded):
    full = grade(COURSE, COURSE.solutions_dir, in_process=True).max_score
    score, max_score, _ = autograded["reference"]
    # nbgrader adds the cells' points as floats (0.333333 + 0.333334 + ...), so its total (366 points) can
    # come out a hair below (344.99999999999994 for 345): full marks are its own maximum, and the course's within that.
    assert score == max_score == pytest.approx(full, rel=0, abs=1e-9) and full > 0
    for results in (attnlab_graded["reference"], gradescope_graded["reference"]):
        assert results["score"] == full, [t["name"] for t in results["tests"] if t["status"] == "failed"][:5]
        assert (
            "Not graded" not in results["output"] and "not run" not in results["output"]
        )  # the course's own cells are not the student's


def test_the_untouched_release_scores_zero(autograded):
    assert autograded["untouched"][0] == 0


def test_one_buggy_cell_costs_what_attnlab_grade_only_takes_in_all_three(
    autograded, attnlab_graded, gradescope_graded, expected_bug
):
    assert 0 < expected_bug.score < expected_bug.max_score
    assert autograded["buggy"][2]["masks"] == pytest.approx(expected_bug.score)
    assert autograded["buggy"][0] == pytest.approx(expected_bug.score)  # the notebooks not handed in score nothing
    assert attnlab_graded["buggy"]["score"] == pytest.approx(expected_bug.score)
    assert gradescope_graded["buggy"]["score"] == pytest.approx(expected_bug.score)
    lost = {t["name"] for t in gradescope_graded["buggy"]["tests"] if t["status"] == "failed" and "masks" in t["tags"]}
    assert lost and lost == {t.name for t in expected_bug.tests if t.score < t.max_score}


def test_a_notebook_with_a_matplotlib_cell_is_graded_right_and_told_what_was_skipped(
    autograded, attnlab_graded, gradescope_graded
):
    full_softmax = sum(
        t.max_score for t in grade(COURSE, COURSE.solutions_dir, only=["softmax"], in_process=True).tests
    )
    assert autograded["explorer"][2]["softmax"] == full_softmax
    note = "notebook cells not run, as no function of yours uses them (plots, prints, trying things out): softmax.ipynb cell 3 `import matplotlib.pyplot as plt`"
    for results in (attnlab_graded["explorer"], gradescope_graded["explorer"]):
        assert results["score"] == full_softmax
        assert note in results["output"] and "`plt.imshow(weights)`" in results["output"]


def test_a_failing_hidden_cell_shows_the_graders_feedback_only(course_folder, autograded):
    course, _ = course_folder
    notebook = json.loads((course / "autograded" / "buggy" / ASSIGNMENT / "masks.ipynb").read_text())
    errors = [
        o
        for c in notebook["cells"]
        if c["metadata"].get("nbgrader", {}).get("grade")
        for o in c.get("outputs", [])
        if o.get("output_type") == "error"
    ]
    assert errors
    for error in errors:
        shown = "\n".join(error["traceback"])
        assert error["ename"] == "AssertionError" and "Unexpected exception formatting" not in shown
        assert (
            "site-packages" not in shown and "attnlab/export" not in shown and "File " not in shown
        )  # only the cell's own lines
        assert error["evalue"].startswith("causal_mask: ")
    assert any("Known mistake" in e["evalue"] for e in errors)


def test_a_missing_sibling_notebook_answers_like_a_module(tmp_path):
    """nbgrader grades one notebook at a time: a sibling not there yet is a module whose
    functions say so when called, and whose dunder names (IPython asks for __file__) are absent."""
    helper = REPO / "grader" / "attnlab" / "export"
    code = (
        f"import sys\nsys.path.insert(0, {str(helper)!r})\nfrom notebook_imports import import_notebooks\n"
        f"import_notebooks(['softmax'], {str(tmp_path)!r})\nfrom softmax import softmax\nimport softmax as module\n"
        "assert not hasattr(module, '__file__') and not hasattr(module, '_repr_html_')\n"
        "try:\n    softmax([1.0])\nexcept RuntimeError as error:\n    print(error)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout.strip()
        == f"softmax.ipynb is not next to this notebook (in {tmp_path.resolve()}), so softmax.softmax cannot run here"
    )


def test_the_filled_release_runs_in_a_jupyter_kernel_without_attnlab(course_folder, tmp_path):
    """A student's Jupyter: the notebooks import each other and their public tests pass, with no attnlab."""
    import nbformat
    from nbclient import NotebookClient

    course, _ = course_folder
    folder = tmp_path / "student"
    shutil.copytree(course / "release" / ASSIGNMENT, folder)
    for notebook in (course / "submitted" / "reference" / ASSIGNMENT).glob("*.ipynb"):
        shutil.copyfile(notebook, folder / notebook.name)
    no_attnlab = "--IPKernelApp.exec_lines=['import sys; sys.modules[\"attnlab\"] = None']"
    for name in ("attention", "torch_attention"):  # attention imports three sibling notebooks
        notebook = nbformat.read(folder / f"{name}.ipynb", as_version=4)
        NotebookClient(
            notebook,
            timeout=300,
            kernel_name="python3",
            extra_arguments=[no_attnlab],
            resources={"metadata": {"path": str(folder)}},
        ).execute()
        public = next(
            c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("public-tests-")
        )
        printed = "".join(o.get("text", "") for o in public.outputs)
        assert printed.count("✓") >= 3 and "✗" not in printed, printed
    blocked = NotebookClient(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("import attnlab.expect")]),
        kernel_name="python3",
        extra_arguments=[no_attnlab],
        allow_errors=True,
    )
    assert (
        blocked.execute().cells[0].outputs[0]["ename"] == "ModuleNotFoundError"
    )  # the kernel above had no attnlab indeed
