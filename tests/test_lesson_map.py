"""The map of lesson points in docs/authors.md: every name it gives is in the course.

The table says which exercise function, quiz question or catalogue entry teaches and grades each
point of the lessons; a rename that leaves the table behind fails here, so the map cannot rot.
"""

import ast
import re

import pytest
from conftest import COURSE, REPO

from attnlab.misconceptions import load_catalogue
from attnlab.quiz.schema import load_quiz

AUTHORS = REPO / "docs" / "authors.md"
SECTION = "## Every lesson point, and what grades it"
QUESTION = re.compile(r"^([a-z0-9-]+):([a-z0-9-]+)$")
FUNCTION = re.compile(r"^([a-z_][a-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)$")
CATALOGUE_ENTRY = re.compile(r"^catalogue ([a-z_][a-z0-9_]*)\.([a-z_][a-z0-9_]*): (.+)$")


def lesson_rows(text: str) -> list[tuple[str, str, list[str]]]:
    """(number, point, names) for every row of the section's tables; names are the last column's code spans."""
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    rows = []
    for line in text[start : end if end != -1 else None].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) == 4 and re.fullmatch(r"A?\d+", cells[0]):
            rows.append((cells[0], cells[2], re.findall(r"`([^`]+)`", cells[3])))
    return rows


ROWS = lesson_rows(AUTHORS.read_text(encoding="utf-8"))
NAMES = sorted({name for _, _, names in ROWS for name in names})
QUIZZES = {path.stem: load_quiz(path) for path in sorted((REPO / "quizzes").glob("*.yaml"))}


def contract_names(module: str) -> set[str]:
    """The top-level functions and classes of solutions/MODULE.py that students write (no leading _)."""
    tree = ast.parse((COURSE.solutions_dir / f"{module}.py").read_text(encoding="utf-8"))
    defined = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {node.name for node in tree.body if isinstance(node, defined) and not node.name.startswith("_")}


def test_the_table_is_there_and_every_row_names_something():
    assert ROWS, f"no table under {SECTION!r} in docs/authors.md"
    numbers = [number for number, _, _ in ROWS]
    assert len(numbers) == len(set(numbers)), "two rows share a number"
    assert not [number for number, _, names in ROWS if not names], "a lesson point that nothing teaches"
    unknown = [n for n in NAMES if not (QUESTION.match(n) or FUNCTION.match(n) or CATALOGUE_ENTRY.match(n))]
    assert not unknown, f"neither quiz:question, module.function nor `catalogue module.function: ...`: {unknown}"


def test_the_table_reads_its_names():
    """The parser sees each kind of name (so the checks below check something)."""
    table = "| # | lesson | point | by |\n|---|---|---|---|\n| 1 | C | p | `a.b`, `q:r`, `catalogue m.f: x y` |\n"
    text = f"{SECTION}\n\n{table}## Next\n| 2 | C | p | `x.y` |\n"
    assert lesson_rows(text) == [("1", "p", ["a.b", "q:r", "catalogue m.f: x y"])]


@pytest.mark.parametrize("name", [n for n in NAMES if QUESTION.match(n)])
def test_every_question_named_is_in_the_bank(name):
    quiz_id, question_id = QUESTION.match(name).groups()
    assert quiz_id in QUIZZES, f"{name}: no quiz {quiz_id!r} in quizzes/ (the bank has {', '.join(QUIZZES)})"
    questions = {q.id for q in QUIZZES[quiz_id].questions}
    assert question_id in questions, f"{name}: quiz {quiz_id} has no question {question_id!r}"


@pytest.mark.parametrize("name", [n for n in NAMES if FUNCTION.match(n)])
def test_every_function_named_is_an_exercise_function(name):
    module, function = FUNCTION.match(name).groups()
    assert module in COURSE.modules, f"{name}: no exercise file {module}.py in the course ({', '.join(COURSE.modules)})"
    assert function in contract_names(module), f"{name}: solutions/{module}.py defines no {function}"


@pytest.mark.parametrize("name", [n for n in NAMES if CATALOGUE_ENTRY.match(n)])
def test_every_catalogue_entry_named_is_in_the_catalogue(name):
    """`catalogue attention.f: keys and values swapped` names an entry of f whose name or explanation
    says each word of four letters or more (by its first four letters: "swapped" matches "swap")."""
    module, function, words = CATALOGUE_ENTRY.match(name).groups()
    assert function in contract_names(module), f"{name}: solutions/{module}.py defines no {function}"
    stems = [w[:4].lower() for w in re.findall(r"[A-Za-z]+", words) if len(w) >= 4]
    entries = [e for e in load_catalogue(COURSE) if e.function == function]
    said = [e.id for e in entries if all(s in f"{e.name} {e.explanation}".lower() for s in stems)]
    assert said, f"{name}: no catalogue entry of {function} says {words!r} (its entries: {[e.name for e in entries]})"


def test_the_lessons_are_named_by_section_never_by_a_path():
    section = AUTHORS.read_text(encoding="utf-8").split(SECTION, 1)[1]
    assert "shared/" not in section and "LESSONS.md" not in section


def test_no_hint_offers_a_finite_fill_as_a_mask():
    """A hint that says −1e9 works like −∞ contradicts the rule for a query that may see no key (zeros,
    not the uniform row a finite fill gives): every hint that mentions −1e9 says why it is wrong."""
    hints = [(f"catalogue {e.id}", e.hint) for e in load_catalogue(COURSE)]
    for path in sorted(COURSE.solutions_dir.glob("*.py")):
        hints += [(path.name, line) for line in path.read_text(encoding="utf-8").splitlines() if "### HINT" in line]
    for quiz in QUIZZES.values():
        hints += [(f"{quiz.id}:{q.id}", q.hint) for q in quiz.questions]
    offered = [where for where, hint in hints if re.search(r"1e9|1e\+9|10⁹", hint) and "uniform" not in hint]
    assert not offered, f"hints that offer -1e9 without saying it leaves a blind row uniform: {offered}"


def test_the_students_page_lists_every_exercise():
    """docs/students.md's table of files has a row for every exercise file, naming each of its functions."""
    rows = {}
    for line in (REPO / "docs" / "students.md").read_text(encoding="utf-8").splitlines():
        found = re.match(r"^\| `([a-z_][a-z0-9_]*)\.py` \|(.*)\|$", line)
        if found:
            rows[found.group(1)] = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)(?:\(|`)", found.group(2)))
    missing = [f"{module}.py" for module in COURSE.modules if module not in rows]
    assert not missing, f"docs/students.md has no row for {missing}"
    unnamed = [f"{module}.{n}" for module in COURSE.modules for n in sorted(contract_names(module) - rows[module])]
    assert not unnamed, f"docs/students.md's table does not name {unnamed}"
