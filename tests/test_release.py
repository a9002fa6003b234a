"""The student release: what it holds, what it must never hold, and that it installs and runs."""

import json
import os
import shutil
import subprocess
import sys
import venv

import pytest
from conftest import COURSE, REPO

from attnlab.course import Course
from attnlab.export.release import ReleaseError, build, scan
from attnlab.quiz import student_copy

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)


RELEASE_UMASK = 0o022


def build_with_umask(umask: int, course: Course, out):
    previous = os.umask(umask)
    try:
        return build(course, out, roster=["s1", "s2"]).folder
    finally:
        os.umask(previous)


# A release's practice copies cost a memory-hard hash per accepted answer at the students' cost
# (about 3,000: two CPU-minutes on a machine with no kept copy, as CI's always is). Built here at a
# cheap one: the copies' contents are what these tests read, the release records the cost it used
# (test_each_practice_copy_is_locked_at_the_cost_the_release_was_given), and test_quiz_secrecy
# holds the students' cost to 16 MiB a guess.
CHEAP = {"n": 2**8, "r": 8, "p": 1}


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """The course's release, built once for the module, its practice copies locked at ``CHEAP``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(student_copy, "SCRYPT", CHEAP)
        return build_with_umask(RELEASE_UMASK, COURSE, tmp_path_factory.mktemp("release") / "attnlab-student")


def test_each_practice_copy_is_locked_at_the_cost_the_release_was_given(release):
    copies = [p for p in (release / "quizzes").glob("*.json") if not p.name.endswith(".exam.json")]
    assert copies
    for copy in copies:
        assert json.loads(copy.read_text())["scrypt"] == CHEAP, copy.name


def test_the_release_holds_what_students_need(release):
    names = {p.relative_to(release).as_posix() for p in release.rglob("*") if p.is_file()}
    for module in COURSE.modules:
        assert f"exercises/{module}.py" in names and f"exercises/tests/test_{module}.py" in names
    assert {
        "README.md",
        "pyproject.toml",
        "exercises/course.toml",
        "grader/attnlab/cli.py",
        "docs/contract.md",
        "docs/students.md",
    } <= names
    assert {f"quizzes/{p.stem}.json" for p in (REPO / "quizzes").glob("*.yaml")} <= names  # practice copies
    assert {f"quizzes/{p.stem}.exam.json" for p in (REPO / "quizzes").glob("*.yaml")} <= names


def test_the_release_ships_the_engine_students_run_and_not_the_instructors_side(release):
    engine = {
        p.relative_to(release / "grader" / "attnlab").as_posix() for p in (release / "grader" / "attnlab").rglob("*.py")
    }
    assert {"check/run.py", "quiz/runner.py", "expect.py", "sandbox/inside/module_harness.py"} <= engine
    for instructors in (
        "grading/",
        "replay/",
        "classroom/",
        "report/",
        "sandbox/host.py",
        "sandbox/inside/forkserver.py",
        "export/release.py",
        "export/gradescope.py",
        "export/nbgrader.py",
    ):
        assert not any(name.startswith(instructors) for name in engine), instructors


def test_the_release_holds_no_solutions_hidden_tests_or_answers(release):
    assert scan(COURSE, release) == []
    names = {p.name for p in release.rglob("*")}
    assert not names & {"solutions", "hidden_tests", "misconceptions", "points.toml"}
    assert not any(p.suffix == ".yaml" for p in (release / "quizzes").iterdir())
    # The course a student's copy describes (from its stubs) is the instructor's.
    assert [f.name for f in Course.load(release).functions] == [f.name for f in COURSE.functions]
    # What the stubs of the release say is exactly what the course's stubs say.
    for module in COURSE.modules:
        assert (release / "exercises" / f"{module}.py").read_text() == (
            COURSE.exercises_dir / f"{module}.py"
        ).read_text()


def test_the_release_cites_no_file_students_lack(release):
    """The course's files cite the contract page, shipped with them; the warm-up the course's
    manifest names lives in solutions/, so the students' manifest leaves it out."""
    shipped = (release / "exercises" / "course.toml").read_text()
    assert "docs/contract.md" in shipped and "solutions/" not in shipped and "[course.warmup]" not in shipped
    assert "[course.warmup]" in (COURSE.root / "exercises" / "course.toml").read_text()
    assert (release / "docs" / "contract.md").read_text() == (REPO / "docs" / "contract.md").read_text()
    assert "`docs/contract.md`" in (release / "README.md").read_text()
    assert Course.load(release).warmups == {} and Course.load(release).depends == COURSE.depends


def test_the_scan_finds_each_kind_of_leak(release, tmp_path):
    """The scan is what makes the claim above; it must be able to fail."""
    leaky = tmp_path / "leaky"
    shutil.copytree(release, leaky)
    (leaky / "exercises" / "softmax.py").write_text((COURSE.solutions_dir / "softmax.py").read_text())
    shutil.copyfile(COURSE.hidden_tests_dir / "test_masks.py", leaky / "test_masks_copy.py")
    shutil.copyfile(COURSE.hidden_tests_dir / "test_masks.py", leaky / "grader" / "test_masks.py")
    shutil.copyfile(REPO / "quizzes" / "masks.yaml", leaky / "quizzes" / "masks.yaml")
    copy = json.loads((leaky / "quizzes" / "shapes.json").read_text())
    copy["questions"][0]["answer"] = "16"
    (leaky / "quizzes" / "shapes.json").write_text(json.dumps(copy))
    exam = json.loads((leaky / "quizzes" / "masks.exam.json").read_text())
    exam["questions"][1]["hint"] = "it is 0"
    next(iter(exam["students"].values()))[0]["params"] = {"gap": 2}
    (leaky / "quizzes" / "masks.exam.json").write_text(json.dumps(exam))
    (leaky / "misconceptions").mkdir()
    (leaky / "misconceptions" / "x.py").write_text("")
    shutil.copyfile(COURSE.root / "exercises" / "course.toml", leaky / "exercises" / "course.toml")  # the instructor's
    (leaky / "docs" / "contract.md").unlink()
    lessons = "../" + "shared/LESSONS.md"  # built from parts: this file names no file outside the project
    (leaky / "exercises" / "tests" / "test_masks.py").write_text(
        f"# as {lessons} says\n" + (leaky / "exercises" / "tests" / "test_masks.py").read_text()
    )
    leaks = "\n".join(scan(COURSE, leaky))
    assert "exercises/softmax.py: holds" in leaks
    assert "grader/test_masks.py: a hidden test file" in leaks
    hidden_in_masks = (COURSE.hidden_tests_dir / "test_masks.py").read_text().count("\ndef test_")
    assert f"test_masks_copy.py: holds {hidden_in_masks} hidden tests" in leaks  # renamed, but still the hidden tests
    assert "quizzes/masks.yaml: an instructor's quiz" in leaks
    assert "quizzes/shapes.json: field questions.0.'answer'" in leaks
    assert "quizzes/masks.exam.json: exam question 1 holds hint" in leaks
    assert (
        "quizzes/masks.exam.json: an exam copy's student entries hold more than prompts, options and answer sizes"
        in leaks
    )
    assert "misconceptions/x.py: a folder students must not get" in leaks
    assert "exercises/course.toml: cites solutions/warmup_torch.py, which is not there" in leaks
    assert "exercises/backward.py: cites docs/contract.md, which is not there" in leaks
    assert f"exercises/tests/test_masks.py: cites {lessons}, which is not there" in leaks


def test_release_refuses_a_folder_in_use(release):
    with pytest.raises(ReleaseError, match="not an empty folder"):
        build(COURSE, release)


def test_the_release_installs_in_a_fresh_venv_and_check_reports_every_function_not_implemented(release, tmp_path):
    """As its README says: a venv, `pip install .`, then `attnlab check` from the bundle."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    pip = subprocess.run(
        [env_dir / "bin" / "pip", "install", "-q", "--disable-pip-version-check", "."],
        cwd=release,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert pip.returncode == 0, pip.stderr[-2000:]
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ATTNLAB_", "PYTHON"))}
    result = subprocess.run(
        [env_dir / "bin" / "attnlab", "check"], cwd=release, capture_output=True, text=True, timeout=300, env=clean
    )
    assert result.returncode == 1, result.stdout + result.stderr
    text = " ".join(result.stdout.split())
    numpy_functions = [f.name for f in COURSE.functions if not COURSE.needs_of(f.module)]
    for function in numpy_functions:
        assert f"{function} not implemented yet" in text or f"{function} needs" in text, function
    assert f"0 of {len(numpy_functions)}" in text or f"0 of {len(COURSE.functions)}" in text
    # With no catalogue in the bundle, a failing check still says what differs, structurally.
    work = tmp_path / "work"
    shutil.copytree(release / "exercises", work, ignore=shutil.ignore_patterns("tests"))
    stubs = (work / "masks.py").read_text()  # the other masks stay stubs: only causal_mask is wrong
    (work / "masks.py").write_text(
        stubs + "\n\ndef causal_mask(n):\n    return np.triu(np.ones((n, n), dtype=bool), k=1)\n"
    )
    masks = subprocess.run(
        [env_dir / "bin" / "attnlab", "check", work, "--only", "masks"],
        cwd=release,
        capture_output=True,
        text=True,
        timeout=300,
        env=clean,
    )
    assert masks.returncode == 1 and "exact complement of the expected one" in " ".join(masks.stdout.split()), (
        masks.stdout + masks.stderr
    )
    # Plain pytest too, as the students' README says: the shipped pytest options need nothing the
    # student has not installed (exit 1: the stubs fail their tests; 4 would be a usage error).
    public = subprocess.run(
        [env_dir / "bin" / "python", "-m", "pytest", "-q", "exercises"],
        cwd=release,
        capture_output=True,
        text=True,
        timeout=300,
        env=clean,
    )
    assert public.returncode == 1 and " failed" in public.stdout, public.stdout[-1000:] + public.stderr[-1000:]
    # The quiz runs from its student copy, with no instructor files anywhere near.
    for args in (["shapes"], ["shapes", "--mode", "exam"]):  # as the README says: the practice copy, then the exam copy
        quiz = subprocess.run(
            [env_dir / "bin" / "attnlab", "quiz", "take", *args, "--student", "s1"],
            cwd=release,
            input="quit\n",
            capture_output=True,
            text=True,
            timeout=120,
            env={**clean, "ATTNLAB_STATE_DIR": str(tmp_path / "state")},
        )
        assert (
            quiz.returncode == 0 and "Question 1 of 11" in quiz.stdout and "Traceback" not in quiz.stdout + quiz.stderr
        ), quiz.stdout + quiz.stderr
    listed = subprocess.run(
        [env_dir / "bin" / "attnlab", "quiz", "list", "--student", "s1"],
        cwd=release,
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, "COLUMNS": "200"},
    )
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in listed.stdout.splitlines() if "│" in line]
    assert listed.returncode == 0 and ["shapes", "Shapes and sizes", "11", "yes", "yes"] in rows, listed.stdout
    # Every module shipped imports from the installed bundle alone; the instructor's commands are
    # neither offered nor a traceback.
    walk = subprocess.run(
        [
            env_dir / "bin" / "python",
            "-c",
            "import attnlab, importlib, pkgutil; [importlib.import_module(m.name) for m in pkgutil.walk_packages(attnlab.__path__, 'attnlab.')]; print(attnlab.__file__)",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=clean,
    )
    assert walk.returncode == 0 and str(env_dir) in walk.stdout, walk.stderr[-2000:]
    helped = subprocess.run(
        [env_dir / "bin" / "attnlab", "--help"], cwd=release, capture_output=True, text=True, env=clean
    )
    listed = [line.split()[0] for line in helped.stdout.split("Commands:")[1].splitlines() if line.strip()]
    assert listed == ["check", "lab", "quiz"] and "attnlab grade" not in helped.stdout, helped.stdout
    refused = subprocess.run(
        [env_dir / "bin" / "attnlab", "grade", "exercises"], cwd=release, capture_output=True, text=True, env=clean
    )
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "for instructors" in refused.stderr, (
        refused.stderr
    )
    # Nothing of the repository is importable in the student's venv: no reference, no hidden-test helpers.
    probe = subprocess.run(
        [
            env_dir / "bin" / "python",
            "-c",
            "import importlib.util as u; print(u.find_spec('softmax'), u.find_spec('attention_inputs'))",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert probe.stdout.split() == ["None", "None"]


def test_plain_pytest_at_the_bundles_root_runs_the_public_tests(release):
    # The shipped pyproject's testpaths named the repository's tests/, which the bundle has not got.
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ATTNLAB_", "PYTEST_"))}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=release,
        capture_output=True,
        text=True,
        timeout=300,
        env={**clean, "ATTNLAB_SUBMISSION": str(COURSE.solutions_dir)},
    )
    public = sum(path.read_text().count("\ndef test_") for path in (release / "exercises" / "tests").glob("test_*.py"))
    book = json.loads((release / "exercises" / "tests" / "probes.json").read_text())["functions"]
    public += sum(len(entry["probes"]) for entry in book.values())  # one public test per probe (probe_tests)
    assert result.returncode == 0 and f"{public} passed" in result.stdout.splitlines()[-1], (
        result.stdout[-2000:] + result.stderr[-2000:]
    )
    assert "No files were found in testpaths" not in result.stdout + result.stderr
    assert 'testpaths = ["exercises"]' in (release / "pyproject.toml").read_text()


@pytest.mark.parametrize("umask, mode", [(RELEASE_UMASK, 0o755), (0o027, 0o750)])
def test_the_release_folder_is_made_as_the_umask_says(release, tmp_path, umask, mode):
    """It was drwx------ whatever the umask: the temporary folder it is built in is private. The
    module's release is the one built under ``RELEASE_UMASK``; under another umask, the course's
    files without its quizzes (what they cost changes nothing of the folder's mode)."""
    if umask == RELEASE_UMASK:
        made = release
    else:
        for part in ("exercises", "solutions", "docs"):
            shutil.copytree(REPO / part, tmp_path / "course" / part, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copyfile(REPO / "pyproject.toml", tmp_path / "course" / "pyproject.toml")
        made = build_with_umask(umask, Course.load(tmp_path / "course"), tmp_path / "bundle")
    assert made.stat().st_mode & 0o777 == mode


def test_the_bundles_readme_says_how_to_check_take_an_exam_and_hand_in(release):
    readme = (release / "README.md").read_text()
    for said in (
        "pytest exercises",
        "attnlab check --only softmax",
        "--student YOUR-ID",
        "--mode exam",
        "QUIZ-YOUR-ID.answers.yaml",
        "Hand that\nfile in",
        "Hand in your exercise files",
        "--index-url https://download.pytorch.org/whl/cpu",
        "shapes, ",
        "attnlab quiz list",
        "`docs/students.md`",
        "hand in",
        "The exam copies of anatomy, ",
    ):
        assert said in readme, said
    assert (release / "docs" / "students.md").read_text() == (REPO / "docs" / "students.md").read_text()


def test_a_release_without_a_roster_says_that_it_has_no_exam_copy(tmp_path):
    """Exam copies exist only after `release --roster`, and nothing said so: the release and the
    bundle's README now do, and `--mode exam` in the bundle names the missing copy."""
    course = tmp_path / "course"
    for part in ("exercises", "solutions", "docs"):
        shutil.copytree(REPO / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(REPO / "pyproject.toml", course / "pyproject.toml")
    (course / "quizzes").mkdir()
    (course / "quizzes" / "tiny.yaml").write_text(
        "id: tiny\ntitle: Tiny\nquestions:\n  - {id: t, type: truefalse, pool: {exam: [{prompt: A, answer: true}],"
        " practice: [{prompt: B, answer: false}]}, hint: h, explanation: e, concepts: [c]}\n"
    )
    made = subprocess.run(
        [sys.executable, "-m", "attnlab.cli", "release", tmp_path / "bundle", "--course", course],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert made.returncode == 0, made.stderr
    said = " ".join(made.stderr.split())
    assert "No --roster, so no exam copies" in said and "attnlab quiz student-copy QUIZ --mode exam" in said
    readme = (tmp_path / "bundle" / "README.md").read_text()
    assert "This bundle holds no exam copy: your instructor gives you the exam copy" in " ".join(readme.split())
    exam = subprocess.run(
        [sys.executable, "-m", "attnlab.cli", "quiz", "take", "tiny", "--mode", "exam", "--student", "s1"],
        cwd=tmp_path / "bundle",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ATTNLAB_STATE_DIR": str(tmp_path / "state")},
    )
    assert exam.returncode == 2 and "there is no exam copy of 'tiny' here" in exam.stderr, exam.stderr
    assert "no quiz named" not in exam.stderr


def test_the_probe_books_check_runs_again_only_when_what_it_reads_changed(tmp_path, monkeypatch):
    # Every release ran every probe of the catalogue (most of a release once its practice copies are kept).
    from attnlab.export import probe_book, probe_book_checked
    from attnlab.export.release import require_instructor_course

    monkeypatch.setenv("ATTNLAB_PRACTICE_COPIES", str(tmp_path / "kept"))
    checks, stale = [], [False]
    monkeypatch.setattr(probe_book, "stale_probe_book", lambda course: checks.append(course) or stale[0])
    require_instructor_course(COURSE, "a release")
    require_instructor_course(COURSE, "a release")
    assert len(checks) == 1, "a book found current is not checked again while nothing it reads changed"
    course = tmp_path / "course"
    for part in ("exercises", "solutions"):
        shutil.copytree(REPO / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    copy = Course.load(course)
    book = probe_book.book_path(copy)
    book.write_text(book.read_text().replace('"why":"', '"why":"edited: ', 1))
    assert probe_book_checked.digest(copy, book) != probe_book_checked.digest(COURSE, probe_book.book_path(COURSE))
    stale[0] = True
    for _ in range(2):  # a stale book is never remembered: refused each time
        with pytest.raises(ReleaseError, match="the probe book"):
            require_instructor_course(copy, "a release")
    assert len(checks) == 3
