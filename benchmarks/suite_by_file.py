"""Where the test suite's time goes: worker seconds per test file, and per test within the slowest.

Reads the JUnit XML of a run of the whole suite (each test's setup, call and teardown together,
pytest's default ``junit_duration_report``):

    .venv/bin/python -m pytest -n auto --dist loadfile --junitxml=suite.xml
    python benchmarks/suite_by_file.py suite.xml [--files 15] [--tests 3]

With two workers the run's wall time is at least half the total printed here, so the total
says what any change of the suite's work can buy, and the table says where.
"""

from __future__ import annotations

import argparse
import collections
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path


def times_by_test(junit: Path) -> dict[tuple[str, str], float]:
    """Seconds of each (test file, test function without its parameters), summed over parameters."""
    seconds: dict[tuple[str, str], float] = collections.Counter()
    for case in ElementTree.parse(junit).iter("testcase"):
        module = (case.get("classname") or "?").split(".")[-1]
        function = (case.get("name") or "?").split("[")[0]
        seconds[(module, function)] += float(case.get("time") or 0.0)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description="The suite's worker seconds per test file, from a JUnit XML report.")
    parser.add_argument("junit", type=Path, help="the report of a whole run (pytest --junitxml=FILE)")
    parser.add_argument("--files", type=int, default=15, help="how many of the slowest files to list (15)")
    parser.add_argument("--tests", type=int, default=3, help="how many of each listed file's slowest tests (3)")
    arguments = parser.parse_args()
    try:
        seconds = times_by_test(arguments.junit)
    except (OSError, ElementTree.ParseError) as problem:
        sys.exit(f"suite_by_file: cannot read {arguments.junit}: {problem}")
    by_file: dict[str, float] = collections.Counter()
    for (module, _), spent in seconds.items():
        by_file[module] += spent
    total = sum(by_file.values())
    print(f"{total:.0f} worker seconds in {len(by_file)} files (two workers: at least {total / 2:.0f} s of wall time)")
    for module, spent in sorted(by_file.items(), key=lambda item: -item[1])[: arguments.files]:
        print(f"{spent:8.1f} s  {spent / total:5.1%}  {module}.py")
        slowest = sorted(((s, f) for (m, f), s in seconds.items() if m == module), reverse=True)[: arguments.tests]
        for spent_on, function in slowest:
            print(f"{'':10}{spent_on:8.1f} s  {function}")


if __name__ == "__main__":
    main()
