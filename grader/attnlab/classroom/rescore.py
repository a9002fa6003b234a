"""Rescore a stored result when only the points of ``points.toml`` changed: no student code runs.

A stored result keeps each test's outcome and node id (``TestResult.test``). When the numbers of
``points.toml`` are all that changed since it was graded (the tests, the reference, which tests
pay which, the limits and the engine are as they were), each test's points are shared among its
cases again and a passed case earns its new share; a failed one, and a property left unpaid
(``points.pay_for_values``: stored as failed), earns nothing, as before. A result without node
ids (stored by an older attnlab) is graded again.
"""

from __future__ import annotations

import collections

from attnlab.classroom.gradebook import REGRADE_REASONS, StoredResult
from attnlab.outcomes import Outcome
from attnlab.points import PointsTable, graded_test
from attnlab.results import GradeReport


def only_points_changed(stored: StoredResult | None, fingerprint: str, parts: dict[str, str]) -> bool:
    """Whether ``stored`` is of the same submission, graded by the same grader but for the points."""
    if stored is None or stored.fingerprint != fingerprint or stored.report is None:
        return False
    before = stored.data.get("grader_parts")
    if not isinstance(before, dict):
        return False
    changed = [part for part in REGRADE_REASONS if before.get(part) != parts.get(part)]
    return changed == ["points"]


def rescored(report: dict, table: PointsTable) -> dict | None:
    """``report`` with every test paid as ``table`` says now; None where it cannot be (a test
    without its node id, or one ``points.toml`` no longer has)."""
    tests = report.get("tests") or []
    keys = [graded_test(test.get("test") or "") if test.get("test") else None for test in tests]
    if not tests or None in keys or any(key not in table.points for key in keys):
        return None
    cases = collections.Counter(keys)
    paid = []
    for test, key in zip(tests, keys):
        share = table.points[key] / cases[key]
        paid.append({**test, "score": share if test["outcome"] == Outcome.PASSED.value else 0.0, "max_score": share})
    try:
        return {**report, **GradeReport.from_dict({**report, "tests": paid}).to_dict()}
    except ValueError:
        return None  # not a report attnlab wrote: graded again
