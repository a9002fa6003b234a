"""A course's own environment: the packages student code may import, the same in every sandbox mode.

``[course] packages`` lists what student code may import besides the standard library, numpy and
a track's ``[course.needs]``; the sandbox shows those files and nothing else installed, with
bubblewrap or without. These tests grade real submissions in both modes, and try the names a
course must never offer (the grader itself, a path, the solutions' folders).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import COURSE, REPO, SUBMISSIONS, build_submission, grade_in_class, read_fixture

from attnlab.course import Course, CourseError
from attnlab.grading.suite import grade
from attnlab.outcomes import Outcome
from attnlab.sandbox.environment import SandboxEnvironment
from attnlab.sandbox.host import ForkServer, bwrap_path

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

MODES = ["bwrap", "plain"]
PACKAGES = SUBMISSIONS / "packages"
ATTNLAB = [str(Path(sys.executable).with_name("attnlab"))]


@contextlib.contextmanager
def sandbox_mode(mode: str):
    """Grade in ``mode``: "bwrap" (skipped where bubblewrap cannot run) or "plain"."""
    if mode == "bwrap" and bwrap_path() is None:
        pytest.skip("bubblewrap is not available here (it needs root and bwrap)")
    before = os.environ.get("ATTNLAB_SANDBOX")
    os.environ.pop("ATTNLAB_SANDBOX", None)
    if mode == "plain":
        os.environ["ATTNLAB_SANDBOX"] = "plain"
    try:
        yield
    finally:
        os.environ.pop("ATTNLAB_SANDBOX", None)
        if before is not None:
            os.environ["ATTNLAB_SANDBOX"] = before


def course_copy(folder: Path, packages: list[str] | None = None, extra: str = "") -> Path:
    """A copy of the bundled course in ``folder``, its ``packages`` line set, ``extra`` appended to course.toml."""
    for part in ("exercises", "solutions"):
        shutil.copytree(REPO / part, folder / part, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = folder / "exercises" / "course.toml"
    text = manifest.read_text()
    if packages is not None:
        text, replaced = re.subn(r"^packages = .*$", f"packages = {packages!r}".replace("'", '"'), text, flags=re.M)
        assert replaced == 1
    manifest.write_text(text + extra)
    return folder


def outcomes(report, module: str) -> dict[str, tuple[Outcome, str]]:
    """Each function of ``module``: its worst outcome's name and the first feedback of a test that did not pass."""
    found: dict[str, tuple[Outcome, str]] = {}
    for test in report.tests:
        if test.module == module and (test.function not in found or test.outcome is not Outcome.PASSED):
            if test.function not in found or found[test.function][0] is Outcome.PASSED:
                found[test.function] = (test.outcome, test.feedback)
    return found


@pytest.fixture(scope="module")
def einops_course(tmp_path_factory) -> Course:
    return Course.load(course_copy(tmp_path_factory.mktemp("einops-course"), ["einops"]))


@pytest.fixture(scope="module")
def submission(tmp_path_factory) -> Path:
    """Multi-head attention's heads split with einops, a scores.py that imports yaml, and a
    masks.py that imports the grader's own course reader."""
    folder = tmp_path_factory.mktemp("student")
    build_submission(folder, read_fixture(PACKAGES / "multihead_with_einops.py"))
    for fixture, file in (("scores_with_yaml.py", "scores.py"), ("masks_imports_the_grader.py", "masks.py")):
        other = build_submission(tmp_path_factory.mktemp("other"), read_fixture(PACKAGES / fixture))
        shutil.copyfile(other / file, folder / file)
    return folder


@pytest.mark.parametrize("mode", MODES)
def test_a_package_the_course_allows_is_importable_and_others_fail_in_their_file_only(mode, einops_course, submission):
    with sandbox_mode(mode):
        report = grade(einops_course, submission, only=["softmax", "scores", "masks", "multihead"])
    assert ("bubblewrap sandbox" in report.sandbox) == (mode == "bwrap")
    assert {f: o for f, (o, _) in outcomes(report, "multihead").items()} == dict.fromkeys(
        ["split_heads", "merge_heads", "multi_head_attention"], Outcome.PASSED
    )
    assert {o for o, _ in outcomes(report, "softmax").values()} == {Outcome.PASSED}, (
        "a file that imports nothing else is not touched"
    )
    ((outcome, feedback),) = set(outcomes(report, "scores").values())
    assert outcome is Outcome.ERROR
    assert (
        "`yaml` is not available to scores.py in this course (scores.py may import numpy, einops, Python's standard library and the course's files)"
        in feedback
    )
    # The grader's own modules are not the student's to import, in either mode (the rule refuses
    # them before the sandbox, which holds only its wire and worker, is even asked).
    ((outcome, feedback),) = set(outcomes(report, "masks").values())
    assert outcome is Outcome.ERROR and "`attnlab` is not available to masks.py in this course" in feedback


@pytest.mark.parametrize("mode", MODES)
def test_a_package_the_course_does_not_allow_fails_in_every_mode(mode, submission):
    # The bundled course offers no packages: einops is installed here, and must not import.
    with sandbox_mode(mode):
        report = grade(COURSE, submission, only=["multihead"])
    found = outcomes(report, "multihead")
    assert {o for o, _ in found.values()} == {Outcome.ERROR}
    assert all("`einops` is not available to multihead.py in this course" in feedback for _, feedback in found.values())


def test_the_course_warm_up_runs_before_workers_are_forked(tmp_path, capfd):
    warm = "import einops\neinops.warmed_by_the_course = True\n"
    course = course_copy(
        tmp_path / "course", ["einops"], 'einops = "solutions/warm_einops.py"\n'
    )  # course.toml ends in [course.warmup]
    (course / "solutions" / "warm_einops.py").write_text(warm)
    student = build_submission(tmp_path / "student", read_fixture(PACKAGES / "multihead_with_warm_einops.py"))
    report = grade(Course.load(course), student, only=["multihead"])
    assert outcomes(report, "multihead")["split_heads"][0] is Outcome.PASSED
    # A broken warm-up costs speed, never a grade: said once on stderr, and the grade is unchanged.
    (course / "solutions" / "warm_einops.py").write_text("raise RuntimeError('no warm-up today')\n")
    plain = build_submission(tmp_path / "plain", read_fixture(PACKAGES / "multihead_with_einops.py"))
    capfd.readouterr()
    report = grade(Course.load(course), plain, only=["multihead"])
    assert {o for o, _ in outcomes(report, "multihead").values()} == {Outcome.PASSED}
    assert "the course's warm-up for einops failed (RuntimeError: no warm-up today)" in capfd.readouterr().err


def test_the_bundled_torch_warm_up_runs_on_its_own():
    """The warm-up moved out of the engine into the course: it must still run (a broken one only prints)."""
    path = COURSE.warmups["torch"]
    run = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "attention" not in (REPO / "grader" / "attnlab" / "sandbox" / "inside" / "forkserver.py").read_text().lower()


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("attnlab", "it is the grader itself"),
        ("ATTNLAB", "it is the grader itself"),
        ("solutions", "reference solutions"),
        ("hidden_tests", "hidden tests"),
        ("../solutions", "never a path"),
        ("/usr/lib/python3", "never a path"),
        ("scikit-learn", "'scikit_learn'"),
        ("einops.layers", "its import name"),
        ("os", "standard library"),
        ("numpy", "always available"),
        ("softmax", "exercise file of the course"),
        (3, "must be a list of import names"),
    ],
)
def test_a_name_a_course_must_not_offer_is_refused_in_one_line(tmp_path, name, says):
    course = course_copy(tmp_path / "course")
    manifest = course / "exercises" / "course.toml"
    manifest.write_text(
        re.sub(r"^packages = .*$", f"packages = [{name!r}]".replace("'", '"'), manifest.read_text(), flags=re.M)
    )
    with pytest.raises(CourseError, match=re.escape(says)) as refused:
        Course.load(course)
    assert "\n" not in str(refused.value)


def test_a_track_library_is_checked_like_a_package(tmp_path):
    course = course_copy(tmp_path / "course")
    manifest = course / "exercises" / "course.toml"
    manifest.write_text(
        manifest.read_text().replace('torch_attention = ["torch"]', 'torch_attention = ["torch", "attnlab"]')
    )
    with pytest.raises(CourseError, match="it is the grader itself"):
        Course.load(course)


def test_a_warm_up_must_be_a_small_file_of_the_course(tmp_path):
    course = course_copy(tmp_path / "course")
    manifest = course / "exercises" / "course.toml"
    text = manifest.read_text()
    for value, says in (
        ('"/etc/passwd"', "inside the course folder"),
        ('"../outside.py"', "inside the course folder"),
        ('"solutions/none.py"', "does not exist"),
    ):
        manifest.write_text(text.replace('torch = "solutions/warmup_torch.py"', f"torch = {value}"))
        with pytest.raises(CourseError, match=says):
            Course.load(course)
    manifest.write_text(text + 'numpy = "solutions/warmup_torch.py"\n')
    with pytest.raises(CourseError, match="neither a library"):
        Course.load(course)


def test_a_package_that_is_not_installed_stops_grading_in_one_line(tmp_path):
    course = course_copy(tmp_path / "course", ["surely_not_installed_pkg"])
    run = subprocess.run(
        [*ATTNLAB, "grade", str(course / "solutions"), "--only", "softmax", "--course", str(course)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode != 0
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "surely_not_installed_pkg, which is not installed where the grader runs" in lines[0], (
        run.stderr
    )
    assert "Traceback" not in run.stderr


def test_the_sandbox_shows_what_the_course_offers_and_nothing_of_the_grader():
    environment = SandboxEnvironment.for_course(COURSE)
    names = {entry.name for entry in environment.entries}
    assert {"numpy", "torch", "orjson"} <= names
    assert not names & {"attnlab", "pytest", "_pytest", "hypothesis", "einops", "yaml"}
    assert all(entry.resolve().parent.name in ("site-packages", "dist-packages") for entry in environment.entries)


def test_a_fork_server_for_other_libraries_is_refused(tmp_path, einops_course):
    server = ForkServer()  # numpy only
    try:
        with pytest.raises(CourseError, match="other libraries"):
            grade(einops_course, einops_course.solutions_dir, only=["softmax"], fork_server=server)
    finally:
        server.close()


def test_attnlab_check_holds_the_students_files_to_the_courses_packages(tmp_path, einops_course):
    """On the student's own Python, where yaml and einops are installed, the check says what grading will."""
    student = tmp_path / "student"
    build_submission(student, read_fixture(PACKAGES / "multihead_with_einops.py"))
    (student / "scores.py").write_text("import yaml\n" + (student / "scores.py").read_text())
    bundled = subprocess.run(
        [*ATTNLAB, "check", str(student), "--only", "scores", "--only", "multihead", "--course", str(REPO)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = " ".join(bundled.stdout.split())
    assert "scores.py, line 1 (import yaml): `yaml` is not available to scores.py in this course" in said, said
    assert (
        "`einops` is not available to multihead.py in this course" in said and "the grader will not import it" in said
    )
    # In the check a file imports the student's own earlier files: those must import too.
    (student / "scores.py").write_text((student / "scores.py").read_text().removeprefix("import yaml\n"))
    allowing = subprocess.run(
        [*ATTNLAB, "check", str(student), "--only", "multihead", "--course", str(einops_course.root)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = " ".join(allowing.stdout.split())
    assert "not available" not in said and "✓ split_heads" in said, said


def test_one_import_rule_everywhere(tmp_path, class_session):
    """`import torch` in masks.py: it got full marks with bubblewrap, where torch was there to
    import, and 0 as a private user; and the check said ✓. One rule now, said in one way, in
    every mode, alone and in a class, on a fork server that imported torch for the PyTorch track
    already, and in the student's check."""
    student = build_submission(tmp_path / "student", read_fixture(PACKAGES / "masks_imports_torch.py"))
    refusal = "`torch` is not available to masks.py in this course (masks.py may import numpy, Python's standard library and the course's files)"
    reports = []
    for mode in MODES:
        with sandbox_mode(mode):
            reports.append(grade(COURSE, student, only=["masks"]))
            server = ForkServer(SandboxEnvironment.for_course(COURSE))
            try:
                warm = grade(COURSE, COURSE.solutions_dir, only=["torch_attention"], fork_server=server)
                assert warm.score == warm.max_score  # the server has imported torch
                reports.append(grade(COURSE, student, only=["masks"], fork_server=server))
            finally:
                server.close()
    reports.append(grade_in_class(class_session, student, ["masks"]))
    for report in reports:
        found = outcomes(report, "masks")
        assert {o for o, _ in found.values()} == {Outcome.ERROR}, report.sandbox
        assert all(refusal in feedback for _, feedback in found.values()), [f for _, f in found.values()]
    checked = subprocess.run(
        [*ATTNLAB, "check", str(student), "--only", "masks"], capture_output=True, text=True, timeout=300
    )
    said = " ".join(checked.stdout.split())
    assert checked.returncode == 1 and f"masks.py, line 1 (import torch # noqa: F401): {refusal}" in said, said
