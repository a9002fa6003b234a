"""The Gradescope autograder zip, unpacked into a temporary /autograder and run as Gradescope would."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
from markdown_it import MarkdownIt
from conftest import (
    COURSE,
    SUBMISSIONS,
    build_submission,
    gradescope_markdown_is_inert,
    read_fixture,
    the_only_course_marked_as_graded,
)

from attnlab.export.gradescope import build_autograder_zip
from attnlab.grading.suite import grade

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

# Gradescope's documented fields (gradescope-autograders.readthedocs.io, "Autograder Specifications").
TOP_FIELDS = {
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
}
TEST_FIELDS = {
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}


def check_results_format(results: dict) -> None:
    assert set(results) <= TOP_FIELDS, set(results) - TOP_FIELDS
    assert isinstance(results.get("score", 0.0), (int, float))
    assert results.get("visibility", "visible") in VISIBILITY
    for test in results.get("tests", []):
        assert set(test) <= TEST_FIELDS, set(test) - TEST_FIELDS
        assert (
            isinstance(test["score"], (int, float))
            and isinstance(test["max_score"], (int, float))
            and 0 <= test["score"] <= test["max_score"]
        )
        assert test["status"] in ("passed", "failed")
        assert test.get("visibility", "visible") in VISIBILITY and test.get("output_format", "text") in FORMATS
        assert (
            isinstance(test["name"], str)
            and isinstance(test.get("output", ""), str)
            and all(isinstance(t, str) for t in test.get("tags", []))
        )
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
    # What setup.sh does once the image has its libraries: record the reference's run.
    recorded = subprocess.run(
        [sys.executable, "-m", "attnlab.export.gradescope", str(root), "--record"],
        capture_output=True,
        text=True,
        cwd=root / "source",
        env={**os.environ, "PYTHONPATH": str(root / "source" / "grader")},
    )
    assert recorded.returncode == 0 and f"of {len(COURSE.modules)} exercise files" in recorded.stdout, recorded.stderr
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
    process = subprocess.run(
        ["bash", str(root / "run_autograder")], capture_output=True, text=True, timeout=600, env=env, cwd=root
    )
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
    assert [(t["name"], t["score"], t["status"]) for t in results["tests"]] == [
        (t["name"], t["score"], t["status"]) for t in expected["tests"]
    ]
    lost = [t for t in results["tests"] if t["status"] == "failed"]
    assert lost and all("scaled_dot_product_attention" in t["name"] for t in lost)
    named = [t for t in lost if "Known mistake" in t["output"]]
    assert named
    for test in named:
        # Rendered as Gradescope does (output_format md, CommonMark): the mistake, its explanation and
        # the hint are paragraphs of their own, and the grader's feedback a code block after them.
        assert test["output_format"] == "md"
        tokens = MarkdownIt("commonmark").parse(test["output"])
        paragraphs = [t.content for t in tokens if t.type == "inline"]
        assert paragraphs[0].startswith("**Known mistake:** ") and "Hint" not in paragraphs[0], paragraphs
        assert (
            paragraphs[2].startswith("**Hint:** ")
            and paragraphs[1]
            and "Known mistake" not in paragraphs[1] + paragraphs[2].partition("Hint")[2]
        )
        assert [t.type for t in tokens if t.level == 0].count("fence") >= 1
        html = MarkdownIt("commonmark").render(test["output"])
        assert html.startswith("<p><strong>Known mistake:</strong> ") and "<p><strong>Hint:</strong> " in html


def test_the_autograder_grades_on_the_recording_its_image_was_built_with(autograder):
    """setup.sh records the reference's run once; a submission's grading reads it, and records
    nothing (a Gradescope container lives one submission: a recording made there is lost)."""
    kept = {path: path.stat().st_mtime_ns for path in (autograder / "source" / ".recordings").glob("*.pickle")}
    assert len(kept) == len(COURSE.modules)
    results = run_autograder(autograder, {"softmax.py": (COURSE.solutions_dir / "softmax.py").read_text()})
    assert results["score"] > 0
    assert {path: path.stat().st_mtime_ns for path in (autograder / "source" / ".recordings").glob("*.pickle")} == kept
    setup = (autograder / "source" / "setup.sh").read_text()
    assert setup.index("pip install -q /autograder/source") < setup.index("--record") < setup.index("chmod 700")


def test_an_upload_without_exercise_files_still_gets_a_results_file(autograder):
    results = run_autograder(autograder, {"notes.txt": "I did not finish"})
    check_results_format(results)
    assert results["score"] == 0 and "No exercise file was found" in results["output"]


def test_an_unreadable_notebook_is_named_not_called_missing(autograder):
    results = run_autograder(autograder, {"softmax.ipynb": '{"cells": {"not": "a list"}}'})
    check_results_format(results)
    assert (
        results["score"] == 0
        and results["output"]
        == "Your upload could not be read: softmax.ipynb: not a readable notebook (it has no list of cells)."
    )


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
    process = subprocess.run(
        ["bash", str(autograder / "run_autograder")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=autograder,
    )
    assert process.returncode == 0, process.stderr[-3000:]
    results = json.loads((autograder / "results" / "results.json").read_text())
    check_results_format(results)
    named = "softmax.py" if upload == "file" else "work"
    assert results["score"] == 0 and results["output"].startswith(
        f"Your upload could not be read: submission: {named} is a symbolic link"
    ), results["output"]


def test_the_results_format_check_can_fail():
    with pytest.raises(AssertionError):
        check_results_format({"score": 1, "max_score": 2, "tests": []})
    with pytest.raises(AssertionError):
        check_results_format({"tests": [{"name": "x", "score": 3, "max_score": 2, "status": "passed"}]})


def test_student_markdown_in_the_autograders_results_is_inert(autograder, tmp_path):
    folder = build_submission(
        tmp_path / "sub", read_fixture(SUBMISSIONS / "hostile" / "writes_markdown_into_feedback.py")
    )
    results = run_autograder(autograder, {p.name: p.read_text() for p in folder.glob("*.py")})
    check_results_format(results)
    gradescope_markdown_is_inert(results, "writes_markdown_into_feedback")


@pytest.mark.skipif(os.geteuid() != 0, reason="workers change user only when the grader runs as root")
def test_without_bubblewrap_the_source_is_roots_alone_and_a_search_of_the_disk_finds_nothing(tmp_path):
    import tempfile
    from pathlib import Path

    # /autograder is readable by all in Gradescope's image: so is this copy of it.
    with the_only_course_marked_as_graded():
        root = Path(tempfile.mkdtemp(prefix="attnlab-autograder-"))
        try:
            root.chmod(0o755)
            build_autograder_zip(COURSE, root / "autograder.zip")
            with zipfile.ZipFile(root / "autograder.zip") as bundle:
                bundle.extractall(root / "source")
            (root / "source" / "solutions" / "hidden_tests" / "THIS-COURSE").write_text(
                ""
            )  # the copy the search looks for
            for folder in (
                root / "source",
                root / "source" / "solutions",
                root / "source" / "solutions" / "hidden_tests",
            ):
                folder.chmod(0o755)
            (root / "run_autograder").write_bytes((root / "source" / "run_autograder").read_bytes())
            os.environ["ATTNLAB_SANDBOX"] = "plain"
            try:
                correct = run_autograder(root, {p.name: p.read_text() for p in (COURSE.solutions_dir).glob("*.py")})
                searched = run_autograder(
                    root,
                    {
                        "attention.py": build_submission(
                            tmp_path / "s",
                            read_fixture(SUBMISSIONS / "hostile" / "searches_the_disk_for_the_answers.py"),
                        )
                        .joinpath("attention.py")
                        .read_text()
                    },
                )
            finally:
                del os.environ["ATTNLAB_SANDBOX"]
            assert (root / "source").stat().st_mode & 0o777 == 0o700
            assert correct["score"] == correct["extra_data"]["max_score"], [
                t["output"][:300] for t in correct["tests"] if t["status"] == "failed"
            ][:3]
            attention = [
                t
                for t in searched["tests"]
                if "attention" in t["name"]
                and t["name"].split(":")[0] in ("scaled_dot_product_attention", "self_attention", "cross_attention")
            ]
            assert attention and all(t["status"] == "failed" for t in attention)
        finally:
            shutil.rmtree(root)


def python_shim(folder, name: str, version: tuple[int, int]) -> None:
    """A ``python3.X`` on PATH that says it is ``version`` (the real interpreter behind it)."""
    shim = folder / name
    shim.write_text(
        f'#!/bin/sh\nexec {sys.executable} -c "import sys; sys.version_info = {version!r}; exec(sys.argv[1])" "$2"\n'
    )
    shim.chmod(0o755)


@pytest.mark.parametrize(
    "on_path, picked",
    [
        ({"python3": (3, 10)}, None),  # Gradescope's default image: Ubuntu 22.04's 3.10 is too old
        ({"python3": (3, 10), "python3.11": (3, 11), "python3.12": (3, 12)}, "python3.12"),
        ({"python3": (3, 12), "python3.13": (3, 13)}, "python3"),  # Ubuntu 24.04's own
    ],
)
def test_setup_sh_picks_a_python_the_course_allows(autograder, tmp_path, on_path, picked):
    import tomllib

    setup = autograder / "source" / "setup.sh"
    requires = tomllib.loads((COURSE.root / "pyproject.toml").read_text())["project"]["requires-python"]
    assert f'MIN_PYTHON="{requires.removeprefix(">=")}"' in setup.read_text()
    for name, version in on_path.items():
        python_shim(tmp_path, name, version)
    process = subprocess.run(
        [shutil.which("bash"), "-c", f"source {setup}; pick_python"],
        capture_output=True,
        text=True,
        env={"PATH": str(tmp_path)},
    )
    assert (process.stdout.strip() or None) == picked and process.returncode == (0 if picked else 1), process.stderr


def test_setup_sh_installs_torchs_cpu_build_and_is_valid_bash(autograder):
    setup = (autograder / "source" / "setup.sh").read_text()
    assert subprocess.run(["bash", "-n", str(autograder / "source" / "setup.sh")]).returncode == 0
    assert 'TORCH_VERSION="2.13.0"' in setup
    [torch_line] = [line for line in setup.splitlines() if "pip install" in line and "torch" in line]
    assert '"torch==$TORCH_VERSION" --index-url https://download.pytorch.org/whl/cpu' in torch_line
    assert setup.index("whl/cpu") < setup.index("pip install -q /autograder/source")  # before the course's torch range


@pytest.mark.parametrize("visibility", ["after_due_date", "hidden"])
def test_visibility_is_what_the_export_was_given(tmp_path, visibility):
    root = tmp_path / "autograder"
    root.mkdir()
    build_autograder_zip(COURSE, root / "autograder.zip", visibility=visibility)
    with zipfile.ZipFile(root / "autograder.zip") as bundle:
        bundle.extractall(root / "source")
    (root / "run_autograder").write_bytes((root / "source" / "run_autograder").read_bytes())
    results = run_autograder(root, {"softmax.py": (COURSE.solutions_dir / "softmax.py").read_text()})
    check_results_format(results)
    assert results["visibility"] == visibility and results["tests"]
    assert {t["visibility"] for t in results["tests"]} == {visibility}
    nothing = run_autograder(root, {"notes.txt": "nothing here"})
    assert nothing["visibility"] == "visible"  # a student can mend an upload that cannot be graded


def test_export_gradescope_refuses_an_unknown_visibility(tmp_path):
    command = [
        sys.executable,
        "-m",
        "attnlab.cli",
        "export",
        "gradescope",
        str(tmp_path / "a.zip"),
        "--visibility",
        "after_published",
        "--course",
        str(COURSE.root),
    ]
    process = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert process.returncode == 2 and "after_published" in process.stderr and "visible" in process.stderr
    assert not (tmp_path / "a.zip").exists()


def test_a_misnamed_upload_is_graded_as_the_file_meant_and_the_student_is_told(autograder):
    # "Attention.py" or "attention (1).py" cost the student every point of the file, and the page
    # said "the submission has no attention.py" once a test.
    reference = (COURSE.solutions_dir / "softmax.py").read_text()
    results = run_autograder(autograder, {"Softmax (1).py": reference})
    check_results_format(results)
    softmax = [t for t in results["tests"] if "softmax" in t["tags"]]
    assert softmax and all(t["status"] == "passed" for t in softmax)
    assert "About what you handed in: Softmax (1).py was graded as softmax.py" in results["output"]
    assert results["output"].count("the submission has no masks.py") == 1  # a missing file, said once
    assert "uid" not in results["output"] and "sandbox" not in results["output"]  # the instructor's business


def test_an_upload_with_two_drafts_is_refused_and_says_which(autograder):
    reference = (COURSE.solutions_dir / "softmax.py").read_text()
    results = run_autograder(autograder, {"v1/softmax.py": reference, "v2/softmax.py": reference})
    check_results_format(results)
    assert results["score"] == 0 and results["output"].startswith(
        "Your upload could not be read: submission: v1/ and v2/ each hold exercise files (drafts?): hand in one of them"
    )


def test_an_upload_of_two_copies_says_what_was_found(autograder):
    reference = (COURSE.solutions_dir / "softmax.py").read_text()
    results = run_autograder(autograder, {"Softmax.py": reference, "softmax (2).py": reference})
    check_results_format(results)
    assert (
        results["score"] == 0
        and "Found and not graded: Softmax.py and softmax (2).py: not graded, as either may be softmax.py: name the one to grade softmax.py."
        in results["output"]
    )
