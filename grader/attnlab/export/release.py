"""``attnlab release``: the bundle students receive, and the scan that proves it holds no answers.

The bundle is the generated stubs with their public tests, the student copy of
every quiz, the part of the engine students run (``STUDENT_ENGINE``: ``attnlab
check``, ``attnlab quiz take`` and the public tests' helpers; not the class
grader, the fast path, the sandbox's host or the exports), a ``pyproject.toml``
to install it with, the course's contract page (``docs/contract.md``) and
students' guide (``docs/students.md``: how answers are typed and rounded) when
it has them, and a README for students that says whether the bundle holds exam
copies (only a release with ``--roster`` writes them). Its ``course.toml`` leaves out what only the
instructor's side reads (``[course.warmup]``, a file in ``solutions/``). It holds no
solutions, hidden tests, answer keys or misconception catalogue: ``scan`` looks
for each of them, and for a course file that cites a file the bundle has not got;
a release with either is not written.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import attnlab
from attnlab.course import MANIFEST, Course, CourseError
from attnlab.export import citations
from attnlab.export.stubs import BEGIN, END, stale_stubs
from attnlab.wording import count

ENGINE_DIR = Path(attnlab.__file__).resolve().parent
NOT_COPIED = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
# What ``attnlab check``, ``attnlab quiz take`` and the public tests import, and nothing else: the
# release test imports every shipped module from the installed bundle, so a missing one fails it.
STUDENT_ENGINE = (
    "__init__.py",
    "cli.py",
    "errors.py",
    "options.py",
    "console.py",
    "inert.py",
    "atomic.py",
    "course.py",
    "reference.py",
    "misconceptions.py",
    "wire.py",
    "wording.py",
    "intake/__init__.py",
    "intake/roster.py",
    "intake/misnamed.py",
    "intake/solution_code.py",
    "intake/uploads.py",
    "intake/walk.py",
    "pytest_runs.py",
    "expect.py",
    "differences.py",
    "check",
    "quiz",
    "lab",
    "export/__init__.py",
    "export/stubs.py",
    "export/sheets/__init__.py",
    "export/sheets/options.py",
    "export/quiz",
    "sandbox/__init__.py",
    "sandbox/inside/__init__.py",
    "sandbox/inside/module_harness.py",
    "sandbox/inside/import_rule.py",
    "sandbox/inside/unreadable.py",
)
# Lines shorter than this (``return out``, ``d = x.shape[-1]``) are too common to call a leak.
_SHORTEST_LEAK = 24
# The course's public contract, shipped where the course's files cite it.
CONTRACT_PAGE = Path("docs") / "contract.md"
README_CONTRACT = "\n\nWhat each function takes and returns, and the rules they all keep: `{page}`."
# The students' guide: checking, grading, and how quiz answers are typed and marked.
STUDENTS_PAGE = Path("docs") / "students.md"
README_GUIDE = (
    "\n\nHow to type answers (numbers, vectors, matrices), how they are rounded and marked, and the rest: `{page}`."
)
README_EXAMS = "The exam copies of {quizzes} are in `quizzes/` (`QUIZ.exam.json`): they hold the questions of the ids on your instructor's roster."
README_NO_EXAMS = (
    "This bundle holds no exam copy: your instructor gives you the exam copy (`QUIZ.exam.json`, to put in"
    " `quizzes/`) when the exam is on. Until then `--mode exam` says that it is missing."
)
# Tables of course.toml that only the instructor's side reads.
INSTRUCTOR_TABLES = ("warmup",)

STUDENT_README = """# {name}: your exercises

## Set up

Once, with Python 3.11 or newer, from this folder:

```sh
python3 -m venv .venv && .venv/bin/pip install .
```

The PyTorch track (`exercises/torch_attention.py`) needs torch; its CPU build is enough, and
much smaller than what a plain `pip install torch` fetches on Linux:

```sh
.venv/bin/pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
```

Without torch, `attnlab check` checks the other files and says that this one needs torch.

## The exercises

Your work is in `exercises/`: fill in the parts marked `YOUR CODE HERE`, in file order (a file
may import the ones before it): {files}. Check as often as you like:

```sh
.venv/bin/attnlab check                   # one line per function: passed, failed (and why), not implemented yet
.venv/bin/attnlab check --track numpy     # the numpy files only
.venv/bin/attnlab check --only softmax    # one file
.venv/bin/pytest exercises                # the same public tests in plain pytest (`pytest` alone runs them too)
```

The public tests in `exercises/tests/` are the lessons' worked examples; your instructor grades
with more tests than these. Hand in your exercise files, the `.py` files of `exercises/` (the
folder, or a .zip of it), as your instructor asks.{contract}

## Quizzes

```sh
.venv/bin/attnlab quiz take shapes --student YOUR-ID              # practice: right or wrong at once, with hints
.venv/bin/attnlab quiz take shapes --student YOUR-ID --mode exam  # the exam: answers recorded, to hand in
```

The quizzes are the files in `quizzes/`: {quizzes}; `.venv/bin/attnlab quiz list --student
YOUR-ID` lists them, and which have an exam copy with your questions. At any prompt you can type
`hint` (practice only), `skip`, `back` or `quit`; your progress is saved after every answer, so
the same command goes on where you left. A matrix is typed one row a line, or on one line with
`;` between the rows.{guide}

Give your student id with `--student`, exactly as it is on your instructor's roster (the default
is your login name): the exam copy holds the questions of the roster's ids only. Practice
questions are drawn from a practice pool, not from your exam; a question the exam asks exactly
as practice would is recorded in practice, not checked.

To take the exam, add `--mode exam`. It shows no score and no hints. It ends on a review of
all your answers: type a question's number to go back to it, and `hand in` (then `yes`) when you
are ready. It then writes `QUIZ-YOUR-ID.answers.yaml` in this folder (`--answers-out FILE` picks
another name). Hand that
file in: your instructor marks it and tells you your score. An exam handed in cannot be taken
again. The exam copy holds no answers in any form.

{exams}
"""


def student_pyproject(text: str) -> str:
    """The course's ``pyproject.toml`` as the bundle ships it: plain ``pytest`` at the bundle's root
    runs the public tests (the course's own ``testpaths`` name the engine's tests, not shipped)."""
    public = 'testpaths = ["exercises"]'
    if re.search(r"^testpaths\s*=.*$", text, re.M):
        return re.sub(r"^testpaths\s*=.*$", public, text, count=1, flags=re.M)
    if re.search(r"^\[tool\.pytest\.ini_options\]\s*$", text, re.M):
        return re.sub(
            r"^\[tool\.pytest\.ini_options\]\s*$", f"[tool.pytest.ini_options]\n{public}", text, count=1, flags=re.M
        )
    return text.rstrip("\n") + f"\n\n[tool.pytest.ini_options]\n{public}\n"


def student_manifest(text: str) -> str:
    """The course's ``course.toml`` as the bundle ships it: without the tables only the
    instructor's side reads (``[course.warmup]`` names a file of ``solutions/``)."""
    import tomlkit

    manifest = tomlkit.parse(text)
    course = manifest.get("course")
    for table in INSTRUCTOR_TABLES:
        if course is not None and table in course:
            del course[table]
    return tomlkit.dumps(manifest).rstrip("\n") + "\n"


def _as_a_new_folder(folder: Path) -> None:
    """Give ``folder`` the permissions ``mkdir`` would have: ``mkdtemp`` makes it private whatever the umask."""
    umask = os.umask(0)
    os.umask(umask)
    folder.chmod(0o777 & ~umask)


class ReleaseError(CourseError):
    """The release cannot be built (or would leak); the message is one line."""


@dataclass(frozen=True)
class Release:
    folder: Path
    exercise_files: int
    quizzes: int
    kept_practice: int = 0
    """Quizzes whose practice copy was one kept from an earlier release (``practice_copies``)."""


def solution_lines(course: Course) -> set[str]:
    """The distinctive lines of the reference's solution regions: what must never ship."""
    lines: set[str] = set()
    for module in course.modules:
        inside = False
        for line in (course.solutions_dir / f"{module}.py").read_text(encoding="utf-8").splitlines():
            stripped = line.strip()
            if stripped.startswith(BEGIN):
                inside = True
            elif stripped.startswith(END):
                inside = False
            elif inside and len(stripped) >= _SHORTEST_LEAK and not stripped.startswith("#"):
                lines.add(stripped)
    return lines


def scan(course: Course, folder: Path) -> list[str]:
    """What in ``folder`` would give answers away, one line each (empty: nothing)."""
    leaks: list[str] = []
    hidden_names = {p.name for p in course.hidden_tests_dir.glob("*.py")} - {"conftest.py"}
    forbidden_dirs = {"solutions", "hidden_tests", "misconceptions"}
    secret = solution_lines(course)
    # A hidden test renamed or pasted elsewhere is still found by its test definitions.
    hidden_defs = {
        line.strip()
        for path in course.hidden_tests_dir.glob("test_*.py")
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("def test_")
    }
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder)
        if forbidden_dirs & set(relative.parts):
            leaks.append(f"{relative}: a folder students must not get")
        if path.name in hidden_names and "exercises" not in relative.parts:
            leaks.append(f"{relative}: a hidden test file")
        if path.suffix == ".json" and "quizzes" in relative.parts:
            leaks.extend(f"{relative}: {problem}" for problem in _quiz_problems(path))
        if path.suffix in (".py", ".ipynb", ".md", ".json", ".txt", ".toml", ".yaml", ".yml"):
            text = path.read_text(encoding="utf-8", errors="replace")
            found = sorted(line for line in secret if line in text)
            if found:
                leaks.append(
                    f"{relative}: holds {count(len(found), 'line')} of the reference solutions, e.g. {found[0]!r}"
                )
            tests = sorted(line for line in hidden_defs if line in text)
            if tests:
                leaks.append(f"{relative}: holds {count(len(tests), 'hidden test')}, e.g. {tests[0]!r}")
        if path.suffix in (".yaml", ".yml") and "quizzes" in relative.parts:
            leaks.append(f"{relative}: an instructor's quiz (with its answers); students get the .json copy")
    # What the course tells students must lead to a file they have; the engine's own source is
    # checked against the project it cites (tests/test_citations.py).
    course_files = [
        p
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.suffix in citations.TEXT_SUFFIXES and p.relative_to(folder).parts[0] != "grader"
    ]
    leaks.extend(citations.missing(course_files, folder))
    return leaks


def _quiz_problems(path: Path) -> list[str]:
    """A practice copy keeps hashes and encrypted explanations only: no key, answer or expression;
    an exam copy keeps each student's question text only."""
    from attnlab.quiz.student_copy import EXAM_FIELDS

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return ["not a JSON quiz copy"]
    found: list[str] = []
    if isinstance(data, dict) and data.get("sitting") == "exam":
        for index, question in enumerate(data.get("questions") or []):
            extra = sorted(set(question) - set(EXAM_FIELDS)) if isinstance(question, dict) else ["(not a question)"]
            if extra:
                found.append(
                    f"exam question {index} holds {', '.join(extra)}: an exam copy holds nothing to check against"
                )
        texts = [text for student in (data.get("students") or {}).values() for text in student]
        if any(not _exam_text(text) for text in texts):
            found.append("an exam copy's student entries hold more than prompts, options and answer sizes")

    def walk(value, where: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("answer", "answers", "key", "expression", "solution"):
                    found.append(f"field {where}{key!r} would give the answer away")
                walk(item, f"{where}{key}.")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, f"{where}{index}.")

    walk(data, "")
    return found


def _exam_text(text) -> bool:
    """Whether an exam copy's entry for one student's question is its text, with at most the size of
    its answer (whole numbers: a vector's length, a matrix's rows and columns)."""
    if not isinstance(text, dict) or set(text) - {"layout"} != {"prompt", "options"}:
        return False
    layout = text.get("layout", [])
    return isinstance(layout, list) and len(layout) <= 2 and all(type(n) is int for n in layout)


def _copy_student_engine(into: Path) -> None:
    for name in STUDENT_ENGINE:
        source, target = ENGINE_DIR / name, into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=NOT_COPIED)
        else:
            shutil.copyfile(source, target)


def require_instructor_course(course: Course, needs: str) -> None:
    """Raise ``ReleaseError`` unless ``course`` has its solutions and its stubs are what the
    solutions generate (``needs`` says what for, in the message)."""
    if not course.solutions_dir.is_dir():
        raise ReleaseError(f"{course.solutions_dir} is missing: {needs} is built from the instructor's course")
    from attnlab.export import probe_book_checked
    from attnlab.export.probe_book import book_path, stale_probe_book

    stale = stale_stubs(course.solutions_dir, course.exercises_dir, list(course.modules))
    key = probe_book_checked.digest(course, book_path(course))
    if not probe_book_checked.known_current(key):
        if stale_probe_book(course):
            stale.append("the probe book (exercises/tests/probes.json)")
        else:
            probe_book_checked.remember_current(key)
    if stale:
        raise ReleaseError(f"stubs out of date: {', '.join(stale)} (run `attnlab stubs` first)")


def build(course: Course, out: Path, roster: list[str] = (), progress=None) -> Release:
    """Write the student bundle to ``out`` (a new or empty folder); scan it before it is kept.

    ``progress`` (a ``release_progress.ReleaseProgress``, or None) is told the quizzes' questions
    as their practice copies are made and the roster's students as their exam copies are."""
    from attnlab.export import practice_copies
    from attnlab.quiz import student_copy
    from attnlab.quiz.errors import QuizError
    from attnlab.quiz.items import reference_factory_for
    from attnlab.quiz.schema import load_quiz

    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ReleaseError(f"{out} exists and is not an empty folder; give a new one")
    require_instructor_course(course, "a release")
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".release-", dir=out.parent))  # same file system: one rename
    kept_practice = 0
    try:
        shutil.copytree(course.exercises_dir, staging / "exercises", ignore=NOT_COPIED)
        manifest = student_manifest((course.root / MANIFEST).read_text(encoding="utf-8"))
        (staging / MANIFEST).write_text(manifest, encoding="utf-8")
        for page in (CONTRACT_PAGE, STUDENTS_PAGE):  # the course's files cite the first; the README both
            if (course.root / page).is_file():
                (staging / page).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(course.root / page, staging / page)
        _copy_student_engine(staging / "grader" / "attnlab")
        if (course.root / "pyproject.toml").is_file():
            pyproject = (course.root / "pyproject.toml").read_text(encoding="utf-8")
            (staging / "pyproject.toml").write_text(student_pyproject(pyproject), encoding="utf-8")
        quizzes = sorted((course.root / "quizzes").glob("*.yaml"))
        (staging / "quizzes").mkdir()
        factory = reference_factory_for(lambda: course)
        loaded = []
        for path in quizzes:
            try:
                loaded.append((path, load_quiz(path)))
            except QuizError as error:
                raise ReleaseError(f"{path.name}: {error}") from None
        if progress is not None:
            progress.expect(sum(len(quiz.questions) for _, quiz in loaded), len(loaded) * len(roster))
        practice_done = progress.practice_done if progress is not None else None
        exam_done = progress.exam_done if progress is not None else None
        for path, quiz in loaded:
            key = practice_copies.fingerprint(course, path, student_copy.SCRYPT)
            practice = practice_copies.kept(key, student_copy.SCRYPT)
            if practice is not None:
                kept_practice += 1
                if progress is not None:
                    progress.practice_done(len(quiz.questions))
            else:
                try:
                    practice = student_copy.build(
                        quiz, "practice", factory, cost=student_copy.SCRYPT, on_done=practice_done
                    )
                except QuizError as error:
                    raise ReleaseError(f"{path.name}: {error}") from None
                practice_copies.keep(key, practice, student_copy.SCRYPT)
            (staging / "quizzes" / f"{path.stem}.json").write_text(json.dumps(practice, indent=1), encoding="utf-8")
            if roster:  # an exam copy holds each rostered student's questions as text
                try:
                    exam = student_copy.build(quiz, "exam", factory, list(roster), on_done=exam_done)
                except QuizError as error:
                    raise ReleaseError(f"{path.name}: {error}") from None
                (staging / "quizzes" / f"{path.stem}.exam.json").write_text(
                    json.dumps(exam, indent=1), encoding="utf-8"
                )
        files = ", ".join(f"`{m}.py`" for m in course.modules)
        has_contract = (course.root / CONTRACT_PAGE).is_file()
        contract = README_CONTRACT.format(page=CONTRACT_PAGE.as_posix()) if has_contract else ""
        quiz_names = ", ".join(p.stem for p in quizzes) or "none yet"
        has_guide = (course.root / STUDENTS_PAGE).is_file()
        guide = README_GUIDE.format(page=STUDENTS_PAGE.as_posix()) if has_guide else ""
        exams = README_EXAMS.format(quizzes=quiz_names) if roster and quizzes else README_NO_EXAMS
        readme = STUDENT_README.format(
            name=course.name, files=files, quizzes=quiz_names, contract=contract, guide=guide, exams=exams
        )
        (staging / "README.md").write_text(readme, encoding="utf-8")
        leaks = scan(course, staging)
        if leaks:
            raise ReleaseError(
                f"the release would leak: {leaks[0]}" + (f" (and {len(leaks) - 1} more)" if len(leaks) > 1 else "")
            )
        if out.exists():
            out.rmdir()
        _as_a_new_folder(staging)
        staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Release(out, len(course.modules), len(quizzes), kept_practice)
