"""Hostile submissions: none may crash the grader, forge a score, or change another function's result."""

import math
import os
import socket
import time
import traceback
from pathlib import Path

import numpy as np
import pytest
from conftest import COURSE, SUBMISSIONS, processes_of_users, read_fixture

from attnlab import wire
from attnlab.outcomes import Outcome
from attnlab.sandbox.host import Limits
from attnlab.sandbox.mode import PRIVATE_UID_BASE, bwrap_path

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)


def hostile(name):
    return read_fixture(SUBMISSIONS / "hostile" / f"{name}.py")


def by_function(report):
    functions = {}
    for test in report.tests:
        functions.setdefault(test.function, []).append(test)
    return functions


def assert_others_untouched(report, function):
    for other, tests in by_function(report).items():
        if other != function:
            assert all(t.outcome is Outcome.PASSED for t in tests), (
                f"{other} lost points to {function}'s misbehaviour: "
                + "; ".join(t.feedback[:200] for t in tests if t.outcome is not Outcome.PASSED)
            )


def test_infinite_loop_times_out_once(grade_fixture):
    report = grade_fixture(hostile("infinite_loop"), limits=Limits(call_seconds=0.5))
    tests = by_function(report)["softmax"]
    assert all(t.outcome is Outcome.TIMED_OUT for t in tests)
    assert "did not return within 0.5 s" in tests[0].feedback
    assert "not run again" in tests[-1].feedback
    # One deadline in all, not one per test: a second timeout of the same function costs nothing.
    # (Asked per test: on a loaded machine the first one's own overhead, noticing the timeout and
    # stopping the worker, once took it to 1.02 s, and a bound on the sum failed for that alone.)
    assert tests[0].duration >= 0.5 and all(t.duration < 0.5 for t in tests[1:])


def test_os_exit_is_a_crash_and_the_rest_is_graded(grade_fixture):
    report = grade_fixture(hostile("os_exit_in_function"))
    tests = by_function(report)["causal_mask"]
    assert all(t.outcome is Outcome.CRASHED for t in tests)
    assert "exited with status 3" in tests[0].feedback
    assert_others_untouched(report, "causal_mask")


def test_segfault_is_named(grade_fixture):
    report = grade_fixture(hostile("segfault_in_function"))
    tests = by_function(report)["attention_scores"]
    assert all(t.outcome is Outcome.CRASHED for t in tests)
    assert "segmentation fault (signal 11)" in tests[0].feedback


def test_sys_exit_at_import_costs_that_file_only(grade_fixture):
    report = grade_fixture(hostile("sys_exit_at_import"), whole=True)
    failing = {t.module for t in report.tests if t.outcome is not Outcome.PASSED}
    assert failing == {"positions"}
    positions = [t for t in report.tests if t.module == "positions"]
    assert all(t.outcome is Outcome.ERROR and "sys.exit(1)" in t.feedback for t in positions)


def test_a_failed_import_is_told_to_each_test_with_its_own_frames_only(grade_fixture, monkeypatch):
    # The one problem was raised again for every test, each raise adding its frames to the last
    # ones, and pytest formatted them all for each failing test: the file's grading slowed with
    # every test. (Only failures count: the reference's recorded run, when it is made, passes.)
    from attnlab.grading.plugin import GradingPlugin

    frames = []
    record = GradingPlugin._record
    monkeypatch.setattr(
        GradingPlugin,
        "_record",
        lambda self, item, call, report: (
            (frames.append(len(traceback.extract_tb(call.excinfo.tb))) if call.excinfo else None)
            or record(self, item, call, report)
        ),
    )
    report = grade_fixture(hostile("sys_exit_at_import"))
    assert len(report.tests) > 5 and all(t.outcome is Outcome.ERROR for t in report.tests)
    assert max(frames) < 60 and max(frames) <= min(frames) + 10, frames


def test_50_mb_of_output_is_cut_and_the_answer_still_counts(grade_fixture):
    report = grade_fixture(hostile("prints_50_mb"))
    assert report.score == report.max_score
    printed = max(len(t.output) for t in report.tests)
    assert 0 < printed <= Limits().output_chars + 200
    assert any("output cut here" in t.output for t in report.tests)


def test_patching_numpy_in_the_worker_forges_nothing(grade_fixture):
    report = grade_fixture(hostile("patches_numpy_at_import"))
    sdpa = by_function(report)["scaled_dot_product_attention"]
    assert not [t.name for t in sdpa if t.outcome is Outcome.PASSED], (
        "zeros pass nothing, the shape test neither: it is paid with the values"
    )
    [shape] = [
        t for t in sdpa if t.name == "scaled_dot_product_attention: output (..., L_q, d_v) and weights (..., L_q, L_k)"
    ]
    assert shape.feedback.startswith("Not paid yet"), shape.feedback
    assert_others_untouched(report, "scaled_dot_product_attention")


def test_a_lying_subclass_never_reaches_a_comparison(grade_fixture):
    report = grade_fixture(hostile("lying_subclass"))
    assert all(t.outcome is not Outcome.PASSED for t in by_function(report)["softmax"] if "shape" not in t.name)
    assert report.score < report.max_score / 2


def test_a_20_gb_allocation_is_out_of_memory(grade_fixture):
    report = grade_fixture(hostile("allocates_20_gb"))
    tests = [t for t in by_function(report)["attention_scores"] if t.outcome is not Outcome.PASSED]
    assert tests and all(t.outcome is Outcome.OUT_OF_MEMORY for t in tests)
    assert "ran out of memory" in tests[0].feedback and "scores.py:" in tests[0].feedback


def test_an_array_too_large_to_send_is_the_students_named_error(grade_fixture):
    report = grade_fixture(hostile("returns_65_mib"))
    tests = by_function(report)["softmax"]
    assert tests and all(t.outcome is Outcome.ERROR for t in tests)
    assert (
        "softmax returned an array of 65 MiB (shape (8519680,)), more than the 64 MiB one array may be"
        in tests[0].feedback
    )
    assert_others_untouched(report, "softmax")


JOINS_ITS_THREADS = '''"""softmax computes each row in a thread pool, and waits for it: no thread outlives the call.

file: softmax.py
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np


def softmax(x, axis=-1):
    moved = np.moveaxis(np.asarray(x), axis, -1)
    rows = moved.reshape(-1, moved.shape[-1]) if moved.size else moved.reshape(0, max(moved.shape[-1], 0))
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda r: np.exp(r - r.max()) / np.exp(r - r.max()).sum(), rows))
    out = np.array(done, dtype=moved.dtype).reshape(moved.shape) if done else np.exp(moved)
    return np.moveaxis(out, -1, axis)
'''


def test_a_thread_left_running_ends_its_worker_and_one_joined_is_fine(grade_fixture, tmp_path):
    report = grade_fixture(hostile("threads_that_print_forever"))
    tests = by_function(report)["softmax"]
    assert tests and all(t.outcome is Outcome.CRASHED and "left a thread running" in t.feedback for t in tests)
    assert_others_untouched(report, "softmax")
    joined = tmp_path / "joins_its_threads.py"
    joined.write_text(JOINS_ITS_THREADS)
    report = grade_fixture(read_fixture(joined))
    assert report.score == report.max_score, [t.feedback[:200] for t in report.tests if t.score < t.max_score]


def test_torchs_own_out_of_memory_error_is_out_of_memory(grade_fixture):
    tests = grade_fixture(hostile("torch_allocates_1200_mb")).tests
    assert tests and all(t.outcome is Outcome.OUT_OF_MEMORY for t in tests)
    assert (
        "ran out of memory (more than 1024 MiB)" in tests[0].feedback
        and "in __init__: self.big = torch.ones(300_000_000)" in tests[0].feedback
    )


def test_an_answer_on_the_wrong_device_is_named_not_not_implemented(grade_fixture):
    tests = [t for t in grade_fixture(hostile("torch_answers_on_meta")).tests if t.outcome is not Outcome.PASSED]
    # What held without an output (the state dict, the meta device) is not paid without the values.
    unpaid = [t for t in tests if t.feedback.startswith("Not paid yet")]
    tests = [t for t in tests if t not in unpaid]
    assert tests and all(t.outcome is Outcome.ERROR for t in tests) and all(t.outcome is Outcome.FAILED for t in unpaid)
    assert "forward returned a tensor on meta, not on cpu where x was" in tests[0].feedback


def test_killing_the_fork_server_costs_nothing(grade_fixture):
    report = grade_fixture(hostile("kills_its_fork_server"))
    assert report.score == report.max_score, [t.feedback for t in report.tests if t.score < t.max_score]


def test_a_stolen_standin_cannot_answer_its_own_test(grade_fixture):
    # scaled_dot_product_attention declares no dependency on self_attention, and its worker is
    # never asked self_attention: there is no stand-in to steal, in any process.
    report = grade_fixture(hostile("steals_a_reference_standin"))
    tests = by_function(report)["self_attention"]
    assert all(t.outcome is Outcome.ERROR and t.score == 0 for t in tests)
    assert "KeyError" in tests[0].feedback
    assert all(t.outcome is Outcome.PASSED for t in by_function(report)["scaled_dot_product_attention"])


def test_a_forged_request_for_the_function_under_test_is_refused(grade_fixture, tmp_path):
    """A worker may ask the grader for any reference function by name: the grader answers only the
    ones the function under test may use."""
    from attnlab.reference import Reference

    reference = Reference(COURSE)
    assert ("attention", "scaled_dot_product_attention") in reference.allowed_for("self_attention")
    assert ("attention", "self_attention") not in reference.allowed_for("self_attention")
    assert ("masks", "padding_mask") not in reference.allowed_for("causal_mask")
    with pytest.raises(PermissionError, match="not available to this function"):
        reference.answer("attention", "self_attention", (), {}, reference.allowed_for("self_attention"))


def test_a_file_that_hangs_at_import_costs_one_deadline(grade_fixture):
    report = grade_fixture(hostile("hangs_at_import"), limits=Limits(call_seconds=0.5))
    tests = by_function(report)["attention_scores"]
    assert all(t.outcome is Outcome.TIMED_OUT for t in tests)
    assert "importing scores.py took longer than" in tests[0].feedback
    # One import deadline in all (2 s of CPU time, longer by the clock on a busy machine), not one per test.
    assert all(t.duration < 0.5 for t in tests[1:]), "the import is not waited for again on every test"


def test_a_reference_error_goes_back_to_the_student_and_the_worker_carries_on(grade_fixture):
    report = grade_fixture(hostile("bad_arguments_to_the_reference"))
    assert report.score == report.max_score, [t.feedback[:200] for t in report.tests if t.score < t.max_score]


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="workers change user only when the grader runs as root")
needs_bwrap = pytest.mark.skipif(
    bwrap_path() is None, reason="bubblewrap is not installed (the set-up command installs it as root)"
)


@needs_root
def test_workers_run_as_a_private_user(fork_server):
    assert f"private user (uid {fork_server.uid})" in fork_server.mode
    assert fork_server.uid >= PRIVATE_UID_BASE


@needs_root
def test_children_in_their_own_sessions_do_not_survive_grading(grade_fixture, fork_server):
    report = grade_fixture(hostile("forks_50_sleepers"))
    assert by_function(report)["softmax"][0].outcome is Outcome.PASSED  # the answer itself is right
    assert processes_of_users(fork_server.uid, fork_server.uid) == []  # grading waits until they are gone


@needs_bwrap
def test_the_solutions_are_out_of_sight(grade_fixture):
    report = grade_fixture(hostile("reads_the_solutions"))
    tests = by_function(report)["softmax"]
    assert all(t.outcome is Outcome.ERROR for t in tests)
    assert "no solutions folder visible" in tests[0].feedback


@needs_bwrap
def test_no_network_not_even_the_graders_machine(grade_fixture):
    import socket

    with socket.create_server(("127.0.0.1", 47391)) as listener:
        listener.settimeout(0)
        report = grade_fixture(hostile("opens_a_socket"))
        with pytest.raises(BlockingIOError):
            listener.accept()
    tests = by_function(report)["softmax"]
    assert all(t.outcome is Outcome.ERROR for t in tests)
    assert "ConnectionRefusedError" in tests[0].feedback or "unreachable" in tests[0].feedback


@needs_root
def test_nothing_is_written_outside_the_workers_own_folder(grade_fixture, tmp_path):
    targets = [
        Path("/tmp/attnlab-pwned"),
        Path("/attnlab-pwned"),
        Path.home() / "attnlab-pwned",
        tmp_path / "attnlab-pwned",
    ]
    for target in targets:
        target.unlink(missing_ok=True)
    report = grade_fixture(hostile("writes_outside_its_folder"))
    assert by_function(report)["softmax"][0].outcome is Outcome.PASSED
    assert [t for t in targets if t.exists()] == []


def test_the_decoder_rejects_what_is_not_plain_data():
    class Liar(np.ndarray):
        def __eq__(self, other):
            return True

    buffers = []
    tree = wire.encode(np.arange(3.0).view(Liar), buffers)
    value = wire.decode(tree, [memoryview(b).cast("B") for b in buffers])
    assert type(value) is np.ndarray
    with pytest.raises(wire.WireError):
        wire.encode(np.array([object()]), [])
    with pytest.raises(wire.WireError):
        wire.decode({"__nd__": [0, "|O", [1]]}, [b"\0" * 8])
    with pytest.raises(wire.WireError):
        wire.decode({"__nd__": [0, "<f8", [4]]}, [b"\0" * 8])
    with pytest.raises(wire.WireError):
        wire.decode({"__nd__": [5, "<f8", [1]]}, [])
    with pytest.raises(wire.WireError):
        wire.decode({"__nd__": [0, "<f8"]}, [b"\0" * 8])
    with pytest.raises(wire.WireError):
        wire.decode({"__evil__": 1}, [])
    nested = {"k": (np.ones((2, 3), dtype=np.float32), [1, 2.5, None, True]), "v": np.float64(3.0)}
    back = wire.copy_plain(nested)
    assert back["k"][0].dtype == np.float32 and back["k"][1] == [1, 2.5, None, True] and back["v"] == 3.0
    for odd in (np.zeros((0, 3)), np.array(2.5), np.arange(12.0).reshape(3, 4).T, np.ones((2, 0, 2), dtype=bool)):
        copy = wire.copy_plain(odd)
        assert copy.shape == odd.shape and copy.dtype == odd.dtype and np.array_equal(copy, odd)
    with pytest.raises(wire.WireError):
        wire.decode({"__float__": "1e308"}, [])


@pytest.mark.parametrize(
    "value, words",
    [
        (np.ones(wire.MAX_ARRAY_BYTES // 8 + 1), "one array may be"),
        ([0.5] * (wire.MAX_ITEMS + 1), "a list of 65537 items"),
        ((0,) * (wire.MAX_ITEMS + 1), "a tuple of 65537 items"),
        ({str(n): n for n in range(wire.MAX_ITEMS + 1)}, "a dict of 65537 items"),
        ("x" * (wire.MAX_TEXT_CHARS + 1), "a text of 1048577 characters"),
    ],
)
def test_what_is_too_large_to_cross_is_refused_alike_by_encoding_copying_and_digesting(value, words):
    # A program digests and copies a nested result (fingerprint, copy_plain) where a live worker
    # encodes it: each refuses the same values, in the same words.
    for refuse in (lambda v: wire.encode(v, []), wire.copy_plain, wire.fingerprint):
        with pytest.raises(wire.WireError, match=words):
            refuse([value])
    wire.encode([value[:1] if not isinstance(value, dict) else {}], [])  # a little of it crosses


def test_a_peer_that_skips_the_check_is_refused_before_its_array_is_read():
    grader, peer = socket.socketpair()
    with grader, peer:
        header = wire.dumps({"op": "result"})
        peer.sendall(wire._PREFIX.pack(len(header), 1) + (wire.MAX_ARRAY_BYTES + 1).to_bytes(8, "big") + header)
        with pytest.raises(wire.WireError, match="an array larger than 64 MiB"):
            wire.receive(grader, time.monotonic() + 5)


def test_what_fast_json_cannot_write_still_crosses_exactly():
    # orjson writes NaN as null and refuses huge ints and lone surrogates: none of it may change
    # on the way, and arrays of every layout go as they are.
    value = (
        float("nan"),
        float("-inf"),
        [float("inf"), 2**70, -(2**65)],
        "lone \ud800 surrogate",
        {"x": np.float32(0.5)},
        np.arange(6.0).reshape(2, 3).T,
        np.zeros((0, 2)),
        np.array(True),
    )
    ours, theirs = socket.socketpair()
    with ours, theirs:
        buffers = []
        tree = wire.encode(value, buffers)
        # As a tree, and as the JSON text a program sends its results in.
        wire.send(ours, {"op": "result", "value": tree, "value_json": wire.dumps_text(tree)}, buffers)
        header, received = wire.receive(theirs)
    assert header["value_json"] == wire.dumps_text(tree)  # the text the grader compares, unchanged
    for back in (wire.decode(header["value"], received), wire.decode(wire.loads_text(header["value_json"]), received)):
        assert math.isnan(back[0]) and back[1] == float("-inf") and back[2] == [float("inf"), 2**70, -(2**65)]
        assert back[3] == "lone \ud800 surrogate" and back[4] == {"x": 0.5}
        assert np.array_equal(back[5], value[5]) and back[6].shape == (0, 2) and back[7] == np.array(True)
    for not_text in (None, 3, ["[1]"], "[1", "\ud800"):
        with pytest.raises(wire.WireError):
            wire.loads_text(not_text)


def test_lone_surrogates_in_what_the_code_says_reach_every_report_as_text(grade_fixture, tmp_path):
    # A str Python holds but no UTF-8 file takes: it once crashed the terminal report and, in a
    # class, the SQLite gradebook of every student.
    import io
    import json

    from rich.console import Console

    from attnlab.classroom.gradebook import ResultStore, build_gradebook
    from attnlab.report.html import render_html
    from attnlab.report.terminal import render

    report = grade_fixture(hostile("speaks_in_lone_surrogates"))
    softmax = by_function(report)["softmax"]
    assert all(t.outcome is Outcome.ERROR and "ValueError: bad \ufffd" in t.feedback for t in softmax)
    assert any("caf" in t.output for t in softmax)
    for test in report.tests:
        (test.feedback + test.output).encode("utf-8")  # strict: no lone surrogate left
    terminal = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    render(report, Console(file=terminal, width=100), explain=True)
    terminal.flush()
    assert "bad" in terminal.buffer.getvalue().decode()
    json.dumps(report.to_gradescope(), ensure_ascii=False).encode("utf-8")
    render_html(report).encode("utf-8")
    store = ResultStore(tmp_path / "results")
    store.save("eve", source="eve", fingerprint="f", grader="g", report=report.to_dict(), error=None)
    build_gradebook(store.all(), tmp_path / "results" / "gradebook.sqlite")


def test_a_function_that_hangs_on_its_diagnostic_probe_costs_one_deadline_more_and_no_name(grade_fixture):
    """Probes run once the tests are over and only name: one that never returns ends probing after
    one more deadline, names nothing, and changes no score."""
    plain = grade_fixture(
        read_fixture(SUBMISSIONS / "buggy" / "causal_diagonal_masked.py"), limits=Limits(call_seconds=0.5)
    )
    report = grade_fixture(hostile("hangs_on_a_probe"), limits=Limits(call_seconds=0.5))
    tests = by_function(report)["causal_mask"]
    assert all(t.score == 0 for t in tests) and not any(t.misconception for t in tests)
    assert any(t.outcome is Outcome.TIMED_OUT for t in tests)
    assert_others_untouched(report, "causal_mask")
    # Against the same bug without the hang: the tests' deadline once and the probe's once, with
    # room for a loaded machine, not a deadline per test or per probe.
    assert report.duration < plain.duration + 2 * 0.5 + 3.0
