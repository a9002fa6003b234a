"""Build the probe book (``check.probe_book``) from the instructor's catalogue and reference.

For every function with diagnostic probes: each probe's inputs and the reference's answer, and
each catalogue entry's answers. A probe too large to ship (more than ``MAX_PROBE_NUMBERS``
numbers in its inputs and answer: a torch probe at T = 600) is left out; an entry that the
probes left no longer tell from the reference or from an earlier entry is left out too, so the
book never names one mistake for another. ``attnlab stubs`` writes it beside the public tests;
``stale_probe_book`` says when it no longer matches the catalogue.
"""

from __future__ import annotations

import traceback

from attnlab.check.probe_book import BOOK_NAME, BookMistake, BookProbe, FunctionProbes, ProbeBook, encode, size_of
from attnlab.course import Course, CourseError
from attnlab.misconceptions import Alternatives, Raised, RecordedCall, _run, load_catalogue, probes_of, same
from attnlab.reference import Reference, reference_names

MAX_PROBE_NUMBERS = 1024


def _answers(implementation, function: str, probe) -> tuple:
    output = _run(implementation, RecordedCall(function, probe.args, probe.kwargs, None))
    return tuple(output) if isinstance(output, Alternatives) else (output,)


def build_probe_book(course: Course) -> ProbeBook:
    """The book of ``course``'s catalogue (every file's: the PyTorch track's needs torch here)."""
    missing = [library for module in course.modules for library in course.needs_of(module) if not _installed(library)]
    if missing:
        needed = ", ".join(sorted(set(missing)))
        raise CourseError(
            f"the probe book needs {needed} to run the catalogue of every file: install it where attnlab stubs runs"
        )
    with reference_names(course):
        reference = Reference(course)
        try:
            catalogue = load_catalogue(course)
            reference.preload([f.name for f in course.functions])
        except Exception as error:  # noqa: BLE001 - the course's own code: said in one line, with where
            frame = traceback.extract_tb(error.__traceback__)[-1]
            where = f"{frame.filename}, line {frame.lineno}"
            raise CourseError(f"the catalogue cannot be loaded: {where}: {type(error).__name__}: {error}") from None
    functions = {}
    for function in (f.name for f in course.functions):
        probes = []
        for each in probes_of(function, catalogue):
            (expected,) = _answers(getattr(reference, function), function, each)
            if size_of((each.args, each.kwargs, expected)) <= MAX_PROBE_NUMBERS:
                probes.append((each, BookProbe(each.why, tuple(each.args), dict(each.kwargs), expected)))
        if not probes:
            continue
        kept: list[BookMistake] = []
        for entry in (m for m in catalogue if m.function == function):
            answers = tuple(_answers(entry.wrong, function, each) for each, _ in probes)
            if any(size_of(a) > MAX_PROBE_NUMBERS for a in answers):
                continue
            others = [tuple((p.expected,) for _, p in probes), *(m.answers for m in kept)]
            if any(_overlap(answers, other) for other in others):
                continue  # the shipped probes cannot tell it from the reference or an earlier entry
            if not entry.about_raising and not _shown_by_a_value(answers, probes):
                continue  # it would be named on a raise alone, which the book never does
            kept.append(BookMistake(entry.id, entry.name, entry.explanation, entry.hint, answers, entry.about_raising))
        module = course.function(function).module
        functions[function] = FunctionProbes(function, module, tuple(p for _, p in probes), tuple(kept))
    return ProbeBook(functions)


def _shown_by_a_value(answers: tuple, probes: list) -> bool:
    """Does some answer of the mistake, on some shipped probe, differ from the expected one by a value
    (not a raise)?"""
    return any(
        not isinstance(answer, Raised) and not same(answer, book_probe.expected)
        for choices, (_, book_probe) in zip(answers, probes)
        for answer in choices
    )


def _overlap(first: tuple, second: tuple) -> bool:
    """Could one student's answers fit both: on every probe some answer of one equals one of the other?"""
    return all(any(same(a, b) for a in one for b in two) for one, two in zip(first, second))


def _installed(library: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(library) is not None


def book_path(course: Course):
    return course.public_tests_dir / BOOK_NAME


def stale_probe_book(course: Course) -> bool:
    """Does the book beside the public tests differ from what the catalogue makes now? (Answers
    are compared as the check compares them, so the last digits of another machine's BLAS do not count.)"""
    if not (course.solutions_dir / "misconceptions").is_dir():
        return False
    fresh, shipped = build_probe_book(course), ProbeBook.load(book_path(course))
    if shipped is None or fresh.functions.keys() != shipped.functions.keys():
        return True
    for function, made in fresh.functions.items():
        held = shipped.functions[function]
        shape_of = lambda entry: (entry.module, len(entry.probes), [m.id for m in entry.mistakes])  # noqa: E731
        if shape_of(made) != shape_of(held):
            return True
        for a, b in zip(made.probes, held.probes):
            inputs_differ = encode([list(a.args), a.kwargs]) != encode([list(b.args), b.kwargs])
            if a.why != b.why or inputs_differ or not same(a.expected, b.expected):
                return True
        for a, b in zip(made.mistakes, held.mistakes):
            words_differ = (a.name, a.explanation, a.hint) != (b.name, b.explanation, b.hint)
            if words_differ or not all(_overlap((x,), (y,)) for x, y in zip(a.answers, b.answers)):
                return True
    return False


def write_probe_book(course: Course) -> bool:
    """Write the book beside the public tests; True when it changed."""
    if not (course.solutions_dir / "misconceptions").is_dir():
        return False
    if book_path(course).is_file() and not stale_probe_book(course):
        return False
    build_probe_book(course).write(book_path(course))
    return True
