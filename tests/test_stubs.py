"""exercises/ is generated from solutions/, and the generator refuses malformed regions."""

import ast

import pytest
from conftest import COURSE

from attnlab.export.stubs import StubError, make_stub, stale_stubs


def test_exercises_are_up_to_date():
    stale = stale_stubs(COURSE.solutions_dir, COURSE.exercises_dir, list(COURSE.modules))
    assert not stale, f"out of date: {stale}; run `attnlab stubs`"


def test_stubs_hold_no_solution_code():
    for module in COURSE.modules:
        stub = (COURSE.exercises_dir / f"{module}.py").read_text()
        tree = ast.parse(stub)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                body = [n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
                assert len(body) == 1 and isinstance(body[0], ast.Raise), (
                    f"{module}.{node.name} should only raise NotImplementedError"
                )
        assert "BEGIN SOLUTION" not in stub and "END SOLUTION" not in stub


def test_signatures_and_docstrings_are_the_reference_ones():
    for module in COURSE.modules:
        reference = {
            n.name: n
            for n in ast.parse((COURSE.solutions_dir / f"{module}.py").read_text()).body
            if isinstance(n, ast.FunctionDef)
        }
        stub = {
            n.name: n
            for n in ast.parse((COURSE.exercises_dir / f"{module}.py").read_text()).body
            if isinstance(n, ast.FunctionDef)
        }
        assert reference.keys() == stub.keys()
        for name, node in reference.items():
            assert ast.dump(node.args) == ast.dump(stub[name].args)
            assert ast.get_docstring(node) == ast.get_docstring(stub[name])
            assert "Shapes:" in ast.get_docstring(node), f"{module}.{name} needs a shape passport in its docstring"


def test_hints_survive_as_comments():
    source = "def f(x):\n    ### BEGIN SOLUTION\n    ### HINT: use np.exp\n    return x\n    ### END SOLUTION\n"
    stub = make_stub(source, "f.py")
    assert "    # Hint: use np.exp\n" in stub
    assert 'raise NotImplementedError("f is not implemented yet")' in stub
    assert "return x" not in stub


@pytest.mark.parametrize(
    "source, message",
    [
        ("def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n", "f.py:3: nested"),
        ("def f():\n    ### END SOLUTION\n", "f.py:2: '### END SOLUTION' without"),
        ("def f():\n    ### BEGIN SOLUTION\n    return 1\n", "f.py:2: '### BEGIN SOLUTION' is never closed"),
    ],
)
def test_malformed_regions_are_refused(source, message):
    with pytest.raises(StubError, match=message):
        make_stub(source, "f.py")


def test_the_probe_book_is_up_to_date():
    from attnlab.export.probe_book import stale_probe_book

    assert not stale_probe_book(COURSE), "exercises/tests/probes.json is out of date; run `attnlab stubs`"


def test_a_changed_probe_makes_the_book_stale(tmp_path, monkeypatch):
    import shutil

    from attnlab.course import Course
    from attnlab.export.probe_book import stale_probe_book

    for part in ("exercises", "solutions"):
        shutil.copytree(
            COURSE.root / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__", "hidden_tests")
        )
    book = tmp_path / "exercises" / "tests" / "probes.json"
    book.write_text(
        book.read_text().replace('"an 11 x 11 mask: the diagonal', '"an 11 x 11 mask, renamed: the diagonal', 1)
    )
    assert stale_probe_book(Course.load(tmp_path))


def test_no_hidden_test_asks_what_a_probe_asks(monkeypatch):
    """The book gives students the expected answer on each probe's inputs: a hidden test that called
    with the same inputs would pay a submission that parrots the book. None does (numpy track)."""
    from attnlab.check.probe_book import ProbeBook, encode
    from attnlab.grading.student import StudentProxy
    from attnlab.grading.suite import grade

    asked = set()
    original = StudentProxy._run

    def recording(self, function, args, kwargs, **options):
        try:
            asked.add((function, repr(encode([list(args), dict(kwargs)]))))
        except TypeError:
            pass
        return original(self, function, args, kwargs, **options)

    monkeypatch.setattr(StudentProxy, "_run", recording)
    numpy_files = COURSE.tracks["numpy"]
    report = grade(COURSE, COURSE.solutions_dir, only=numpy_files, in_process=True)
    assert report.score == report.max_score and asked
    book = ProbeBook.load(COURSE.public_tests_dir / "probes.json")
    shared = [
        (f.function, p.why)
        for f in book.functions.values()
        if f.module in numpy_files
        for p in f.probes
        if (f.function, repr(encode([list(p.args), dict(p.kwargs)]))) in asked
    ]
    assert not shared, f"hidden tests call these probes' inputs: {shared}"
