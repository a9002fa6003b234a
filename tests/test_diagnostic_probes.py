"""Names given on evidence: the diagnostic probes tell every two catalogue entries apart, and
never let a correct answer be named.

The probes of a function are fixed calls (solutions/misconceptions/*.py, ``probe``). An entry is
named only when it reproduces the student on all of them, so the probes must separate every pair
of entries of a function and each entry from the reference; and a correct variant, run on the
probes as if it had failed a test, must match no entry.
"""

import itertools

import numpy as np
import pytest
from conftest import COURSE, build_submission, fixtures_in

from attnlab.grading.backends import InProcessBackend
from attnlab.misconceptions import (
    Alternatives,
    Raised,
    RecordedCall,
    _run,
    identify,
    load_catalogue,
    probes_of,
    run_probes,
    same,
)
from attnlab.outcomes import StudentError, SubmissionProblem
from attnlab.reference import Reference

CATALOGUE = load_catalogue(COURSE)
REFERENCE = Reference(COURSE)
FUNCTIONS = sorted({m.function for m in CATALOGUE})
CORRECT = fixtures_in("correct")


def _outputs(implementation, function):
    """Per probe, the outputs ``implementation`` may give (several for an ``Alternatives``)."""
    found = []
    for each in probes_of(function):
        output = _run(implementation, RecordedCall(function, each.args, each.kwargs, None))
        found.append(tuple(output) if isinstance(output, Alternatives) else (output,))
    return found


def _tells_apart(first, second) -> list[str]:
    """The probes on which no output of ``first`` equals an output of ``second``."""
    return [
        p.why for p, a, b in zip(probes_of(first[0]), first[1], second[1]) if not any(same(x, y) for x in a for y in b)
    ]


@pytest.fixture(scope="module")
def outputs():
    found = {}
    for function in FUNCTIONS:
        found[("reference", function)] = _outputs(getattr(REFERENCE, function), function)
        for entry in (m for m in CATALOGUE if m.function == function):
            found[(entry.id, function)] = _outputs(entry.wrong, function)
    return found


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_catalogued_function_has_probes(function):
    assert probes_of(function), f"{function} has catalogue entries but no diagnostic probe"
    for each in probes_of(function):
        assert each.why, f"a probe of {function} does not say what it tells apart"


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_probes_separate_every_pair_of_entries_and_the_reference(outputs, function):
    candidates = ["reference", *(m.id for m in CATALOGUE if m.function == function)]
    # An entry whose mistake is writing into an argument, or holding too much memory, answers as
    # the reference does: the test that asks for the arguments after the call, or measures the
    # memory of one, tells them apart (test_misconceptions.py, test_algorithm_points.py).
    in_place = {
        ("reference", m.id)
        for m in CATALOGUE
        if m.function == function and (m.changes_its_arguments or m.holds_too_much)
    }
    # Two such entries of different kinds (one writes into an argument, one holds too much) both
    # answer as the reference on the probes; the same two tests tell each from the other.
    kind = {
        m.id: (m.changes_its_arguments, m.holds_too_much)
        for m in CATALOGUE
        if m.function == function and (m.changes_its_arguments or m.holds_too_much)
    }
    for first, second in itertools.combinations(candidates, 2):
        if first in kind and second in kind and kind[first] != kind[second]:
            continue
        if (first, second) in in_place:
            assert not _tells_apart((function, outputs[(first, function)]), (function, outputs[(second, function)])), (
                f"{second} is declared to change its arguments or memory only, yet answers otherwise than the reference"
            )
            continue
        apart = _tells_apart((function, outputs[(first, function)]), (function, outputs[(second, function)]))
        assert apart, f"no probe of {function} tells {first} from {second}"


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_entry_shows_on_a_probe_by_a_value(outputs, function):
    """A raise is never evidence of a mistake about values: each entry must give, on some probe, a
    value (not a raise) that the reference does not, or it could only be named on a crash. An entry
    about raising, or about the arguments or the memory only, is the exception."""
    reference = outputs[("reference", function)]
    for entry in (m for m in CATALOGUE if m.function == function):
        if entry.about_raising or entry.changes_its_arguments or entry.holds_too_much:
            continue
        shown = [
            each.why
            for each, answers, (expected,) in zip(probes_of(function), outputs[(entry.id, function)], reference)
            if any(not isinstance(a, Raised) and not same(a, expected) for a in answers)
        ]
        assert shown, f"{entry.id}: on every probe of {function} it raises or answers as the reference does"


def test_the_reference_answers_every_probe(outputs):
    """A probe the reference itself fails on would compare students with an error."""
    for function in FUNCTIONS:
        for each, (result,) in zip(probes_of(function), outputs[("reference", function)]):
            assert not isinstance(result, Raised), (
                f"the reference raised {result.type_name} on {function}'s probe: {each.why}"
            )


@pytest.mark.parametrize("fixture", CORRECT, ids=[f.path.stem for f in CORRECT])
def test_a_correct_variant_is_never_named(tmp_path, fixture):
    """Run on the probes as if it had failed, each of its functions matches the reference and no entry."""
    submission = build_submission(tmp_path / fixture.path.stem, fixture)
    backend = InProcessBackend(COURSE, submission, REFERENCE)

    def call(function, args, kwargs):
        try:
            return backend.run(function, args, kwargs).value
        except StudentError as error:
            return Raised(error.error_type or "Exception")
        except SubmissionProblem:
            return None

    module = fixture.file.removesuffix(".py")
    written = [
        f
        for f in COURSE.functions_in(module)
        if f"def {f}(" in fixture.path.read_text() or f"class {f}(" in fixture.path.read_text()
    ]
    assert written, f"{fixture.path.stem} defines no contract function"
    for function in (f for f in written if f in FUNCTIONS):
        probed = run_probes(function, call, CATALOGUE)
        assert probed is not None, f"{fixture.path.stem}: {function} could not answer a probe"
        for recorded in probed:
            expected = _run(getattr(REFERENCE, function), recorded)
            assert same(recorded.result, expected), (
                f"{fixture.path.stem}: {function} differs from the reference on a probe"
            )
        assert identify(CATALOGUE, function, [], REFERENCE, probed) is None


def test_no_name_without_the_probes():
    """A 1 x 1 causal mask fits both "diagonal masked" and "marks the future": without the probes'
    evidence nothing is named, with it the right one is."""
    tiny = RecordedCall("causal_mask", (1,), {}, np.zeros((1, 1), dtype=bool))
    assert identify(CATALOGUE, "causal_mask", [tiny], REFERENCE) is None
    student = next(m for m in CATALOGUE if m.id == "causal_diagonal_masked").wrong
    probed = run_probes("causal_mask", lambda f, a, k: student(*a, **k), CATALOGUE)
    assert identify(CATALOGUE, "causal_mask", [tiny], REFERENCE, probed).id == "causal_diagonal_masked"


def test_a_probe_that_could_not_run_names_nothing():
    """A timeout or a crash on a probe (``None``) is no evidence: no name, whatever the tests showed."""
    student = next(m for m in CATALOGUE if m.id == "causal_upper_triangular").wrong
    tests = [RecordedCall("causal_mask", (3,), {}, student(3))]
    answers = iter([None])
    assert run_probes("causal_mask", lambda f, a, k: next(answers), CATALOGUE) is None
    assert identify(CATALOGUE, "causal_mask", tests, REFERENCE, None) is None


def test_a_probe_that_never_returns_in_attnlab_check_ends_at_its_deadline(tmp_path):
    """`attnlab check` runs the student's own code in its process: a probe gets the test deadline."""
    from attnlab.check.run import CallRecorder

    def loops_on_square_input(x, axis=-1):
        while x.shape[0] == x.shape[-1]:
            pass
        return x

    recorder = CallRecorder(COURSE, tmp_path, probe_seconds=0.3)
    recorder.originals["softmax"] = loops_on_square_input
    assert run_probes("softmax", recorder.probe, CATALOGUE) is None


def test_an_entrys_output_is_computed_once_per_input_and_within_a_budget(monkeypatch):
    """A class's students who make one mistake fail on the same examples: an entry's output on a
    call is computed once per process, again for other inputs, and kept within a budget of bytes."""
    from attnlab import misconceptions

    monkeypatch.setattr(misconceptions, "_KNOWN_OUTPUTS", misconceptions._KnownOutputs())
    runs = []

    def wrong(x):
        runs.append(x.shape)
        return x * 2.0

    first, second = np.ones((2, 3)), np.zeros((4, 3))
    calls = [RecordedCall("softmax", (first,), {}, first * 2.0), RecordedCall("softmax", (second,), {}, second)]
    outputs = [_run(wrong, call) for call in (*calls, *calls)]
    assert runs == [(2, 3), (4, 3)]
    assert same(outputs[0], first * 2.0) and same(outputs[2], first * 2.0)
    assert same(_run(wrong, RecordedCall("softmax", (first + 1.0,), {}, None)), (first + 1.0) * 2.0)
    assert len(runs) == 3

    known = misconceptions._KnownOutputs()
    monkeypatch.setattr(known, "BUDGET", 4 * (first.nbytes + 64))
    for index in range(8):
        known.keep(("entry", index), np.full((2, 3), float(index)))
    assert known.held <= known.BUDGET and 0 < len(known.outputs) < 8
    assert same(known.get(("entry", 7)), np.full((2, 3), 7.0)) and known.get(("entry", 0)) is None
