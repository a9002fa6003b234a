"""What a student's code printed comes back whole, in order, with the test that printed it.

The worker writes its stdout into a file whose offset it shares with the grader; the grader
reads it without moving that offset (``WorkerProcess.take_output``), so a print that follows a
flood of output is neither written over the flood's middle nor lost.
"""

import os
import re
import tempfile

import pytest
from conftest import COURSE, SUBMISSIONS, build_submission, grade_in_class, read_fixture

from attnlab.grading.suite import grade
from attnlab.sandbox.host import Limits
from attnlab.sandbox.worker_process import WorkerProcess

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

GAP_LINE = re.compile(r"gap for \d+ tokens: \S+")


def output_files_only(limits: Limits) -> WorkerProcess:
    """A worker's output side alone: its two capture files, nothing started."""
    worker = WorkerProcess.__new__(WorkerProcess)
    worker._output = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
    worker._output_read = [0, 0]
    worker.limits = limits
    return worker


def test_output_after_a_flood_that_was_cut_is_read_whole_and_in_order():
    worker = output_files_only(Limits(output_chars=100))
    stdout, stderr = (f.fileno() for f in worker._output)
    os.write(stdout, b"~" * 5000)
    flood = worker.take_output()
    assert flood.startswith("~" * 100) and "more bytes not shown" in flood
    os.write(stdout, b"second\n")
    os.write(stderr, b"warned\n")
    os.write(stdout, b"third\n")
    assert worker.take_output() == "second\nthird\n[stderr]\nwarned\n"
    assert worker.take_output() == ""


@pytest.fixture(scope="module")
def flooding(tmp_path_factory):
    return build_submission(
        tmp_path_factory.mktemp("printing") / "floods", read_fixture(SUBMISSIONS / "printing" / "floods_then_prints.py")
    )


def lines_after_the_flood(report) -> None:
    """The first test of equivariance_gap holds the flood (cut); each later one its own whole lines."""
    tests = [t for t in report.tests if t.function == "equivariance_gap"]
    assert len(tests) >= 2 and all(t.score == t.max_score for t in tests)
    flooded, *after = tests
    assert flooded.output.startswith("~") and "more bytes not shown" in flooded.output
    for test in after:
        lines = test.output.splitlines()
        assert lines and all(GAP_LINE.fullmatch(line) for line in lines), (test.name, test.output[:300])


def test_each_test_gets_its_own_lines_after_a_flood_alone(flooding, fork_server):
    lines_after_the_flood(grade(COURSE, flooding, only=["positions"], fork_server=fork_server))


def test_each_test_gets_its_own_lines_after_a_flood_in_a_class(flooding, class_session):
    lines_after_the_flood(grade_in_class(class_session, flooding, ["positions"]))
