"""One grader: a class grades every submission exactly as alone, through the same procedure.

Every correct and hostile fixture of the numpy track is graded twice on its own file: alone,
and as a grading process of a class grades it (``ClassSession``: its fork server, caches and
recording); each test must get the same outcome, score, misconception and feedback on both
paths. Beside them: the replay of a recorded test passes only on the reference's answers, asks
them as the test's own run does (the same calls, in the same order, of the same workers), and
hands the student's process nothing but the inputs of those calls and what the stand-ins answer.
"""

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import (
    COURSE,
    SUBMISSIONS,
    assert_full_marks,
    build_submission,
    fixtures_in,
    grade_in_class,
    read_fixture,
    splice,
)

from attnlab.grading.replay import replaying
from attnlab.grading.suite import grade
from attnlab.outcomes import Outcome
from attnlab.sandbox import standins, worker_process
from attnlab.sandbox.host import ForkServer, Limits

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

NUMPY = COURSE.tracks["numpy"]


def two_per_function(fixtures):
    """The fast path decides function by function, and a buggy function's failing tests run live
    whatever its bug: two buggy fixtures per function cover its paths; the rest would add minutes."""
    kept, seen = [], {}
    for fixture in fixtures:
        seen[fixture.breaks] = seen.get(fixture.breaks, 0) + 1
        if seen[fixture.breaks] <= 2:
            kept.append(fixture)
    return kept


# The buggy fixtures are compared with their own class, which grades every buggy fixture
# (tests/test_buggy_submissions.py: two per numpy function and every torch one, graded alone).
FIXTURES = [
    f
    for kind in ("correct", "hostile", "printing", "compensating")
    for f in fixtures_in(kind)
    if f.file.removesuffix(".py") in NUMPY
]
# Fixtures whose time is their point: graded by the tests below with their own deadlines.
SLOW = {
    "infinite_loop",
    "hangs_on_a_probe",
    "hangs_at_import",
    "threads_that_print_forever",
    "asks_the_reference_for_too_much",
    "is_slow_but_within_every_deadline",
    "floods_tmp_to_outlast_the_clean_up",
    "is_slow_and_gets_two_budgets_in_a_class",
    "stalls_the_grader_on_a_stand_in_answer",
    "burns_cpu_beside_its_classmates",
    "is_slow_in_cpu_time_and_honest",
}
# Fixtures whose outcome is a race with the deadline (a bounded search of the whole disk): graded
# on both paths by tests/test_isolation.py, for their score.
RACES = {"searches_the_disk_for_the_answers"}


def verdicts(report) -> dict:
    """Each test's verdict, with its feedback (but for a measured peak, which varies by a MiB run to run)."""
    return {
        t.name: (t.outcome, t.score, t.misconception, "" if "never holds" in t.name else t.feedback)
        for t in report.tests
    }


@pytest.fixture
def replayed(monkeypatch):
    """The node ids the replay passed in the next gradings (their bodies did not run)."""
    passed: set[str] = set()
    replay_test = replaying.replay_test

    def watching(test, backend):
        answered = replay_test(test, backend)
        if answered:
            passed.add(test.nodeid)
        return answered

    monkeypatch.setattr(replaying, "replay_test", watching)
    return passed


# Fixtures whose outcome depends on what their worker served before (helpers kept between calls
# and a memory test that forbids new ones): the same scores on both paths, not always the same
# outcome.
STATEFUL = {"uses_helpers_that_exit"}

# Fixtures whose first call does heavy work of the kernel's (256 MiB of shared memory touched page by
# page): on a busy machine that costs more than a second of CPU on one path and not the other, so
# they are given a deadline their work fits on any host (the comparison is of verdicts, not speed).
HEAVY_FIRST_CALL = {"leaves_a_shared_memory_segment"}
# Fixtures whose every call is about a CPU second of real work (whole rows of 2^20 keys, or a
# stand-in asked for the most the grader allows), or whose memory tests are (FlashAttention's
# backward pass at 2^20 keys, then a copy): at the default deadline of 1 s one path may finish a
# call the other ends, so they get the same deadline as the first-call fixtures.
HEAVY_CALLS = {
    "full_key_rows_16_queries_at_a_time",
    "full_key_rows_one_query_at_a_time",
    "swells_the_grader_through_a_stand_in",
    "flash_float32_copy",
    "flash_full_recompute",
}


BOTH_PATHS = [f for f in FIXTURES if f.path.stem not in SLOW | RACES]
"""The fixtures the next test grades alone and in a class."""


@pytest.mark.parametrize("fixture", BOTH_PATHS, ids=lambda f: f"{f.path.parent.name}/{f.path.stem}")
def test_every_fixture_gets_the_same_verdicts_in_a_class_as_alone(grade_both_paths, fixture):
    limits = Limits(call_seconds=10.0) if fixture.path.stem in HEAVY_FIRST_CALL | HEAVY_CALLS else None
    alone, in_class = grade_both_paths(fixture, limits=limits)
    if fixture.path.parent.name == "correct":  # tests/test_correct_variants.py leaves these to this test
        assert_full_marks(alone)
    if fixture.path.stem in STATEFUL:
        assert {t.name: t.score for t in in_class.tests} == {t.name: t.score for t in alone.tests}
    else:
        assert verdicts(in_class) == verdicts(alone)


def test_a_correct_submission_is_decided_entirely_by_the_recording(tmp_path, class_session, replayed):
    """The bundled reference, graded as a submission: the replay passes every test (the grader's
    BLAS computes on one thread, as a worker's does, so a copy of the reference answers its
    recording bit for bit on any machine), a refusal once every earlier test of its function passed."""
    folder = tmp_path / "reference"
    folder.mkdir()
    for module in COURSE.modules:
        (folder / f"{module}.py").write_bytes((COURSE.solutions_dir / f"{module}.py").read_bytes())
    report = grade_in_class(class_session, folder, NUMPY)
    assert report.score == report.max_score
    tests = class_session.script.tests
    refusals = {t.nodeid for t in tests if any(c.raises for c in t.calls)}
    assert refusals and all("refuse" in nodeid for nodeid in refusals)
    assert {c.raises for t in tests for c in t.calls if c.raises} == {"ValueError"}
    assert all(t.replayable for t in tests), "every hidden test, the memory tests and refusals too, is recorded"
    assert replayed == {t.nodeid for t in tests}


class Conversation:
    """Everything a submission's processes are told and asked, in order: each worker started
    (its file, function and kind), each call (its function and arguments) and each stand-in
    call answered (its function, arguments and answer), by digest."""

    def __init__(self, monkeypatch):
        from attnlab import wire

        self.events: list[tuple] = []
        spawn, call, stand_in = (
            ForkServer.spawn,
            worker_process.WorkerProcess.call,
            worker_process.WorkerProcess._answer_stand_in,
        )

        def spawned(server, workdir, submission, module, serves, standins, limits, fds, needs=(), measured=False):
            self.events.append(("worker", module, tuple(serves), measured, sorted(needs)))
            return spawn(server, workdir, submission, module, serves, standins, limits, fds, needs, measured)

        def called(worker, function, args, kwargs, answer_callback, return_inputs=False, room=None):
            self.events.append(("call", function, wire.fingerprint((tuple(args), kwargs)), return_inputs))
            return call(worker, function, args, kwargs, answer_callback, return_inputs, room)

        def answered(worker, header, buffers, answer_callback, caller, bounds, deadline):
            sent = []
            send = wire.send_framed
            monkeypatch.setattr(
                wire, "send_framed", lambda line, framed, *a: sent.append(b"".join(framed)) or send(line, framed, *a)
            )
            try:
                return stand_in(worker, header, buffers, answer_callback, caller, bounds, deadline)
            finally:
                monkeypatch.setattr(wire, "send_framed", send)
                self.events.append(("stand-in", header.get("function"), wire.digest(header.get("args"), buffers), sent))

        monkeypatch.setattr(ForkServer, "spawn", spawned)
        monkeypatch.setattr(worker_process.WorkerProcess, "call", called)
        monkeypatch.setattr(worker_process.WorkerProcess, "_answer_stand_in", answered)

    def take(self) -> list[tuple]:
        events, self.events = self.events, []
        return events


@pytest.mark.parametrize(
    "path",
    ["correct/mha_loop_over_heads.py", "buggy/sdpa_mask_inverted.py", "compensating/heads_tokens_first.py"],
)
def test_a_submissions_processes_are_told_the_same_in_a_class_as_alone(
    tmp_path, class_session, fork_server, monkeypatch, path
):
    """The one grader, at the wire: alone and in a class, the submission's processes are started
    for the same files and functions, asked the same calls in the same order, and answered the
    same stand-in calls with the same bytes. Nothing else reaches them."""
    fixture = read_fixture(SUBMISSIONS / path)
    submission = build_submission(tmp_path / "s", fixture)
    only = [fixture.file.removesuffix(".py")]
    conversation = Conversation(monkeypatch)
    alone = grade(COURSE, submission, only=only, limits=class_session.limits, fork_server=fork_server)
    told_alone = conversation.take()
    in_class = grade_in_class(class_session, submission, only)
    told_in_class = conversation.take()
    assert verdicts(in_class) == verdicts(alone)
    assert any(event[0] == "stand-in" for event in told_alone) == ("correct/" not in path)
    assert told_in_class == told_alone


def test_one_worker_at_a_time(tmp_path, class_session, monkeypatch):
    """A submission has one worker at a time, serving the functions of a file that lean on the same
    stand-ins: the next starts once the one before is gone (with whatever it left), so a correct
    submission starts one worker each time the suite turns to another such group, and one for
    each memory-measured call."""
    conversation = Conversation(monkeypatch)
    folder = tmp_path / "reference"
    shutil.copytree(COURSE.solutions_dir, folder)
    report = grade_in_class(class_session, folder, NUMPY)
    assert report.score == report.max_score
    events = conversation.take()
    turns, last = 0, None
    for event in events:
        if event[0] == "call" and COURSE.served_with(event[1]) != last:
            turns, last = turns + 1, COURSE.served_with(event[1])
    measured = sum(1 for e in events if e[0] == "worker" and e[3])
    started = sum(1 for e in events if e[0] == "worker")
    assert measured >= 1 and turns < len({e[1] for e in events if e[0] == "call"})
    # Each memory-measured call's worker comes in the middle of its group's turn: the worker
    # serving the group before it is started again after it.
    assert turns + measured <= started <= turns + 2 * measured, (turns, measured, started)


def test_the_memory_test_is_replayed_and_still_catches_the_full_matrix(grade_both_paths, replayed):
    alone, in_class = grade_both_paths(read_fixture(SUBMISSIONS / "buggy" / "online_holds_the_full_matrix.py"))
    assert verdicts(in_class) == verdicts(alone)
    memory = next(t for t in in_class.tests if "never holds" in t.name)
    assert memory.outcome.value == "failed" and "MiB" in memory.feedback
    assert not any("never holds" in nodeid for nodeid in replayed)


def test_bugs_that_cancel_out_get_the_live_verdict(grade_both_paths, replayed):
    # With its own split_heads, this multi_head_attention is right; with the reference's, which
    # its stand-ins answer on every path, it is not.
    alone, in_class = grade_both_paths(read_fixture(SUBMISSIONS / "compensating" / "heads_tokens_first.py"))
    assert verdicts(in_class) == verdicts(alone)
    assert {t.function for t in in_class.tests if t.score < t.max_score} == {
        "split_heads",
        "merge_heads",
        "multi_head_attention",
    }
    assert not any("mha" in nodeid for nodeid in replayed)


@pytest.mark.parametrize(
    "name, function", [("softmax_global_max", "softmax"), ("scores_full_transpose", "attention_scores")]
)
def test_a_bug_in_an_earlier_file_costs_its_own_points_only(tmp_path, class_session, fork_server, name, function):
    # Every caller of the buggy function gets the reference's answer from a stand-in and passes.
    submission = build_submission(tmp_path / name, read_fixture(SUBMISSIONS / "buggy" / f"{name}.py"))
    alone = grade(COURSE, submission, only=NUMPY, limits=Limits(call_seconds=1.0), fork_server=fork_server)
    in_class = grade_in_class(class_session, submission, NUMPY)
    assert verdicts(in_class) == verdicts(alone)
    assert {t.function for t in in_class.tests if t.score < t.max_score} == {function}


def test_an_infinite_loop_costs_one_deadline(tmp_path, class_session, fork_server, monkeypatch):
    """The replay's first call times out; the test's own run makes that very call next and meets
    the same end without asking it again, and the later tests do not run the function: one call,
    so one deadline, alone as in a class."""
    submission = build_submission(tmp_path / "loop", read_fixture(SUBMISSIONS / "hostile" / "infinite_loop.py"))
    limits = Limits(call_seconds=1.0)
    conversation = Conversation(monkeypatch)
    alone = grade(COURSE, submission, only=["softmax"], limits=limits, fork_server=fork_server)
    in_class = grade_in_class(class_session, submission, ["softmax"], limits)
    assert verdicts(in_class) == verdicts(alone)
    assert {t.outcome for t in in_class.tests} == {Outcome.TIMED_OUT}
    calls = [event for event in conversation.take() if event[0] == "call"]
    assert len(calls) == 2, "one call alone, one in a class"


@pytest.mark.parametrize("name", ["hangs_at_import", "threads_that_print_forever"])
def test_slow_hostile_fixtures_get_the_same_verdicts_in_a_class(grade_both_paths, name):
    alone, in_class = grade_both_paths(
        read_fixture(SUBMISSIONS / "hostile" / f"{name}.py"), limits=Limits(call_seconds=2.0)
    )
    assert verdicts(in_class) == verdicts(alone)


def test_stand_in_calls_past_what_the_graded_call_justifies_are_refused_and_charged(grade_both_paths):
    """causal_mask(40000) asked of the reference is refused with a reason (the grader never builds
    it), and a loop of stand-in calls ends at the call's deadline, not the submission's budget."""
    started = time.monotonic()
    alone, in_class = grade_both_paths(
        read_fixture(SUBMISSIONS / "hostile" / "asks_the_reference_for_too_much.py"), limits=Limits(call_seconds=1.0)
    )
    assert time.monotonic() - started < 30
    for report in (alone, in_class):
        sdpa = [t for t in report.tests if t.function == "scaled_dot_product_attention"]
        assert all(t.score == 0 for t in sdpa)
        assert any("causal_mask() was given the number 40000" in t.feedback for t in sdpa)
        looping = [t for t in report.tests if t.function == "self_attention"]
        assert all(t.outcome is Outcome.TIMED_OUT for t in looping)
        assert {t.function for t in report.tests if t.score < t.max_score} == {
            "scaled_dot_product_attention",
            "self_attention",
        }


PEAK_OF_A_STAND_IN = """
import sys, warnings
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")
from pathlib import Path
from conftest import COURSE
from attnlab.grading.suite import grade
from attnlab.sandbox.host import Limits
report = grade(COURSE, Path(sys.argv[2]), only=[sys.argv[3]], limits=Limits(call_seconds=1.0))
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(report.score, peak << 10)
"""


@pytest.mark.parametrize(
    ("name", "module"),
    [("asks_the_reference_for_too_much", "attention"), ("swells_the_grader_through_a_stand_in", "efficient")],
)
def test_a_huge_stand_in_call_does_not_fill_the_graders_memory(tmp_path, name, module):
    """An argument past the graded call's bounds (causal_mask(40000)), or arguments within them
    whose answer is their product (sinusoidal_encoding(8200, 8200), 538 MB): refused."""
    submission = build_submission(tmp_path / "s", read_fixture(SUBMISSIONS / "hostile" / f"{name}.py"))
    done = subprocess.run(
        [sys.executable, "-c", PEAK_OF_A_STAND_IN, str(Path(__file__).parent), str(submission), module],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    _score, peak = done.stdout.split()
    assert int(peak) < 400 << 20, f"the grading process peaked at {int(peak) >> 20} MiB"


def test_the_answer_cache_is_bounded_in_bytes():
    cache = standins.AnswerCache(max_bytes=1000, max_entry_bytes=400)
    for number in range(10):
        cache.add(("f", "m", "g", number), b"x" * 300)
    cache.add(("f", "m", "g", "big"), b"x" * 401)
    assert cache.bytes <= 1000 and len(cache) == 3
    assert cache.get(("f", "m", "g", "big")) is None and cache.get(("f", "m", "g", 0)) == b"x" * 300


def _recorded_calls_per_test(load_first: bool) -> list[int]:
    """In a fresh process: the softmax tests' recorded calls, the hidden tests loaded ahead or not."""
    code = (
        "import sys, json; sys.path.insert(0, sys.argv[1]); from conftest import COURSE\n"
        "from attnlab.grading.hidden_suite import load_hidden_tests\n"
        "from attnlab.grading.replay.recording import record_script\n"
        f"{'load_hidden_tests(COURSE)' if load_first else 'pass'}\n"
        "print(json.dumps([len(t.calls) for t in record_script(COURSE, only=['softmax']).tests]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def test_hidden_tests_loaded_ahead_run_as_a_session_runs_them():
    """Class grading imports the hidden tests once before it forks (load_hidden_tests). @given
    keeps the settings in force at import: loaded outside grading's profile, every test would
    draw hypothesis's 100 examples instead of grading's 20."""
    loaded_ahead = _recorded_calls_per_test(load_first=True)
    assert loaded_ahead == _recorded_calls_per_test(load_first=False)
    assert set(loaded_ahead) == {20}


# Attacks on the whole course (found by an attacker of the one-worker replay): each graded on
# every numpy file, alone and in a class, must get the same verdicts.


def test_a_later_files_import_cannot_write_an_earlier_files_function(tmp_path, class_session, fork_server):
    """attention.py's import gives the stub softmax a body: the replay imports a file only when
    its own tests come, as a live run does, so softmax's tests fail on both paths."""
    submission = build_submission(
        tmp_path / "s", read_fixture(SUBMISSIONS / "hostile" / "patched_by_a_later_file_at_import.py")
    )
    (submission / "softmax.py").write_text((COURSE.root / "exercises" / "softmax.py").read_text())
    alone = grade(COURSE, submission, only=NUMPY, limits=Limits(call_seconds=1.0), fork_server=fork_server)
    in_class = grade_in_class(class_session, submission, NUMPY, Limits(call_seconds=1.0))
    assert verdicts(in_class) == verdicts(alone)
    assert all(t.score == 0 for t in in_class.tests if t.function == "softmax")


def test_an_honest_slow_submission_a_hair_off_gets_full_marks(tmp_path, class_session, fork_server):
    """An honest, slow softmax a hair off the reference: the replay of each of its tests fails at
    the first call, and the test's own run passes it, within one budget; later files' workers ask
    the reference's softmax (a stand-in), never the slow one."""
    limits = Limits(call_seconds=2.0, submission_seconds=12.0)
    submission = build_submission(
        tmp_path / "s", read_fixture(SUBMISSIONS / "hostile" / "adds_an_epsilon_and_loops.py")
    )
    alone = grade(COURSE, submission, only=NUMPY, limits=limits, fork_server=fork_server)
    in_class = grade_in_class(class_session, submission, NUMPY, limits)
    assert alone.score == alone.max_score
    assert in_class.score == alone.score


def test_a_file_that_blames_others_for_its_slow_import_costs_a_bounded_time(tmp_path, class_session, fork_server):
    """efficient.py's import says (where a watching worker once read it) that an earlier file was
    being imported, then hangs: nothing a worker says is read, and its import costs one deadline."""
    submission = build_submission(
        tmp_path / "s", read_fixture(SUBMISSIONS / "hostile" / "blames_other_files_for_its_slow_import.py")
    )
    limits = Limits(call_seconds=1.0)
    started = time.monotonic()
    alone = grade(COURSE, submission, only=NUMPY, limits=limits, fork_server=fork_server)
    alone_seconds = time.monotonic() - started
    started = time.monotonic()
    in_class = grade_in_class(class_session, submission, NUMPY, limits)
    assert verdicts(in_class) == verdicts(alone)
    assert time.monotonic() - started < alone_seconds + 6 * 2.0


def test_a_slow_call_after_a_fast_one_keeps_its_own_deadline(grade_both_paths):
    """Results of a message go back together; a call's deadline must not include its successor's time."""
    alone, in_class = grade_both_paths(
        read_fixture(SUBMISSIONS / "hostile" / "is_slow_but_within_every_deadline.py"), limits=Limits(call_seconds=1.0)
    )
    assert all(t.outcome is Outcome.PASSED for t in alone.tests if t.function == "causal_mask")
    assert verdicts(in_class) == verdicts(alone)


def test_every_stand_in_is_tested_before_the_functions_that_lean_on_it(class_session):
    """Alone or in a class, the reference answers a stand-in only once the tests of its function
    are over: what a process learns from a stand-in can outlive it (the kernel's page cache can
    carry bits), so the suite's order is the guarantee. Earlier files come first by construction;
    a declared same-file dependency's tests must come before its dependents'."""
    calls = [(place, call.function) for place, test in enumerate(class_session.script.tests) for call in test.calls]
    first = {function: min(p for p, f in calls if f == function) for _, function in calls}
    last = {function: max(p for p, f in calls if f == function) for _, function in calls}
    for function, dependencies in COURSE.depends.items():
        for dependency in dependencies:
            assert last[dependency] < first[function], f"a test of {dependency} comes after one of {function}"


def test_a_worker_that_does_not_read_a_stand_ins_answer_does_not_hang_the_grader(grade_both_paths):
    """causal_mask(2048)'s answer (4 MiB) sent to a worker that stopped reading: the send has the
    call's deadline, alone and in a class."""
    started = time.monotonic()
    alone, in_class = grade_both_paths(
        read_fixture(SUBMISSIONS / "hostile" / "stalls_the_grader_on_a_stand_in_answer.py"),
        limits=Limits(call_seconds=1.0),
    )
    assert time.monotonic() - started < 60
    assert verdicts(in_class) == verdicts(alone)
    memory = next(t for t in alone.tests if "never holds" in t.name)
    assert memory.outcome is Outcome.TIMED_OUT


def test_a_slow_submission_gets_one_budget_in_a_class_as_alone(grade_both_paths):
    """The replay's passed tests count against the live run's budget, as their time would alone."""
    limits = Limits(call_seconds=2.0, submission_seconds=8.0)
    alone, in_class = grade_both_paths(
        read_fixture(SUBMISSIONS / "hostile" / "is_slow_and_gets_two_budgets_in_a_class.py"), limits=limits
    )
    assert alone.score < alone.max_score
    # Where the budget runs out is a matter of timing, to a test either way: not a second budget.
    assert in_class.score < in_class.max_score and in_class.score <= alone.score + 2, (in_class.score, alone.score)


def test_answers_carried_through_the_page_cache_do_not_reach_an_earlier_test(tmp_path, class_session, fork_server):
    """Masks that compute nothing, and an attention.py that, retried in a live worker during the
    replay, asks the masks' stand-ins for the masks tests' inputs and leaves the answers in the
    kernel's page cache (bits no kill or clean-up touches). No live worker runs before the live
    run of an earlier test of what its stand-ins answer: the masks fail on both paths."""
    submission = build_submission(
        tmp_path / "s", read_fixture(SUBMISSIONS / "hostile" / "keeps_mask_answers_in_the_page_cache.py")
    )
    companion = read_fixture(SUBMISSIONS / "hostile" / "keeps_mask_answers_in_the_page_cache_attention.py")
    (submission / "attention.py").write_text(
        splice((submission / "attention.py").read_text(), companion.path.read_text())
    )
    limits = Limits(call_seconds=2.0)
    alone = grade(COURSE, submission, only=["masks", "attention"], limits=limits, fork_server=fork_server)
    in_class = grade_in_class(class_session, submission, ["masks", "attention"], limits)
    masks = {"causal_mask", "padding_mask"}
    assert [(t.name, t.score) for t in in_class.tests if t.function in masks] == [
        (t.name, t.score) for t in alone.tests if t.function in masks
    ]


def test_a_function_that_hides_its_nested_calls_gets_no_more_in_a_class(grade_both_paths):
    """Its function compensates for its own buggy dependency, and its worker once told a watching
    grader it called nothing: the stand-ins answer that dependency with the reference on every
    path, and nothing a worker says of its calls is read. It fails alone and in a class."""
    alone, in_class = grade_both_paths(
        read_fixture(SUBMISSIONS / "hostile" / "hides_its_nested_calls.py"), limits=Limits(call_seconds=2.0)
    )
    assert in_class.score == alone.score < alone.max_score, (in_class.score, alone.score)
    assert verdicts(in_class) == verdicts(alone)


@pytest.mark.parametrize(
    "path, function, refused",
    [
        ("buggy/learned_positions_never_refuses.py", "learned_positions", False),
        ("correct/flash_refuses_through_range.py", "flash", True),
    ],
)
def test_a_refusal_is_replayed_and_judged_by_the_type_the_students_code_raised(
    grade_both_paths, replayed, path, function, refused
):
    """The reference refuses these calls with ValueError; a test passes them only when the student's
    own code raised the same type (numpy's IndexError is not it; range()'s ValueError for a step of
    0 is), in a class as alone: the replay passes the refusal test once the function's earlier
    tests passed it, and a function that never refuses fails it in the test's own run."""
    alone, in_class = grade_both_paths(read_fixture(SUBMISSIONS / path))
    assert verdicts(in_class) == verdicts(alone)
    refusal = next(t for t in in_class.tests if "raise ValueError" in t.name or "raises ValueError" in t.name)
    assert (refusal.outcome.value == "passed") is refused, refusal.feedback
    decided = {nodeid for nodeid in replayed if "refuse" in nodeid and function in nodeid}
    assert bool(decided) is refused


def test_a_refusal_made_only_when_watched_earns_nothing_in_a_class(grade_both_paths):
    """learned_positions raises ValueError whenever a watching worker calls it, and never checks the
    table live: its values pass live, and a refusal the watching worker alone makes is its own word."""
    alone, in_class = grade_both_paths(read_fixture(SUBMISSIONS / "hostile" / "refuses_only_when_watched.py"))
    refusal = next(t for t in alone.tests if "refuses" in t.name or "raises ValueError" in t.name)
    assert refusal.outcome.value != "passed", refusal.feedback
    assert verdicts(in_class) == verdicts(alone)
    assert in_class.score == alone.score, (in_class.score, alone.score)


@pytest.mark.parametrize("fixture", ["sends_its_keywords_back_as_a_list", "sends_no_arguments_back"])
def test_arguments_sent_back_in_another_form_are_the_students_error(grade_both_paths, fixture):
    """softmax writes into its scores, and its worker sends the keyword arguments back as a list, or
    no arguments at all: a result without the inputs as they were asked for, on both paths (not a
    grader's traceback, nor a test with nothing to compare)."""
    alone, in_class = grade_both_paths(read_fixture(SUBMISSIONS / "hostile" / f"{fixture}.py"))
    unchanged = next(t for t in alone.tests if "left unchanged" in t.name)
    assert unchanged.outcome.value != "passed" and unchanged.score == 0, unchanged.feedback
    assert verdicts(in_class) == verdicts(alone)


def test_errors_turned_into_refusals_only_when_watched_get_no_more_in_a_class(grade_both_paths):
    """Right on every call the reference answers, and a ValueError for whatever fails only when a
    watching worker calls: the refusal the live run never sees passes in a class."""
    alone, in_class = grade_both_paths(
        read_fixture(SUBMISSIONS / "hostile" / "turns_its_errors_into_refusals_when_watched.py")
    )
    assert in_class.score == alone.score, (in_class.score, alone.score)


def test_a_message_does_not_tell_the_watching_worker_which_calls_the_reference_refused(grade_both_paths):
    """previous_token_score refuses, only when watched, a call that comes alone in its message; it
    never checks its weights live. Which calls go alone must not say which the reference refused."""
    alone, in_class = grade_both_paths(
        read_fixture(SUBMISSIONS / "hostile" / "refuses_what_comes_alone_when_watched.py")
    )
    refusal = next(t for t in alone.tests if t.function == "previous_token_score" and "raise ValueError" in t.name)
    assert refusal.outcome.value != "passed", refusal.feedback
    assert verdicts(in_class) == verdicts(alone)
