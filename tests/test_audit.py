"""`attnlab audit`: mutants of the solution regions only, verdicts from the class path, the score
that leaves out the reviewed equivalent mutants, and the real command on a course copy."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import COURSE, REPO

from attnlab.audit.equivalents import EQUIVALENTS_FILE, EquivalentMutant, load_equivalents
from attnlab.audit.mutants import mutants_of
from attnlab.audit.run import course_mutants
from attnlab.audit.verdicts import EQUIVALENT, KILLED, SURVIVED, TIMED_OUT, judge, overall, scores, stale_entries
from attnlab.course import CourseError
from attnlab.export.stubs import StubError

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

SOURCE = '''"""A module."""

import numpy as np


def helper(x):
    return x + 1  # outside every region: the course's, not the student's


def scaled(x, n):
    """Shapes: x (n,) -> (n,)."""
    ### BEGIN SOLUTION
    ### HINT: divide by n + 1
    y = x / (n + 1)
    return y * 2
    ### END SOLUTION
'''


def test_mutants_change_solution_regions_only():
    mutants = mutants_of("toy", SOURCE, "toy.py")
    assert mutants, "the region has operators to apply"
    original = SOURCE.splitlines()
    region = range(original.index("    y = x / (n + 1)") + 1, original.index("    ### END SOLUTION") + 1)
    for mutant in mutants:
        ast.parse(mutant.source)  # every mutant is a Python file
        changed = [n for n, (a, b) in enumerate(zip(original, mutant.source.splitlines()), start=1) if a != b]
        assert changed and set(changed) <= set(region), (
            f"{mutant.id} changes lines {changed}, outside the region {list(region)}"
        )
        assert mutant.function == "scaled" and mutant.module == "toy" and mutant.line == changed[0]
        assert "### HINT: divide by n + 1" in mutant.source
    assert len({m.id for m in mutants}) == len({m.source for m in mutants}) == len(mutants)
    # mutmut's operators, not ours: a number plus 1, an operator swapped, an assignment to None.
    changes = {(m.before, m.after) for m in mutants}
    assert {
        ("y = x / (n + 1)", "y = x / (n + 2)"),
        ("y = x / (n + 1)", "y = x * (n + 1)"),
        ("y = x / (n + 1)", "y = None"),
    } <= changes


def test_a_mutants_diff_names_its_file_and_lines():
    mutant = next(m for m in mutants_of("toy", SOURCE, "toy.py") if m.after == "y = x * (n + 1)")
    assert mutant.diff.splitlines() == [
        f"--- solutions/toy.py:{mutant.line}",
        f"+++ mutant {mutant.id}",
        "-y = x / (n + 1)",
        "+y = x * (n + 1)",
    ]


def test_a_malformed_region_is_refused_in_one_line():
    with pytest.raises(StubError, match=r"toy.py:2: '### BEGIN SOLUTION' is never closed"):
        mutants_of("toy", "def f():\n    ### BEGIN SOLUTION\n    return 1\n", "toy.py")


@pytest.fixture(scope="module")
def course_wide_mutants():
    return course_mutants(COURSE, list(COURSE.modules))


def test_every_function_of_the_course_has_mutants(course_wide_mutants):
    mutants = course_wide_mutants
    mutated = {m.function for m in mutants}
    expected = {f.name for f in COURSE.functions if not f.is_class} | {
        "MultiHeadSelfAttention.__init__",
        "MultiHeadSelfAttention.forward",
    }
    assert mutated == expected
    assert all(m.id.startswith(f"{m.module}.{m.function}.") for m in mutants)


# ---------------------------------------------------------------- the reviewed list


def write_list(folder: Path, text: str) -> Path:
    (folder / EQUIVALENTS_FILE).write_text(text)
    return folder


def test_the_courses_list_is_reviewed_and_current(course_wide_mutants):
    """Every entry has its reason and still names a mutant of the solutions."""
    entries = load_equivalents(COURSE.solutions_dir)
    assert not stale_entries(entries, course_wide_mutants, list(COURSE.modules))
    assert len({(e.file, e.function, e.before, e.after) for e in entries}) == len(entries), "an entry listed twice"


@pytest.mark.parametrize(
    "text, message",
    [
        (
            '[[mutant]]\nfile = "toy"\nfunction = "scaled"\nbefore = "a"\nafter = "b"\n',
            r"entry 1, reason: Field required",
        ),
        (
            '[[mutant]]\nfile = "toy"\nfunction = "scaled"\nbefore = "a"\nafter = "b"\nreason = "one\\ntwo"\n',
            r"entry 1, reason: String should match",
        ),
        (
            '[[mutant]]\nfile = "toy"\nfunction = "scaled"\nbefore = "a"\nafter = "b"\nreason = "fine"\nverdict = "x"\n',
            r"entry 1, verdict: Extra inputs",
        ),
        ("[[mutant]\n", r"not valid TOML"),
        ('[[mutants]]\nfile = "toy"\n', r"mutants: Extra inputs"),
    ],
)
def test_a_malformed_list_is_refused_in_one_line(tmp_path, text, message):
    with pytest.raises(CourseError, match=message) as refused:
        load_equivalents(write_list(tmp_path, text))
    assert "\n" not in str(refused.value)


def test_no_list_is_an_empty_list(tmp_path):
    assert load_equivalents(tmp_path) == []


# ---------------------------------------------------------------- verdicts and scores


def stored(*tests: tuple[str, str]) -> dict:
    """A class result as the results folder keeps it: (module, outcome) per test."""
    return {
        "error": None,
        "report": {
            "tests": [
                {"module": module, "outcome": outcome, "name": f"{module}: test {n}"}
                for n, (module, outcome) in enumerate(tests)
            ]
        },
    }


@pytest.fixture(scope="module")
def toy_mutants():
    return mutants_of("toy", SOURCE, "toy.py")


def test_verdicts(toy_mutants):
    mutant = toy_mutants[0]
    assert judge(mutant, stored(("toy", "passed"), ("toy", "failed")), []).status == KILLED
    assert judge(mutant, stored(("toy", "passed"), ("toy", "error")), []).status == KILLED
    assert judge(mutant, stored(("toy", "timed out"), ("toy", "passed")), []).status == TIMED_OUT
    assert judge(mutant, stored(("toy", "timed out"), ("toy", "failed")), []).status == KILLED
    assert judge(mutant, stored(("toy", "passed"), ("toy", "passed")), []).status == SURVIVED
    assert judge(mutant, {"error": "cannot be staged", "report": None}, []).status == KILLED


def test_only_the_mutants_own_file_can_kill_it(toy_mutants):
    """A test of another file (one the mutant's submission lacks) failing is no kill."""
    assert (
        judge(toy_mutants[0], stored(("toy", "passed"), ("softmax", "error"), ("masks", "failed")), []).status
        == SURVIVED
    )


def test_a_listed_survivor_is_equivalent_and_a_listed_kill_is_flagged(toy_mutants):
    mutant = toy_mutants[0]
    entry = EquivalentMutant(file="toy", function="scaled", before=mutant.before, after=mutant.after, reason="the same")
    survivor = judge(mutant, stored(("toy", "passed")), [entry])
    assert survivor.status == EQUIVALENT and not survivor.listed_wrongly
    killed = judge(mutant, stored(("toy", "failed")), [entry])
    assert killed.status == KILLED and killed.listed_wrongly
    other_file = EquivalentMutant(
        file="masks", function="scaled", before=mutant.before, after=mutant.after, reason="the same"
    )
    assert judge(mutant, stored(("toy", "passed")), [other_file]).status == SURVIVED


def test_the_score_leaves_equivalent_mutants_out(toy_mutants):
    a, b, c, d, e = toy_mutants[:5]
    entry = EquivalentMutant(file="toy", function="scaled", before=e.before, after=e.after, reason="the same")
    verdicts = [
        judge(a, stored(("toy", "failed")), []),
        judge(b, stored(("toy", "timed out")), []),
        judge(c, stored(("toy", "passed")), []),
        judge(d, stored(("toy", "failed")), []),
        judge(e, stored(("toy", "passed")), [entry]),
    ]
    (score,) = scores(verdicts)
    assert (score.killed, score.timed_out, score.survived, score.equivalent, score.mutants) == (2, 1, 1, 1, 5)
    assert score.score == pytest.approx(3 / 4)
    assert overall([score]).score == pytest.approx(3 / 4)
    only_equivalent = scores([judge(e, stored(("toy", "passed")), [entry])])
    assert only_equivalent[0].score is None


def test_an_entry_that_names_no_mutant_is_stale(toy_mutants):
    current = EquivalentMutant(
        file="toy", function="scaled", before=toy_mutants[0].before, after=toy_mutants[0].after, reason="r"
    )
    gone = EquivalentMutant(file="toy", function="scaled", before="y = x / n", after="y = x * n", reason="r")
    elsewhere = EquivalentMutant(file="masks", function="causal_mask", before="a", after="b", reason="r")
    assert stale_entries([current, gone, elsewhere], toy_mutants, ["toy"]) == [gone]


# ---------------------------------------------------------------- the command


def attnlab(*args: str, course: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "attnlab.cli", *args, "--course", str(course)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "120"},
    )


@pytest.fixture(scope="module")
def weakened_course(tmp_path_factory):
    """A copy of the course whose hidden tests of causal_mask are gone, and whose equivalent list
    names one mutant a test kills and one that no longer exists."""
    root = tmp_path_factory.mktemp("course")
    for part in ("exercises", "solutions"):
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    tests = root / "solutions" / "hidden_tests" / "test_masks.py"
    tree = ast.parse(tests.read_text())
    kept = [
        node for node in tree.body if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_causal"))
    ]
    tests.write_text(ast.unparse(ast.Module(body=kept, type_ignores=[])))
    points = root / "solutions" / "hidden_tests" / "points.toml"
    points.write_text(
        "\n".join(line for line in points.read_text().splitlines() if not line.startswith("test_causal_mask"))
    )
    write_list(
        root / "solutions",
        '[[mutant]]\nfile = "masks"\nfunction = "padding_mask"\nbefore = "return np.arange(max_len)[None, :] < lengths[:, None]"\nafter = "return np.arange(max_len)[None, :] <= lengths[:, None]"\nreason = "wrongly listed: off by one"\n\n[[mutant]]\nfile = "masks"\nfunction = "causal_mask"\nbefore = "return np.tri(n, dtype=bool)"\nafter = "return np.tri(n)"\nreason = "the code changed since"\n',
    )
    return root


@pytest.fixture(scope="module")
def weakened_audit(weakened_course, tmp_path_factory):
    markdown = tmp_path_factory.mktemp("summary") / "audit.md"
    done = attnlab(
        "audit",
        "--only",
        "masks",
        "--jobs",
        "2",
        "--markdown",
        str(markdown),
        "--fail-under",
        "98",
        course=weakened_course,
    )
    return done, markdown.read_text() if markdown.exists() else ""


def test_the_audit_finds_what_the_tests_miss(weakened_audit):
    done, markdown = weakened_audit
    assert done.returncode == 1, done.stdout + done.stderr
    causal = course_mutants(COURSE, ["masks"])
    survivors = [m for m in causal if m.function == "causal_mask"]
    for mutant in survivors:  # nothing tests causal_mask any more: each of its mutants survives
        assert f"### `causal_mask` ({mutant.id}), masks.py line {mutant.line}" in markdown
        assert f"-{mutant.before}\n+{mutant.after}\n" in markdown
        assert mutant.id in done.stdout
    assert f"| masks.py | causal_mask | {len(survivors)} | 0 | 0 | {len(survivors)} | 0 | 0.0% |" in markdown
    assert "| masks.py | padding_mask | 4 | 4 | 0 | 0 | 0 | 100.0% |" in markdown
    assert "Mutants" in done.stderr and f"{len(causal)}/{len(causal)}" in done.stderr  # the progress bar
    error = done.stderr.strip().splitlines()[-1]
    assert error.startswith(
        "attnlab: error: the audit falls short of 98%: causal_mask at 0.0%; 1 mutant listed as equivalent but caught; 1 stale entry in equivalent_mutants.toml"
    )
    assert "Traceback" not in done.stderr


def test_the_audit_says_what_is_wrong_with_the_list(weakened_audit):
    done, markdown = weakened_audit
    assert "## Listed as equivalent, but caught" in markdown and "`masks.padding_mask." in markdown
    assert "Listed as equivalent, but killed by padding_mask" in done.stdout
    assert "## Stale entries of the equivalent list" in markdown and "`return np.tri(n, dtype=bool)`" in markdown


@pytest.mark.parametrize(
    "args, message",
    [
        (("--only", "nonsense"), "attnlab: error: no exercise file named nonsense"),
        (("--track", "jax"), "attnlab: error: no track named jax"),
        (("--fail-under", "120"), "120.0 is not in the range 0<=x<=100"),
    ],
)
def test_bad_input_is_one_line(args, message):
    done = attnlab("audit", *args, course=REPO)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_a_malformed_list_stops_the_audit_before_grading(tmp_path):
    for part in ("exercises", "solutions"):
        shutil.copytree(REPO / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    write_list(tmp_path / "solutions", '[[mutant]]\nfile = "masks"\n')
    done = attnlab("audit", "--only", "masks", course=tmp_path)
    assert done.returncode == 2
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .startswith(f"attnlab: error: {tmp_path / 'solutions' / EQUIVALENTS_FILE}: entry 1, function: Field required")
    )


def test_help_reads_well():
    done = attnlab("audit", "--help", course=REPO)
    assert done.returncode == 0
    assert "Would the hidden tests catch a bug?" in done.stdout and "equivalent_mutants.toml" in done.stdout
    main_help = subprocess.run(
        [sys.executable, "-m", "attnlab.cli", "--help"], capture_output=True, text=True, timeout=60
    ).stdout
    assert "attnlab audit            would the hidden tests catch a bug? (their mutation score)" in main_help


def test_without_mutmut_the_audit_says_how_to_install_it():
    blocked = f"import sys; sys.modules['mutmut'] = None; from attnlab.cli import main; main(['audit', '--only', 'masks', '--course', {str(REPO)!r}])"
    done = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "attnlab: error: attnlab audit makes its mutants with mutmut: pip install 'attnlab[audit]' (or mutmut==3.8.1)"
    ]


def test_the_class_path_grades_a_student_on_the_files_the_plan_gives(tmp_path):
    """``ClassPlan.files_of``: a mutant is graded on its own file only, not on the class's others."""
    from attnlab.classroom.gradebook import ResultStore
    from attnlab.classroom.grading import grade_class, plan_class
    from attnlab.sandbox.host import Limits

    classroom = tmp_path / "class"
    for student in ("masks_only", "whole"):
        (classroom / student).mkdir(parents=True)
        shutil.copyfile(COURSE.solutions_dir / "masks.py", classroom / student / "masks.py")
    store, limits = ResultStore(tmp_path / "results"), Limits(call_seconds=2.0)
    plan = plan_class(COURSE, classroom, store, limits, only=["softmax", "masks"])
    plan.files_of["masks_only"] = ["masks"]
    grade_class(COURSE, plan, store, limits, jobs=1)
    modules = {r.student: {t["module"] for t in r.report["tests"]} for r in store.all(["masks_only", "whole"])}
    assert modules == {"masks_only": {"masks"}, "whole": {"softmax", "masks"}}
