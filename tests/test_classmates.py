"""A score does not depend on the classmates, and no submission makes the grader swell: deadlines
measure a submission's own work, so an honest, slow submission scores the same beside a student
who burns the CPU as beside an honest one (alone and in a class); and all of a submission's
processes together hold no more than its memory budget, in every sandbox mode."""

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import COURSE, SUBMISSIONS, build_submission, read_fixture

from attnlab.grading.suite import grade
from attnlab.sandbox.host import Limits, bwrap_path

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.geteuid() != 0, reason="workers change user, and have groups of their own, only when the grader runs as root"
    ),
]


def hostile(name):
    return read_fixture(SUBMISSIONS / "hostile" / f"{name}.py")


def environment(mode: str) -> dict:
    if mode == "bwrap" and bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    env = {k: v for k, v in os.environ.items() if k != "ATTNLAB_SANDBOX"}
    if mode == "plain":
        env["ATTNLAB_SANDBOX"] = "plain"
    return env


def attnlab(mode: str, *args) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "attnlab.cli", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(mode),
    )


def finished(process: subprocess.Popen) -> None:
    out, err = process.communicate(timeout=900)
    assert process.returncode == 0, err[-3000:]


# Calls of 0.25 s of CPU each under a 1 s deadline: on wall-clock deadlines, beside 14 busy
# processes on this machine's cores, they took more than 1 s by the clock.
SLOW = ["--only", "masks", "--timeout", "1"]


@pytest.mark.parametrize("mode", ["bwrap", "plain"])
def test_an_honest_slow_submission_scores_the_same_beside_a_cpu_hog_as_beside_an_honest_classmate(mode, tmp_path):
    slow, hog = hostile("is_slow_in_cpu_time_and_honest"), hostile("burns_cpu_beside_its_classmates")
    scores = {}
    for neighbour in ("hog", "honest"):
        classroom = tmp_path / f"beside-{neighbour}"
        build_submission(classroom / "a-slow", slow)
        if neighbour == "hog":
            build_submission(classroom / "b-hog", hog)
        else:
            build_submission(classroom / "b-honest", read_fixture(SUBMISSIONS / "correct" / "masks_by_comparison.py"))
        finished(attnlab(mode, "grade", classroom, *SLOW, "--jobs", "2"))
        report = json.loads((classroom.parent / f"{classroom.name}.results" / "a-slow.json").read_text())["report"]
        scores[f"in a class beside the {neighbour}"] = (report["score"], report["max_score"])
    # Alone: graded while the hog is graded by another grading process.
    hog_alone = attnlab(
        mode, "grade", build_submission(tmp_path / "hog-alone", hog), *SLOW, "--json", tmp_path / "hog.json"
    )
    time.sleep(2)  # its burners are running
    slow_alone = attnlab(
        mode, "grade", build_submission(tmp_path / "slow-alone", slow), *SLOW, "--json", tmp_path / "slow.json"
    )
    finished(slow_alone)
    finished(hog_alone)
    report = json.loads((tmp_path / "slow.json").read_text())
    scores["alone beside the hog"] = (report["score"], report["extra_data"]["max_score"])
    assert len(set(scores.values())) == 1 and all(score == most for score, most in scores.values()), scores


def _hoarders(uids: set[int], hoard: int) -> int:
    """How many processes of these users hold ``hoard`` bytes or more of anonymous memory now."""
    count = 0
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError):
            if entry.name.isdigit() and entry.stat().st_uid in uids:
                anon = next(
                    (
                        int(line.split()[1]) << 10
                        for line in (entry / "status").read_text().splitlines()
                        if line.startswith("RssAnon:")
                    ),
                    0,
                )
                count += anon >= hoard
    return count


@contextlib.contextmanager
def most_hoarders_at_once(uids: set[int], hoard: int):
    """While inside: the most processes of ``uids`` that held ``hoard`` bytes at once (``[0]``)."""
    most, done = [0], threading.Event()

    def watch():
        while not done.wait(0.02):
            most[0] = max(most[0], _hoarders(uids, hoard))

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield most
    finally:
        done.set()
        thread.join()


@pytest.fixture(scope="module", params=["bwrap", "plain", "plain-without-control-groups"])
def slot(request):
    """A grading slot of a class in each mode: its fork server, with its control groups or (as in a
    container that shows none) without, and the masks' recorded run."""
    from attnlab.classroom.session import ClassSession
    from attnlab.grading.replay.recording import record_script
    from attnlab.reference import Reference
    from attnlab.sandbox import cgroups

    mode = request.param.removesuffix("-without-control-groups")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in environment(mode).items():
            patch.setenv(name, value)
        if mode == "bwrap":
            patch.delenv("ATTNLAB_SANDBOX", raising=False)
        if mode != request.param:
            patch.setattr(cgroups.SlotGroups, "make", classmethod(lambda cls: None))
        reference = Reference(COURSE)
        session = ClassSession(COURSE, reference, record_script(COURSE, reference, ["masks"]), BUDGET, ["masks"])
        session.start()
    assert (session.fork_server.groups is None) == (mode != request.param)
    yield session
    session.close()


BUDGET = Limits(call_seconds=2.0, memory_bytes=64 << 20)


def test_a_submissions_processes_hold_no_more_than_its_budget_together(slot, tmp_path):
    """Five workers of masks.py, each holding the 48 MiB its file makes at import, under a budget
    of 64 MiB for the submission: at most one holds it at any time (the others stop before a new
    one starts), alone and in a class; and since each one's 48 MiB fits, every test passes."""
    submission = build_submission(tmp_path / "hoarder", hostile("holds_memory_in_every_worker"))
    uids = {slot.fork_server.uid}
    for path in ("alone", "in a class"):
        with most_hoarders_at_once(uids, 40 << 20) as most:
            if path == "alone":
                report = grade(COURSE, submission, only=["masks"], limits=BUDGET, fork_server=slot.fork_server)
            else:
                report = slot.grade(submission, only=["masks"])
        # One worker at a time, alone as in a class.
        assert most[0] == 1, (path, most[0])
        assert report.score == report.max_score, (
            path,
            [t.feedback[:300] for t in report.tests if t.score < t.max_score],
        )


def test_a_submission_past_its_budget_is_out_of_memory_in_words(slot, tmp_path):
    """One worker whose processes together pass the budget (each within its own limit): the
    kernel, or the watch, ends them, and the test says the submission ran out of memory."""
    submission = build_submission(tmp_path / "two", hostile("holds_memory_in_two_processes"))
    report = grade(COURSE, submission, only=["masks"], limits=BUDGET, fork_server=slot.fork_server)
    failed = [t for t in report.tests if t.function == "causal_mask" and t.score < t.max_score]
    assert failed and all(t.outcome.value == "out of memory" for t in failed), [t.feedback[:300] for t in failed]
    assert "the submission's processes together held more than its 64 MiB" in failed[0].feedback


def test_the_cpu_meter_reads_its_own_process_and_keeps_the_last_reading_once_it_is_gone():
    """The meter keeps the process's stat file open (a reading is one pread): it counts the CPU
    the process spends, keeps its last reading once the process is reaped, and lets the file go."""
    from attnlab.sandbox.deadlines import CpuMeter

    code = "import sys, time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\nprint(flush=True)\ntime.sleep(60)"
    busy = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    meter = CpuMeter(busy.pid)
    busy.stdout.readline()  # its CPU is spent
    time.sleep(0.01)  # past FRESH_SECONDS
    assert meter.seconds() >= 0.25 and not meter.gone
    busy.kill()
    busy.wait()
    busy.stdout.close()
    time.sleep(0.01)
    assert meter.seconds() >= 0.25 and meter.gone
    spent = meter.last
    open_files = len(os.listdir("/proc/self/fd"))
    meter.close()
    assert len(os.listdir("/proc/self/fd")) == open_files - 1
    time.sleep(0.01)
    assert meter.seconds() == spent and meter.gone
