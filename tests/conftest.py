"""Shared helpers: the course under test, a fork server for the session, and submissions built from fixtures.

A fixture of student code is a short Python file whose docstring names the
exercise file it belongs to (``file: softmax.py``) and, for a buggy one, the
function it breaks (``breaks: softmax``). Its top-level functions replace the
same-named functions of the reference file, so the submission differs from the
reference in exactly the student's code.
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from attnlab.course import Course
from attnlab.grading.suite import grade
from attnlab.results import GradeReport
from attnlab.sandbox.environment import SandboxEnvironment
from attnlab.sandbox.host import ForkServer, Limits

REPO = Path(__file__).resolve().parents[1]
SUBMISSIONS = Path(__file__).parent / "submissions"
COURSE = Course.load(REPO)


@dataclass(frozen=True)
class StudentFixture:
    path: Path
    file: str
    """The exercise file it replaces functions of, e.g. ``softmax.py``."""
    breaks: str | None
    """The one function it should lose points on (None for a correct variant)."""
    summary: str


def read_fixture(path: Path) -> StudentFixture:
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    file = re.search(r"^file:\s*(\S+)", doc, re.M)
    breaks = re.search(r"^breaks:\s*(\S+)", doc, re.M)
    assert file, f"{path}: the docstring must say which exercise file it belongs to (file: NAME.py)"
    return StudentFixture(path, file.group(1), breaks.group(1) if breaks else None, doc.splitlines()[0])


def fixtures_in(kind: str) -> list[StudentFixture]:
    return [read_fixture(p) for p in sorted((SUBMISSIONS / kind).glob("*.py"))]


def splice(reference_source: str, student_source: str) -> str:
    """The reference file with each function the student wrote put in place of its namesake.

    The student's own imports go on top; functions the reference lacks are appended.
    """
    lines = reference_source.splitlines(keepends=True)
    reference_defs = {
        n.name: n for n in ast.parse(reference_source).body if isinstance(n, (ast.FunctionDef, ast.ClassDef))
    }
    student_tree = ast.parse(student_source)
    student_lines = student_source.splitlines(keepends=True)
    replacements, extra, imports = {}, [], []
    for node in student_tree.body:
        start = (node.decorator_list[0].lineno if getattr(node, "decorator_list", None) else node.lineno) - 1
        text = "".join(student_lines[start : node.end_lineno])
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(text)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in reference_defs:
            replacements[node.name] = text
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):  # skip the docstring
            extra.append(text)
    for name in sorted(replacements, key=lambda n: -reference_defs[n].lineno):  # bottom-up keeps line numbers valid
        node = reference_defs[name]
        lines[node.lineno - 1 : node.end_lineno] = [replacements[name]]
    return "".join(imports) + "".join(lines) + "".join("\n\n" + e for e in extra)


def hidden_test_ids(course: Course, only: list[str] | None = None) -> list[str]:
    """The node ids of the course's hidden test items, as pytest collects them: what a test
    compares a count with, so that no test hard-codes the course's size."""
    from attnlab.grading.plugin import GradingProfile
    from attnlab.grading.hidden_suite import hidden_pytest_args, hidden_test_files
    from attnlab.pytest_runs import run_captured

    exit_code, output = run_captured(
        [*hidden_pytest_args(course, hidden_test_files(course, only)), "--collect-only", "-q"], [GradingProfile()]
    )
    assert exit_code == 0, output[-2000:]
    return [line for line in output.splitlines() if "::" in line]


def build_submission(folder: Path, fixture: StudentFixture, *more: StudentFixture) -> Path:
    """A full submission: the reference files, with each fixture's functions spliced into its file."""
    folder.mkdir(parents=True, exist_ok=True)
    for module in COURSE.modules:
        shutil.copyfile(COURSE.solutions_dir / f"{module}.py", folder / f"{module}.py")
    for each in (fixture, *more):
        target = folder / each.file
        target.write_text(splice(target.read_text(), each.path.read_text()))
    return folder


def processes_of_users(lowest_uid: int, highest_uid: int | None = None) -> list[str]:
    """The command lines of running processes whose user id is in [lowest_uid, highest_uid]."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            uid = entry.stat().st_uid
            if entry.name.isdigit() and uid >= lowest_uid and (highest_uid is None or uid <= highest_uid):
                found.append((entry / "cmdline").read_bytes().decode(errors="replace"))
        except (FileNotFoundError, ProcessLookupError):
            pass
    return found


def processes_of(uids) -> list[str]:
    """The command lines of running processes of any of these user ids."""
    return [line for uid in sorted(uids) for line in processes_of_users(uid, uid)]


def private_uids_in(results: Path) -> set[int]:
    """The private users a class grading ran its workers as, read from its results: checked by
    user, as other graders (a parallel test run) have private users of their own."""
    uids = set()
    for path in results.glob("*.json"):
        sandbox = (json.loads(path.read_text()).get("report") or {}).get("sandbox", "")
        uids.update(int(uid) for uid in re.findall(r"a private user \(uid (\d+)\)", sandbox))
    return uids


def process_group(pgid: int) -> list[int]:
    """The ids of the running processes in process group ``pgid``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and os.getpgid(int(entry.name)) == pgid:
                found.append(int(entry.name))
        except (ProcessLookupError, PermissionError):
            pass
    return found


MARKUP_TOKENS = {"heading_open", "link_open", "image", "html_block", "html_inline"}
"""What student text must never become in Gradescope's Markdown."""


@contextlib.contextmanager
def the_only_course_marked_as_graded():
    """Held while a test keeps a course copy that every user may read, marked THIS-COURSE for
    the hostile disk search: a search run by another test (pytest -n) would find that copy, not
    the copy its own grader closed, and read answers no grader of this machine has to hide."""
    with open(Path(os.environ.get("TMPDIR", "/tmp")) / "attnlab-tests-open-course.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def markdown_tokens(markdown: str) -> list:
    """Every token a CommonMark parser (raw HTML allowed, as a renderer may) makes of ``markdown``, nested ones too."""
    found = []
    for token in MarkdownIt("commonmark").parse(markdown):
        found.append(token)
        found.extend(token.children or [])
    return found


def assert_inert_markdown(output: str) -> None:
    made = markdown_tokens(output)
    assert not {t.type for t in made} & MARKUP_TOKENS, [(t.type, t.content) for t in made if t.type in MARKUP_TOKENS]
    assert "All hidden tests passed" not in " ".join(t.content for t in made if t.type == "inline")  # only in code


def gradescope_markdown_is_inert(results: dict, fixture: str) -> None:
    failing = [t for t in results["tests"] if t["status"] == "failed"]
    assert failing
    for test in failing:
        assert test["output_format"] == "md"
        assert_inert_markdown(test["output"])
        fences = [t for t in markdown_tokens(test["output"]) if t.type == "fence"]
        if fixture == "writes_markdown_into_feedback":
            assert any("# All hidden tests passed" in f.content and "<script>" in f.content for f in fences)
            # The student's unclosed fence swallows nothing: what the code printed is still its own paragraph.
            paragraphs = [t.content for t in markdown_tokens(test["output"]) if t.type == "inline"]
            assert "Your code printed:" in paragraphs, paragraphs


def assert_full_marks(report: GradeReport) -> None:
    """Every test of ``report`` passed, with each lost point's test and feedback shown if not."""
    lost = [f"{t.name}: {t.outcome.value}: {t.feedback[:300]}" for t in report.tests if t.score < t.max_score]
    assert not lost, "\n".join(lost)
    assert report.score == report.max_score > 0


@pytest.fixture(scope="session")
def fork_server():
    server = ForkServer(SandboxEnvironment.for_course(COURSE))
    yield server
    server.close()


@pytest.fixture(scope="session")
def class_session():
    """What a grading process of a class holds for the numpy track: the reference's recorded run,
    a fork server of its own and the class's caches."""
    from attnlab.classroom.session import ClassSession
    from attnlab.grading.replay.kept import recorded_run
    from attnlab.reference import Reference

    reference = Reference(COURSE)
    modules = COURSE.tracks["numpy"]
    session = ClassSession(
        COURSE, reference, recorded_run(COURSE, reference, modules), Limits(call_seconds=2.0), modules
    )
    session.start()
    yield session
    session.close()


def grade_in_class(session, submission: Path, only: list[str] | None = None, limits: Limits | None = None):
    """Grade ``submission`` as a grading process of a class does: its fork server, caches and
    recorded run, on the ``only`` files."""
    return grade(
        COURSE,
        submission,
        only=only,
        limits=limits or session.limits,
        fork_server=session.fork_server,
        reference=session.reference,
        answer_cache=session.answer_cache,
        script=session.script,
    )


def grade_as_class(
    fixtures: list[StudentFixture], folder: Path, limits: Limits, *, jobs: int | None = None
) -> dict[str, GradeReport]:
    """Grade ``fixtures`` as one class, on the class path (``attnlab grade CLASS``: the recorded run
    replayed, the rest live, in ``jobs`` grading processes): each spliced into the reference, graded
    on its own exercise file (as ``attnlab audit`` grades a mutant). Each fixture's report, by its name."""
    from attnlab.classroom.gradebook import ResultStore
    from attnlab.classroom.grading import grade_class, plan_class

    classroom = folder / "class"
    for fixture in fixtures:
        build_submission(classroom / fixture.path.stem, fixture)
    store = ResultStore(folder / "results")
    plan = plan_class(COURSE, classroom, store, limits)
    assert sorted(e.student for e in plan.entries) == sorted(f.path.stem for f in fixtures)
    plan.files_of.update({f.path.stem: [f.file.removesuffix(".py")] for f in fixtures})
    outcome = grade_class(COURSE, plan, store, limits, jobs=jobs)
    assert not outcome.failures, outcome.failures
    stored = {result.student: result for result in store.all([f.path.stem for f in fixtures])}
    assert all(stored[f.path.stem].error is None for f in fixtures), {s: r.error for s, r in stored.items() if r.error}
    return {student: GradeReport.from_dict(result.report) for student, result in stored.items()}


@pytest.fixture
def grade_both_paths(tmp_path, fork_server, class_session):
    """Grade a fixture spliced into the reference on its own file, alone (live) and as in a class;
    return both reports."""

    def run(fixture: StudentFixture, *, limits: Limits | None = None):
        submission = build_submission(tmp_path / fixture.path.stem, fixture)
        only = [fixture.file.removesuffix(".py")]
        limits = limits or Limits(call_seconds=1.0)
        alone = grade(COURSE, submission, only=only, limits=limits, fork_server=fork_server)
        in_class = grade_in_class(class_session, submission, only, limits)
        return alone, in_class

    return run


@pytest.fixture
def grade_fixture(tmp_path, fork_server):
    """Grade a fixture spliced into the reference; by default only its own exercise file."""

    def run(fixture: StudentFixture, *, whole: bool = False, limits: Limits | None = None):
        submission = build_submission(tmp_path / fixture.path.stem, fixture)
        only = None if whole else [fixture.file.removesuffix(".py")]
        return grade(COURSE, submission, only=only, limits=limits or Limits(call_seconds=1.0), fork_server=fork_server)

    return run


@contextlib.contextmanager
def chains_of_folders(tops: dict[Path, str | None], depth: int = 1_200):
    """Each of ``tops`` holding a chain of folders ``depth`` deep (``top/d/d/.../d``), with the
    file it names (empty) at the bottom, while the block runs; removed from the bottom up after
    it (``os.makedirs``, ``shutil.rmtree`` and so pytest's own clean-up recurse: they fail)."""
    try:
        for top, file in tops.items():
            _chain_of_folders(top, depth, file)
        yield
    finally:
        for top in tops:
            if top.is_dir():
                _remove_chain(top)


def _chain_of_folders(top: Path, depth: int, file: str | None) -> None:
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):  # each made from the last one: a long path is slow to walk again
        os.mkdir("d", dir_fd=fd)
        below = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = below
    if file:
        os.close(os.open(file, os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    os.close(fd)


def _remove_chain(top: Path) -> None:
    fd, depth = os.open(top, os.O_RDONLY | os.O_DIRECTORY), 0
    while os.path.isdir(f"/proc/self/fd/{fd}/d"):
        below = os.open("d", os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        os.close(fd)
        fd, depth = below, depth + 1
    for name in os.listdir(fd):
        os.unlink(name, dir_fd=fd)
    for _ in range(depth):
        above = os.open("..", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        os.rmdir("d", dir_fd=above)
        fd = above
    os.close(fd)
