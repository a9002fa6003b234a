"""Name the mistake: match a failing student's outputs against known wrong versions of a function.

The catalogue is content (``solutions/misconceptions/``, never shipped to
students): each entry is a wrong implementation with the same signature as
the function it imitates, registered with ``@misconception``. Beside the
entries, each function has a few fixed **diagnostic probes** (``probe``):
inputs chosen so that every two entries of the function, and each entry and
the reference, give different outputs on at least one of them (a 4 x 4 causal
mask, ``L_q != L_k``, ``B == L_q``, a row of scores far below zero).

After a function fails, the grader runs its probes on the student's function
(in the sandbox, like any call: the inputs go in, the student's outputs come
back) and every entry on the probes and on the failing tests' calls (in the
trusted process). An entry is named only when it reproduces the student on
every probe and every call, and differs from the reference on at least one.
Without the probes' results no entry is named: a shrunk 1 x 1 example cannot
tell "mask inverted" from "diagonal masked".
"""

from __future__ import annotations

import copy
import importlib
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np

from attnlab.course import Course
from attnlab.sandbox.inside.module_harness import as_called

_REGISTRY: dict[str, "Misconception"] = {}
_PROBES: dict[str, list["Probe"]] = {}


@dataclass(frozen=True)
class Misconception:
    id: str
    """The wrong implementation's name, e.g. ``sdpa_softmax_over_queries``."""
    function: str
    """The contract function it imitates."""
    name: str
    """The mistake in a few words, as a TA would say it."""
    explanation: str
    """Why it is wrong, tied to the lessons."""
    hint: str
    """What to change."""
    wrong: Callable


@dataclass(frozen=True)
class RecordedCall:
    """One call of a student function during a test, with what came back."""

    function: str
    args: tuple
    kwargs: dict
    result: object


@dataclass(frozen=True)
class Raised:
    """In place of a result: the call raised an exception of this type."""

    type_name: str


@dataclass(frozen=True)
class Probe:
    """One fixed call that helps tell a function's catalogued mistakes apart."""

    function: str
    args: tuple
    kwargs: dict
    why: str
    """What it tells apart, in a few words (``a 4 x 4 mask: the diagonal and the triangle``)."""


class Alternatives(tuple):
    """Several outputs one mistake can produce (say, masked scores filled with -inf or with -1e9);
    a wrong implementation returns this when students write the same mistake more than one way."""


def misconception(function: str, name: str, *, explanation: str, hint: str):
    """Register the decorated wrong implementation of ``function`` in the catalogue."""

    def register(wrong: Callable) -> Callable:
        _REGISTRY[wrong.__name__] = Misconception(wrong.__name__, function, name, explanation.strip(), hint.strip(), wrong)
        return wrong

    return register


def probe(function: str, why: str, *args, **kwargs) -> None:
    """Register a diagnostic probe of ``function``: the call ``function(*args, **kwargs)``.
    Its inputs are fixed and harmless to show a student; its answers are computed only here."""
    _PROBES.setdefault(function, []).append(Probe(function, args, kwargs, why))


def probes_of(function: str) -> list[Probe]:
    """The probes registered for ``function`` (by ``load_catalogue``'s imports)."""
    return list(_PROBES.get(function, ()))


def load_catalogue(course: Course, modules: list[str] | None = None) -> list[Misconception]:
    """Import the catalogue modules (``solutions/misconceptions/*.py``) of ``modules`` (default:
    all): the torch track's imports torch, which grading only the numpy files should not pay."""
    folder = course.solutions_dir / "misconceptions"
    if not folder.is_dir():
        return []
    for path in (course.solutions_dir, folder.parent):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
    for module in modules or course.modules:
        if (folder / f"{module}.py").is_file():
            importlib.import_module(f"misconceptions.{module}")
    # File order, then the order entries are written in: where two entries explain the same outputs
    # (axis 0 and axis -2 on a 2-D input), the one the author wrote first, the commoner, is named.
    order = {entry_id: i for i, entry_id in enumerate(_REGISTRY)}
    wanted = set(modules or course.modules)
    entries = [m for m in _REGISTRY.values() if course.function(m.function).module in wanted]
    return sorted(entries, key=lambda m: (course.modules.index(course.function(m.function).module), order[m.id]))


HALF_PRECISION_AGREEMENT = 0.02


def same(a, b, rtol: float = 1e-5, atol: float = 1e-7) -> bool:
    """Structural closeness: arrays by shape, boolean or not, and values (nan equal to nan),
    containers item by item, and two raised exceptions by their type."""
    if isinstance(a, (Raised, str)) or isinstance(b, (Raised, str)):
        return type(a) is type(b) and a == b
    if a is None or b is None:
        return a is b
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(x, y, rtol, atol) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        if a.get("dtype") == b.get("dtype") == "bfloat16":  # a module's answer: bfloat16 comes back as float32
            return a.keys() == b.keys() and all(_close_on_scale(a[k], b[k]) if k == "output" else same(a[k], b[k], rtol, atol) for k in a)
        return a.keys() == b.keys() and all(same(a[k], b[k], rtol, atol) for k in a)
    try:
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype.kind not in "biuf" or b.dtype.kind not in "biuf":
            return False
        if (a.dtype.kind == "b") != (b.dtype.kind == "b"):  # a float mask of 0s and 1s is not a bool mask
            return False
        if np.float16 in (a.dtype, b.dtype):
            return _close_on_scale(a, b)
        return bool(np.allclose(a.astype(float), b.astype(float), rtol=rtol, atol=atol, equal_nan=True))
    except (TypeError, ValueError):
        return False


def _close_on_scale(a, b) -> bool:
    """Half-precision results: two right computations differ by rounding that adds up along a sum,
    so they are compared on the scale of the whole result (1/50 of its largest value)."""
    try:
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        return False
    if a.shape != b.shape or not np.array_equal(np.isnan(a), np.isnan(b)):
        return False
    scale = max(float(np.nanmax(np.abs(b), initial=0.0)), 1e-3)
    return bool(np.nanmax(np.abs(a - b), initial=0.0) <= HALF_PRECISION_AGREEMENT * scale)


def run_probes(function: str, call_student: Callable[[str, tuple, dict], object]) -> list[RecordedCall] | None:
    """The student's outputs on ``function``'s probes, through ``call_student(function, args,
    kwargs)`` (which returns the result, or ``Raised``). None when a probe could not be answered
    at all (a timeout, a crash, the budget used up): then nothing may be named."""
    recorded = []
    for each in probes_of(function):
        result = call_student(function, copy.deepcopy(each.args), copy.deepcopy(each.kwargs))
        if result is None:
            return None
        recorded.append(RecordedCall(function, each.args, each.kwargs, result))
    return recorded


def identify(catalogue: list[Misconception], function: str, calls: list[RecordedCall], reference, probed: list[RecordedCall] | None = None) -> Misconception | None:
    """The catalogued mistake that explains every recorded output of ``function``, if exactly that.

    ``probed`` is the student's outputs on the function's probes (``run_probes``); a function
    with probes gets no name without them, so a coincidence on a tiny example names nothing."""
    calls = [c for c in calls if c.function == function]
    if probes_of(function):
        if probed is None or len(probed) != len(probes_of(function)):
            return None
        calls = [*probed, *calls]  # probes first: they tell entries apart at once
    if not calls:
        return None
    expected: dict[int, object] = {}  # the reference's outputs, computed only as far as needed

    def differs_from_reference(chosen: list) -> bool:
        for index, output in enumerate(chosen):
            if index not in expected:
                expected[index] = _run(getattr(reference, function), calls[index])
            if not same(output, expected[index]):
                return True
        return False

    for entry in (m for m in catalogue if m.function == function):
        # Stop at the first call the entry does not reproduce: most entries fail on the first, and
        # a test's calls (every example hypothesis tried) can be hundreds of module runs.
        chosen = []
        for call in calls:
            output = _matching(_run(entry.wrong, call), call.result)
            if output is _FAILED:
                break
            chosen.append(output)
        else:
            if differs_from_reference(chosen):
                return entry
    return None


def _matching(output, result):
    """The output (or the alternative) that equals the student's result; _FAILED if none does."""
    candidates = output if isinstance(output, Alternatives) else (output,)
    return next((c for c in candidates if c is not _FAILED and same(c, result)), _FAILED)


_FAILED = object()


def _run(implementation: Callable, call: RecordedCall):
    try:
        with np.errstate(all="ignore"):
            return as_called(implementation)(*copy.deepcopy(call.args), **copy.deepcopy(call.kwargs))
    except Exception as error:  # noqa: BLE001 - it matches a student's call only if that raised the same
        return Raised(type(error).__name__)
