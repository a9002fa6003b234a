"""The class's fast path (record once, replay per submission) gives the live verdicts, cheaper.

Each test grades a submission twice, once with the recorded script (as class grading
does) and once live, and compares; and checks that the fast path did decide what it
should (a correct submission runs no live test at all).
"""

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import COURSE, SUBMISSIONS, build_submission, read_fixture

from attnlab import grading, program_replay
from attnlab.grading import grade, record_script
from attnlab.outcomes import Outcome
from attnlab.reference import Reference
from attnlab.sandbox.host import Limits

NUMPY = COURSE.tracks["numpy"]


@pytest.fixture(scope="module")
def reference():
    return Reference(COURSE)


@pytest.fixture(scope="module")
def script(reference):
    return record_script(COURSE, reference, NUMPY)


@pytest.fixture
def grade_both(tmp_path, fork_server, reference, script, monkeypatch):
    """Grade a fixture (or the reference itself) with the script and live (unless ``live`` is
    False: the live report is then None); return both reports and the tests the script decided."""

    def run(kind: str | None = None, name: str | None = None, limits: Limits | None = None, only: list[str] = NUMPY, live: bool = True):
        folder = tmp_path / (name or "reference")
        if name is None:
            folder.mkdir()
            for module in COURSE.modules:
                (folder / f"{module}.py").write_bytes((COURSE.solutions_dir / f"{module}.py").read_bytes())
        else:
            build_submission(folder, read_fixture(SUBMISSIONS / kind / f"{name}.py"))
        decided: dict = {}
        replay = grading.replay

        def watched_replay(*args, **kwargs):
            decided.update(replay(*args, **kwargs))
            return decided

        monkeypatch.setattr(grading, "replay", watched_replay)
        limits = limits or Limits(call_seconds=1.0)
        started = time.monotonic()
        fast = grade(COURSE, folder, only=only, limits=limits, fork_server=fork_server, reference=reference, script=script, callback_cache={})
        fast_seconds = time.monotonic() - started
        monkeypatch.setattr(grading, "replay", replay)
        if not live:
            return fast, None, decided, (fast_seconds, None)
        started = time.monotonic()
        live = grade(COURSE, folder, only=only, limits=limits, fork_server=fork_server, reference=reference)
        return fast, live, decided, (fast_seconds, time.monotonic() - started)

    return run


def verdicts(report) -> dict:
    """Each test's verdict, with its feedback (but for a measured peak, which varies by a MiB run to run)."""
    return {t.name: (t.outcome, t.score, t.misconception, "" if "never holds" in t.name else t.feedback) for t in report.tests}


def test_a_correct_submission_is_decided_entirely_by_the_script(grade_both, script, monkeypatch):
    seen = []  # per result with no nested call to check: was it taken as the recorded answer?
    identical = program_replay._identical

    def watched(header, buffers, expected):
        answer = identical(header, buffers, expected)
        if program_replay._plain(header):
            seen.append(answer)
        return answer

    monkeypatch.setattr(program_replay, "_identical", watched)
    fast, live, decided, _ = grade_both()
    # The reference's own results come back as its recorded answers' very text and bytes, and are
    # accepted as they are, not parsed and judged value by value. (Not quite all: the sandbox's
    # one BLAS thread may sum a product in another order than the recording's threads did.)
    assert len(seen) > 400 and sum(seen) >= 0.9 * len(seen)
    assert verdicts(fast) == verdicts(live)
    assert fast.score == fast.max_score
    replayable = [t for t in script.tests if t.replayable]
    assert len(decided) == len(replayable) == len(script.tests), "every hidden test, the memory test too, is replayed"


def test_the_memory_test_is_replayed_and_still_catches_the_full_matrix(grade_both):
    fast, live, decided, _ = grade_both("buggy", "online_holds_the_full_matrix")
    assert verdicts(fast) == verdicts(live)
    memory = next(t for t in fast.tests if "never holds" in t.name)
    assert memory.outcome.value == "failed" and "MiB" in memory.feedback
    assert not any("never holds" in nodeid for nodeid in decided)


@pytest.mark.parametrize("name, all_replayed", [("gap_printed", True), ("gap_written_to_the_file", False)])
def test_each_test_is_given_what_it_printed_as_live(grade_both, name, all_replayed):
    # print() is counted by the program's own stdout; a write past it (os.write) is found when
    # the file is asked, once per message: the tests of that message run live, and from then on
    # the program asks the file after every call.
    fast, live, decided, _ = grade_both("printing", name)
    assert verdicts(fast) == verdicts(live) and fast.score == fast.max_score
    printed = {t.name: t.output for t in live.tests if t.output}
    assert len(printed) == 2 and all(text.count("gap for") == 20 for text in printed.values())
    assert {t.name: t.output for t in fast.tests if t.output} == printed
    replayed = [nodeid for nodeid in decided if "equivariance" in nodeid]
    assert (len(replayed) == 2) == all_replayed


def test_bugs_that_cancel_out_get_the_live_verdict(grade_both):
    # With its own split_heads, this multi_head_attention is right; with the reference's it is not.
    fast, live, decided, _ = grade_both("compensating", "heads_tokens_first")
    assert verdicts(fast) == verdicts(live)
    failed = {t.function for t in fast.tests if t.score < t.max_score}
    assert failed == {"split_heads", "merge_heads", "multi_head_attention"}
    assert not any("multi_head_attention" in nodeid for nodeid in decided)


@pytest.mark.parametrize("kind, name", [("correct", "softmax_logsumexp"), ("buggy", "sdpa_mask_inverted")])
def test_correct_variants_and_bugs_get_the_live_verdicts(grade_both, kind, name):
    fast, live, _, _ = grade_both(kind, name)
    assert verdicts(fast) == verdicts(live)


@pytest.mark.parametrize("name, function", [("softmax_global_max", "softmax"), ("scores_full_transpose", "attention_scores")])
def test_a_bug_in_a_sibling_leaves_only_its_own_tests_to_the_live_run(grade_both, script, name, function):
    # Live, every caller of the buggy function gets the reference's answer from a stand-in and
    # passes; the fast path reruns the callers with those answers instead of running them live.
    # (softmax_global_max gives wrong values; scores_full_transpose raises on batched inputs.)
    fast, live, decided, _ = grade_both("buggy", name)
    assert verdicts(fast) == verdicts(live)
    left_live = {t.result.function for t in script.tests if t.nodeid not in decided}
    assert left_live == {function}
    assert {t.function for t in fast.tests if t.score < t.max_score} == {function}


def test_answers_too_many_for_one_message_leave_their_tests_to_the_live_run(grade_both, script, monkeypatch):
    # A program refuses a message of more arrays than the wire carries, and stops; so the fast
    # path does not send such a rerun (RERUN_BUFFERS, lowered here to make every rerun too big).
    monkeypatch.setattr(program_replay, "RERUN_BUFFERS", 0)
    fast, live, decided, _ = grade_both("buggy", "softmax_global_max")
    assert verdicts(fast) == verdicts(live)
    left_live = {t.result.function for t in script.tests if t.nodeid not in decided}
    assert left_live > {"softmax"}  # the callers, which a rerun would have decided


# A deadline long enough to tell "one deadline" (what a live run alone costs) from "two" (the fast
# path's, then the live run's again) whatever the machine's noise.
LONG_DEADLINE = Limits(call_seconds=3.0)


def test_an_infinite_loop_costs_one_deadline_with_the_script(grade_both, script):
    fast, live, decided, (fast_seconds, live_seconds) = grade_both("hostile", "infinite_loop", limits=LONG_DEADLINE)
    assert verdicts(fast) == verdicts(live)
    timed_out = [t for t in fast.tests if t.outcome.value == "timed out"]
    assert timed_out and all(t.function == "softmax" for t in timed_out)
    assert fast_seconds < live_seconds + 1.5, "the live run was told of the fast path's timeout, and did not wait again"
    # The program started again with softmax poisoned: its callers were answered, not run live.
    assert {t.result.function for t in script.tests if t.nodeid not in decided} == {"softmax"}


def test_a_crash_leaves_only_the_crashing_function_to_the_live_run(grade_both, script):
    fast, live, decided, _ = grade_both("hostile", "segfault_in_function")
    assert verdicts(fast) == verdicts(live)
    assert {t.function for t in fast.tests if t.outcome.value == "crashed"} == {"attention_scores"}
    assert {t.result.function for t in script.tests if t.nodeid not in decided} == {"attention_scores"}


def test_threads_left_running_cost_seconds_with_the_script_not_the_budget(grade_both, script):
    # Each call of softmax starts a thread that prints forever: the program used to run on, each
    # call slower, to the submission's 60 s budget.
    fast, live, decided, (fast_seconds, _) = grade_both("hostile", "threads_that_print_forever")
    assert verdicts(fast) == verdicts(live)
    assert {t.function for t in fast.tests if t.outcome.value == "crashed"} == {"softmax"}
    assert {t.result.function for t in script.tests if t.nodeid not in decided} == {"softmax"}
    assert fast_seconds < 15


def test_a_file_that_hangs_at_import_costs_one_deadline_with_the_script(grade_both, script):
    fast, live, decided, (fast_seconds, live_seconds) = grade_both("hostile", "hangs_at_import", limits=LONG_DEADLINE)
    assert verdicts(fast) == verdicts(live)
    assert fast_seconds < live_seconds + 1.5, "the live run was told the file hangs, and did not import it again"
    # The program stood in for scores.py: only its own tests ran live.
    assert {t.result.function for t in script.tests if t.nodeid not in decided} == {"attention_scores"}


def test_the_recorded_calls_go_to_the_fork_server_once_and_again_after_it_died(tmp_path, fork_server, reference, script, monkeypatch):
    # A program is sent only the number of each segment it runs: the calls themselves are the
    # fork server's, given once and inherited by every fork. So are the nested results the grader
    # accepted: a program writes down only those it has not seen accepted. A fork server that died
    # (a student may kill it) is started again, and given both again.
    from attnlab.sandbox import host, program_host

    loads, written_down = [], []
    load = host.ForkServer._load
    monkeypatch.setattr(host.ForkServer, "_load", lambda self, key: (loads.append(key), load(self, key)))
    run = program_host.ProgramProcess.run

    def watched_run(self, framed, count):
        for header, buffers, seconds in run(self, framed, count):
            written_down.extend(header.get("nested", []))
            yield header, buffers, seconds

    monkeypatch.setattr(program_host.ProgramProcess, "run", watched_run)
    folder = tmp_path / "reference"
    folder.mkdir()
    for module in COURSE.modules:
        (folder / f"{module}.py").write_bytes((COURSE.solutions_dir / f"{module}.py").read_bytes())

    def grade_fast() -> int:
        """Grade the reference with the script; how many nested results its program wrote down."""
        decided: dict = {}
        written_down.clear()
        monkeypatch.setattr(grading, "replay", lambda *a, **k: decided.update(replay(*a, **k)) or decided)
        report = grade(COURSE, folder, only=NUMPY, fork_server=fork_server, reference=reference, script=script, callback_cache={})
        assert report.score == report.max_score and len(decided) == len(script.tests)
        return len(written_down)

    replay = grading.replay
    grade_fast()
    given = len(loads)  # 1, or 0 when an earlier test of this fork server gave them already
    assert grade_fast() == 0  # every nested call its program made had been accepted before
    assert given <= 1 and len(loads) == given
    fork_server.process.kill()
    fork_server.process.wait()
    assert grade_fast() == 0
    assert len(loads) == given + 1


def test_a_result_many_students_share_is_judged_once(grade_both, script, monkeypatch):
    # A correct variant's results are not the reference's bit for bit; the verdict on each is kept
    # by (call, digest of the result), and the next submission with that variant reuses it. (The
    # first one's nested results are new, so its callers' verdicts are kept from the second on.)
    from attnlab import program_replay

    fast, live, decided, _ = grade_both("correct", "softmax_logsumexp")
    assert verdicts(fast) == verdicts(live)
    grade_both("correct", "softmax_logsumexp", live=False)
    assert script.nested_checks.results
    judged = []
    judge = program_replay._judge
    monkeypatch.setattr(program_replay, "_judge", lambda *a: judged.append(a) or judge(*a))
    again, _, decided_again, _ = grade_both("correct", "softmax_logsumexp", live=False)
    assert verdicts(again) == verdicts(fast) and decided_again.keys() == decided.keys()
    assert not judged, "every result was judged before"


def test_a_result_the_tests_accept_though_not_the_references_is_decided_without_a_live_run(grade_both, script):
    # This softmax returns float64 for float32 scores: not the reference's behaviour (so not passed
    # on sight), yet every hidden check accepts it. Its tests' own checks are run on the program's
    # results, on the recorded examples, instead of a live run.
    fast, live, decided, _ = grade_both("correct", "softmax_moveaxis_loop")
    assert verdicts(fast) == verdicts(live)
    assert fast.score == fast.max_score
    assert len(decided) == len(script.tests), "no test ran live"


def _recorded_calls_per_test(load_first: bool) -> list[int]:
    """In a fresh process: the softmax tests' recorded calls, the hidden tests loaded ahead or not."""
    code = (
        "import sys, json; sys.path.insert(0, sys.argv[1]); from conftest import COURSE\n"
        "from attnlab.grading import load_hidden_tests, record_script\n"
        f"{'load_hidden_tests(COURSE)' if load_first else 'pass'}\n"
        "print(json.dumps([len(t.calls) for t in record_script(COURSE, only=['softmax']).tests]))"
    )
    done = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent)], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def test_hidden_tests_loaded_ahead_run_as_a_session_runs_them():
    """Class grading imports the hidden tests once before it forks (load_hidden_tests). @given
    keeps the settings in force at import: loaded outside grading's profile, every test would
    draw hypothesis's 100 examples instead of grading's 20."""
    loaded_ahead = _recorded_calls_per_test(load_first=True)
    assert loaded_ahead == _recorded_calls_per_test(load_first=False)
    assert set(loaded_ahead) == {20}


def test_a_program_that_stops_reading_ends_its_fast_path_not_its_grading(grade_both, script):
    """softmax shuts the program's line from the grader, then answers correctly: the next
    segment cannot be sent. That is a crash of the program (the rest runs live, where each test
    of softmax that calls it twice crashes with a message that says why), never a failure of
    the grader. The fast path kept the calls whose answers had come back before, and so differs
    from live here: what it kept are right answers, not a forged score."""
    fast, live, decided, _ = grade_both("hostile", "deafens_its_channel")
    crashed = [t for t in live.tests if t.function == "softmax" and t.outcome is Outcome.CRASHED]
    assert crashed and all("stopped listening to the grader" in t.feedback for t in crashed)
    assert {t.function for t in fast.tests if t.outcome is not Outcome.PASSED} <= {"softmax"}
    assert len(decided) < len(script.tests)  # the segments after the first ran live


PEAK_OF_A_FAST_PATH = """
import sys, warnings
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")
from pathlib import Path
from conftest import COURSE
from attnlab.grading import grade, record_script
from attnlab.reference import Reference
reference = Reference(COURSE)
script = record_script(COURSE, reference, ["softmax"])
report = grade(COURSE, Path(sys.argv[2]), only=["softmax"], reference=reference, script=script, callback_cache={})
# VmHWM, not ru_maxrss: that one keeps, across exec, the peak of the process that forked this one.
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(report.score, peak << 10)
"""


def test_a_program_returning_15_mb_per_call_does_not_fill_the_graders_memory(tmp_path):
    """Each differing result is kept for the test's own checks (body_replay), up to 64 MiB a
    submission: past that its tests go live. Keeping them all took one grading process to 4 GB
    on the numpy track (2.6 GB on softmax's tests alone)."""
    submission = build_submission(tmp_path / "s", read_fixture(SUBMISSIONS / "hostile" / "returns_15_mb.py"))
    done = subprocess.run([sys.executable, "-c", PEAK_OF_A_FAST_PATH, str(Path(__file__).parent), str(submission)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    score, peak = done.stdout.split()
    assert float(score) < 5, "15 MB of ones is no softmax"
    assert int(peak) < 600 << 20, f"the grading process peaked at {int(peak) >> 20} MiB"
