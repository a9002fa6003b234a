"""What kind of input a call of a course function is: the features ``test_public_coverage`` compares
between the calls the hidden tests make and those the public tests make.

A call's features: each optional argument it gives (``arg:mask``), float32 inputs, the rank of its
largest float array (leading axes: ``rank:4``), inputs of a magnitude that makes scores near ±1e4
(``large``), the form of a broadcastable ``mask`` (of the keys, of the queries, or full), a query
that may see no key (``blind``: a boolean row of all False, or left padding under ``causal=True``),
and a call the reference refuses (``raises``).

Run as a script (``python tests/call_features.py MODULE ...``), it runs the public tests of those
files on the reference solutions in this process and prints, as JSON, each test's function, the
contract functions it called and their features: in a process of its own, since the public and the
hidden tests have the same file names.
"""

from __future__ import annotations

import copy
import functools
import importlib
import inspect
import json
import os
import sys
from pathlib import Path

import numpy as np

LARGE = 50.0
"""An input entry this large makes scores of about ±1e4 in the course's tests (100 · 100)."""


def call_features(function, args: tuple, kwargs: dict, raised: bool) -> set[str]:
    """The features of the call ``function(*args, **kwargs)`` (the reference's function, whose
    signature names the arguments), which raised or not."""
    signature = inspect.signature(function)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return {"unbindable"}
    found = {"raises"} if raised else set()
    values = dict(bound.arguments)
    for name, value in values.items():
        default = signature.parameters[name].default
        if default is inspect.Parameter.empty or (value is None and default is None):
            continue
        if isinstance(value, np.ndarray) or value != default:
            found.add(f"arg:{name}")
    arrays = [v for v in values.values() if isinstance(v, np.ndarray)]
    arrays += [a for v in values.values() if isinstance(v, dict) for a in v.values() if isinstance(a, np.ndarray)]
    floats = [a for a in arrays if a.dtype.kind == "f"]
    if any(a.dtype == np.float32 for a in floats):
        found.add("dtype:float32")
    if floats:
        found.add(f"rank:{max(a.ndim for a in floats)}")
        if max(float(np.max(np.abs(a), initial=0.0)) for a in floats) >= LARGE:
            found.add("large")
    causal = values.get("causal") is True
    for name, value in values.items():
        if not (isinstance(value, np.ndarray) and value.dtype == np.bool_):
            continue
        if name == "mask" and value.ndim >= 2:
            form = (
                "keys"
                if value.shape[-2] == 1 < value.shape[-1]
                else "queries"
                if value.shape[-1] == 1 < value.shape[-2]
                else "full"
            )
            found.add(f"form:mask:{form}")
        if value.size and (~value).all(axis=-1).any() or (causal and value.ndim and (~value[..., 0]).any()):
            found.add("blind")
    return found


def public_calls(course, modules: list[str]) -> list[dict]:
    """Run the public tests of ``modules`` on the reference solutions; each test's function, the
    contract functions its calls ran (the student's own, nested ones too) and their features."""
    import pytest

    from attnlab.check.deadline import function_of
    from attnlab.check.run import PYTEST_INI

    folder = course.solutions_dir
    sys.path.insert(0, str(folder))
    os.environ["ATTNLAB_SUBMISSION"] = str(folder)
    wanted = {m for m in course.modules if any(m in course.modules_before(c) or m == c for c in modules)}
    calls: list[tuple[str, set[str]]] = []
    for module in wanted:
        loaded = importlib.import_module(module)
        for name in course.functions_in(module):
            original = getattr(loaded, name, None)
            if callable(original) and not isinstance(original, type):
                setattr(loaded, name, _recording(name, original, calls))
    found: list[dict] = []

    class Collect:
        def pytest_runtest_setup(self, item):
            calls.clear()

        def pytest_runtest_teardown(self, item):
            found.append(
                {"test": item.name, "function": function_of(item), "calls": [[n, sorted(f)] for n, f in calls]}
            )

    tests = [str(course.public_tests_dir / f"test_{m}.py") for m in modules]
    exit_code = pytest.main(
        [*tests, "-q", "-p", "no:cacheprovider", "-c", str(PYTEST_INI), "--rootdir", str(course.exercises_dir)],
        plugins=[Collect()],
    )
    if exit_code not in (0, 1):
        raise SystemExit(f"the public tests could not run (pytest exit {exit_code})")
    return found


def _recording(name: str, function, calls: list):
    @functools.wraps(function)
    def recorded(*args, **kwargs):
        given = (copy.deepcopy(args), copy.deepcopy(kwargs))
        try:
            result = function(*args, **kwargs)
        except Exception:
            calls.append((name, call_features(function, *given, raised=True)))
            raise
        calls.append((name, call_features(function, *given, raised=False)))
        return result

    return recorded


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    from conftest import COURSE

    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet
        try:
            found = public_calls(COURSE, sys.argv[1:])
        finally:
            sys.stdout = stdout
    print(json.dumps(found))
