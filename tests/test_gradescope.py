"""The Gradescope autograder zip, unpacked into a temporary /autograder and run as Gradescope would."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
from conftest import COURSE, SUBMISSIONS, build_submission, gradescope_markdown_is_inert, read_fixture

from attnlab.export.gradescope import build_autograder_zip
from attnlab.grading.suite import grade

# Gradescope's documented fields (gradescope-autograders.readthedocs.io, "Autograder Specifications").
TOP_FIELDS = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
TEST_FIELDS = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format", "tags", "visibility", "extra_data"}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}


def check_results_format(results: dict) -> None:
    assert set(results) <= TOP_FIELDS, set(results) - TOP_FIELDS
    assert isinstance(results.get("score", 0.0), (int, float))
    assert results.get("visibility", "visible") in VISIBILITY
    for test in results.get("tests", []):
        assert set(test) <= TEST_FIELDS, set(test) - TEST_FIELDS
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float)) and 0 <= test["score"] <= test["max_score"]
        assert test["status"] in ("passed", "failed")
        assert test.get("visibility", "visible") in VISIBILITY and test.get("output_format", "text") in FORMATS
        assert isinstance(test["name"], str) and isinstance(test.get("output", ""), str) and all(isinstance(t, str) for t in test.get("tags", []))
    if "score" not in results:
        assert all("score" in t for t in results["tests"])


@pytest.fixture(scope="module")
def autograder(tmp_path_factory):
    """The zip, unpacked as Gradescope does: its contents in /autograder/source, run_autograder beside."""
    root = tmp_path_factory.mktemp("autograder")
    archive = root / "autograder.zip"
    names = build_autograder_zip(COURSE, archive)
    assert {"setup.sh", "run_autograder"} <= set(names)
    with zipfile.ZipFile(archive) as bundle:
        bundle.extractall(root / "source")
        assert not any(n.startswith("/") or ".." in n for n in bundle.namelist())
    (root / "run_autograder").write_bytes((root / "source" / "run_autograder").read_bytes())
    (root / "run_autograder").chmod(0o755)
    return root


def run_autograder(root, submission_files: dict[str, str]):
    submission = root / "submission"
    if submission.exists():
            shutil.rmtree(submission)
    submission.mkdir()
    for name, text in submission_files.items():
        (submission / name).parent.mkdir(parents=True, exist_ok=True)
        (submission / name).write_text(text)
    results = root / "results" / "results.json"
    results.unlink(missing_ok=True)
    env = {**os.environ, "ATTNLAB_AUTOGRADER_ROOT": str(root), "ATTNLAB_PYTHON": sys.executable}
    process = subprocess.run(["bash", str(root / "run_autograder")], capture_output=True, text=True, timeout=600, env=env, cwd=root)
    assert process.returncode == 0, process.stderr[-3000:]
    return json.loads(results.read_text())


def test_the_autograder_runs_the_bundled_grader_on_a_submission_and_agrees_with_attnlab_grade(autograder, tmp_path):
    fixture = read_fixture(SUBMISSIONS / "buggy" / "sdpa_mask_inverted.py")
    folder = build_submission(tmp_path / "sub", fixture)
    # Students upload into one folder of their own; the autograder finds the files in it.
    results = run_autograder(autograder, {f"my-work/{p.name}": p.read_text() for p in folder.glob("*.py")})
    check_results_format(results)
    expected = grade(COURSE, folder).to_gradescope()
    assert results["score"] == expected["score"] < expected["extra_data"]["max_score"]
    assert [(t["name"], t["score"], t["status"]) for t in results["tests"]] == [(t["name"], t["score"], t["status"]) for t in expected["tests"]]
    lost = [t for t in results["tests"] if t["status"] == "failed"]
    assert lost and all("scaled_dot_product_attention" in t["name"] for t in lost)
    assert any("Known mistake" in t["output"] for t in lost)


def test_an_upload_without_exercise_files_still_gets_a_results_file(autograder):
    results = run_autograder(autograder, {"notes.txt": "I did not finish"})
    check_results_format(results)
    assert results["score"] == 0 and "No exercise file was found" in results["output"]


def test_an_unreadable_notebook_is_named_not_called_missing(autograder):
    results = run_autograder(autograder, {"softmax.ipynb": '{"cells": {"not": "a list"}}'})
    check_results_format(results)
    assert results["score"] == 0 and results["output"] == "Your upload could not be read: softmax.ipynb: not a readable notebook (it has no list of cells)."


@pytest.mark.parametrize("upload", ["file", "folder"])
def test_an_upload_that_links_to_the_solutions_is_refused_by_name(autograder, upload):
    # Gradescope unpacks an uploaded zip with its links: one to the autograder's own solutions
    # must not be graded as the student's work.
    solutions = autograder / "source" / "solutions"
    submission = autograder / "submission"
    shutil.rmtree(submission, ignore_errors=True)
    submission.mkdir()
    if upload == "file":
        (submission / "softmax.py").symlink_to(solutions / "softmax.py")
    else:
        (submission / "work").symlink_to(solutions, target_is_directory=True)
    env = {**os.environ, "ATTNLAB_AUTOGRADER_ROOT": str(autograder), "ATTNLAB_PYTHON": sys.executable}
    process = subprocess.run(["bash", str(autograder / "run_autograder")], capture_output=True, text=True, timeout=600, env=env, cwd=autograder)
    assert process.returncode == 0, process.stderr[-3000:]
    results = json.loads((autograder / "results" / "results.json").read_text())
    check_results_format(results)
    named = "softmax.py" if upload == "file" else "work"
    assert results["score"] == 0 and results["output"].startswith(f"Your upload could not be read: submission: {named} is a symbolic link"), results["output"]


def test_the_results_format_check_can_fail():
    with pytest.raises(AssertionError):
        check_results_format({"score": 1, "max_score": 2, "tests": []})
    with pytest.raises(AssertionError):
        check_results_format({"tests": [{"name": "x", "score": 3, "max_score": 2, "status": "passed"}]})


def test_student_markdown_in_the_autograders_results_is_inert(autograder, tmp_path):
    folder = build_submission(tmp_path / "sub", read_fixture(SUBMISSIONS / "hostile" / "writes_markdown_into_feedback.py"))
    results = run_autograder(autograder, {p.name: p.read_text() for p in folder.glob("*.py")})
    check_results_format(results)
    gradescope_markdown_is_inert(results, "writes_markdown_into_feedback")


@pytest.mark.skipif(os.geteuid() != 0, reason="workers change user only when the grader runs as root")
def test_without_bubblewrap_the_source_is_roots_alone_and_a_search_of_the_disk_finds_nothing(tmp_path):
    import tempfile
    from pathlib import Path

    # /autograder is readable by all in Gradescope's image: so is this copy of it.
    root = Path(tempfile.mkdtemp(prefix="attnlab-autograder-"))
    try:
        root.chmod(0o755)
        build_autograder_zip(COURSE, root / "autograder.zip")
        with zipfile.ZipFile(root / "autograder.zip") as bundle:
            bundle.extractall(root / "source")
        (root / "source" / "solutions" / "hidden_tests" / "THIS-COURSE").write_text("")  # the copy the search looks for
        for folder in (root / "source", root / "source" / "solutions", root / "source" / "solutions" / "hidden_tests"):
            folder.chmod(0o755)
        (root / "run_autograder").write_bytes((root / "source" / "run_autograder").read_bytes())
        os.environ["ATTNLAB_SANDBOX"] = "plain"
        try:
            correct = run_autograder(root, {p.name: p.read_text() for p in (COURSE.solutions_dir).glob("*.py")})
            searched = run_autograder(root, {"attention.py": build_submission(tmp_path / "s", read_fixture(SUBMISSIONS / "hostile" / "searches_the_disk_for_the_answers.py")).joinpath("attention.py").read_text()})
        finally:
            del os.environ["ATTNLAB_SANDBOX"]
        assert (root / "source").stat().st_mode & 0o777 == 0o700
        assert correct["score"] == correct["extra_data"]["max_score"], [t["output"][:300] for t in correct["tests"] if t["status"] == "failed"][:3]
        attention = [t for t in searched["tests"] if "attention" in t["name"] and t["name"].split(":")[0] in ("scaled_dot_product_attention", "self_attention", "cross_attention")]
        assert attention and all(t["status"] == "failed" for t in attention)
    finally:
        shutil.rmtree(root)
