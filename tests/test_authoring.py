"""Authoring: `attnlab new exercise` writes a working exercise, and a course's own mistakes reach
its author as one filled line, never pytest's INTERNALERROR traceback.

Everything runs through the real command on a copy of the course.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, read_fixture, splice

from attnlab.course import Course
from attnlab.export.stubs import stale_stubs
from attnlab.points import load_table

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

ATTNLAB = [str(Path(sys.executable).with_name("attnlab"))]
NAME = "unit_rows"
FUNCTION = f"{NAME}_example"


def attnlab(*args, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*ATTNLAB, *map(str, args)], capture_output=True, text=True, timeout=600, cwd=cwd)


def copy_course(folder: Path) -> Path:
    for part in ("exercises", "solutions"):
        shutil.copytree(REPO / part, folder / part, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr[-3000:]
    assert "Traceback" not in stderr and "INTERNALERROR" not in stderr
    return lines[0]


def score(course: Path, submission: Path, out: Path) -> tuple[float, float]:
    run = attnlab("grade", submission, "--only", NAME, "--course", course, "--json", out)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(out.read_text())
    return sum(t["score"] for t in results["tests"]), sum(t["max_score"] for t in results["tests"])


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    course = copy_course(tmp_path_factory.mktemp("course"))
    (course / "tests" / "submissions" / "buggy").mkdir(parents=True)  # as in the project's checkout
    return course, attnlab("new", "exercise", NAME, "--course", course)


def test_new_exercise_writes_every_file_and_says_what_next(scaffolded):
    course, run = scaffolded
    assert run.returncode == 0, run.stderr
    for path in (
        f"solutions/{NAME}.py",
        f"exercises/{NAME}.py",
        f"exercises/tests/test_{NAME}.py",
        f"solutions/hidden_tests/test_{NAME}.py",
        f"solutions/misconceptions/{NAME}.py",
        f"tests/submissions/buggy/{FUNCTION}_wrong_axis.py",
    ):
        assert (course / path).is_file(), path
        assert f"created {path}" in run.stderr or path.startswith("tests/")
    loaded = Course.load(course)
    assert loaded.modules[-1] == NAME and loaded.functions_in(NAME) == [FUNCTION]
    manifest = (course / "exercises" / "course.toml").read_text()
    assert manifest.startswith((REPO / "exercises" / "course.toml").read_text().splitlines()[0]), (
        "course.toml keeps its comments"
    )
    assert "docs/authors.md" in run.stderr
    assert stale_stubs(course / "solutions", course / "exercises", [NAME]) == [], (
        "the stub is generated from the new solution"
    )
    assert load_table(course / "solutions" / "hidden_tests").paid_with[(f"test_{NAME}", "test_shape_is_kept")] == (
        "test_values",
    ), "a shape test is paid with the values"


def test_the_new_misconception_comes_with_a_probe_that_tells_it_from_the_reference(scaffolded):
    # It was written without one, which tests/test_diagnostic_probes.py requires of every catalogued function.
    from attnlab.export.probe_book import stale_probe_book
    from attnlab.misconceptions import load_catalogue, probes_of, same
    from attnlab.reference import Reference

    course = Course.load(scaffolded[0])
    catalogue = load_catalogue(course, [NAME])
    probes = probes_of(FUNCTION, catalogue)
    assert probes and all(p.why for p in probes), f"{FUNCTION} has a catalogue entry but no diagnostic probe"
    reference = getattr(Reference(course), FUNCTION)
    for entry in (m for m in catalogue if m.function == FUNCTION):
        assert any(not same(entry.wrong(*p.args, **p.kwargs), reference(*p.args, **p.kwargs)) for p in probes), entry.id
    assert not stale_probe_book(course), "the probe book beside the public tests has the new probe"


def test_the_reference_grades_at_full_marks_and_the_stub_at_zero(scaffolded, tmp_path):
    course, _ = scaffolded
    got, most = score(course, course / "solutions", tmp_path / "reference.json")
    assert got == most > 0
    got, most = score(course, course / "exercises", tmp_path / "stubs.json")
    assert got == 0 and most > 0
    stubs = json.loads((tmp_path / "stubs.json").read_text())
    assert all("not implemented" in t["output"] for t in stubs["tests"]), stubs["tests"][0]


def test_the_public_tests_pass_on_the_reference(scaffolded):
    course, _ = scaffolded
    run = attnlab("check", "solutions", "--only", NAME, cwd=course)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"✓ {FUNCTION}" in run.stdout
    # The diagnostic probe is a public test too (it was left out of the template, and a new file's
    # probes went unchecked in the release's plain pytest): the worked example and the probe.
    assert f"✓ {FUNCTION} 2/2 passed" in " ".join(run.stdout.split()), run.stdout


def test_the_buggy_file_loses_its_points_and_is_named(scaffolded, tmp_path):
    course, _ = scaffolded
    fixture = read_fixture(course / "tests" / "submissions" / "buggy" / f"{FUNCTION}_wrong_axis.py")
    assert (fixture.file, fixture.breaks) == (f"{NAME}.py", FUNCTION)
    student = tmp_path / "student"
    student.mkdir()
    (student / f"{NAME}.py").write_text(
        splice((course / "solutions" / f"{NAME}.py").read_text(), fixture.path.read_text())
    )
    got, most = score(course, student, tmp_path / "buggy.json")
    assert got < most
    tests = json.loads((tmp_path / "buggy.json").read_text())["tests"]
    assert any("scaled along the wrong axis" in t["output"] for t in tests if t["score"] < t["max_score"]), tests


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("softmax", "already has an exercise file named softmax"),
        ("random", "random.py would hide it"),
        ("torch", "torch.py would hide it"),
        ("test_x", "would hide it"),
        ("conftest", "would hide it"),
        ("Rows", "lower-case letters"),
        ("../evil", "lower-case letters"),
        ("class", "lower-case letters"),
    ],
)
def test_a_name_that_cannot_be_an_exercise_is_refused_and_nothing_is_written(tmp_path, name, says):
    course = copy_course(tmp_path / "course")
    before = {p: p.read_bytes() for p in course.rglob("*") if p.is_file()}
    run = attnlab("new", "exercise", name, "--course", course)
    assert run.returncode != 0
    assert says in one_line(run.stderr)
    assert {p: p.read_bytes() for p in course.rglob("*") if p.is_file()} == before


def test_after_places_it_in_course_order(tmp_path):
    course = copy_course(tmp_path / "course")
    run = attnlab("new", "exercise", NAME, "--after", "masks", "--course", course)
    assert run.returncode == 0, run.stderr
    modules = Course.load(course).modules
    assert modules[modules.index("masks") + 1] == NAME and len(modules) == len(Course.load(REPO).modules) + 1
    again = attnlab("new", "exercise", "other", "--after", "nowhere", "--course", course)
    assert "no exercise file named nowhere" in one_line(again.stderr) and again.returncode != 0


def test_an_existing_file_is_never_overwritten(tmp_path):
    course = copy_course(tmp_path / "course")
    (course / "solutions" / "misconceptions" / f"{NAME}.py").write_text("# the author's own\n")
    run = attnlab("new", "exercise", NAME, "--course", course)
    assert "already exists" in one_line(run.stderr) and run.returncode != 0
    assert not (course / "solutions" / f"{NAME}.py").exists()
    assert NAME not in Course.load(course).modules


def test_new_exercise_help_reads_well():
    run = attnlab("new", "exercise", "--help")
    assert run.returncode == 0
    assert "Add the exercise file NAME.py" in run.stdout and "full marks" in run.stdout


BROKEN = {
    "no points": (
        "\n\ndef test_unlisted(student, reference):\n    \"\"\"softmax: a test with no points\"\"\"\n",
        None,
        "hidden test test_softmax.test_unlisted has no points: add `test_unlisted = POINTS` under [test_softmax]",
    ),
    "no docstring": (
        "\n\ndef test_undocumented(student, reference):\n    pass\n",
        "test_undocumented = 1",
        "hidden test test_softmax.test_undocumented: its docstring must start with 'function: property'",
    ),
    "paid with no test": (
        "\n\ndef test_property(student, reference):\n    \"\"\"softmax: a property\"\"\"\n",
        'test_property = { points = 1, paid_with = ["test_valuez"] }',
        "test_softmax.test_property is paid with test_valuez, which is not a test under [test_softmax]",
    ),
    "paid with another function": (
        "\n\ndef test_property(student, reference):\n    \"\"\"attention_scores: a property\"\"\"\n",
        'test_property = { points = 1, paid_with = ["test_values"] }',
        "hidden test test_softmax.test_property tests attention_scores but is paid with test_values, a test of softmax",
    ),
}


@pytest.fixture(scope="module", params=sorted(BROKEN))
def broken_course(request, tmp_path_factory) -> tuple[Path, str]:
    test, points, says = BROKEN[request.param]
    course = copy_course(tmp_path_factory.mktemp("broken"))
    with (course / "solutions" / "hidden_tests" / "test_softmax.py").open("a") as tests:
        tests.write(test)
    if points:
        table = course / "solutions" / "hidden_tests" / "points.toml"
        table.write_text(table.read_text().replace("[test_softmax]\n", f"[test_softmax]\n{points}\n", 1))
    return course, says


def test_a_course_error_is_one_filled_line_for_one_submission(broken_course):
    course, says = broken_course
    run = attnlab("grade", course / "solutions", "--only", "softmax", "--course", course)
    assert run.returncode != 0
    assert says in one_line(run.stderr)


def test_a_course_error_is_one_filled_line_for_a_class(broken_course, tmp_path):
    course, says = broken_course
    for student in ("ada", "bob"):
        shutil.copytree(
            course / "solutions",
            tmp_path / "class" / student,
            ignore=shutil.ignore_patterns("hidden_tests", "misconceptions", "__pycache__"),
        )
    run = attnlab("grade", tmp_path / "class", "--only", "softmax", "--course", course, "--jobs", "1")
    assert run.returncode != 0
    errors = [line for line in run.stderr.splitlines() if line.startswith("attnlab: error")]
    assert len(errors) == 1 and says in errors[0], run.stderr[-3000:]
    assert "INTERNALERROR" not in run.stderr and "Traceback" not in run.stderr
    assert not list((tmp_path / "class.results").glob("*.json")), "nothing is saved as a student's grade"
