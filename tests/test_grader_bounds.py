"""What the untrusted side's word is worth, and what one submission may cost the grader.

What a worker says of its progress extends no deadline; a message decodes to no more than its own
bytes; an answer far larger than the reference's is refused, with the reason, before it is read,
and the grader keeps a bounded part of a test's calls. Each attack is graded on both paths (alone,
and as a class's grading process grades it) in both sandbox modes (bubblewrap, and a private user
without it), and through the command line as a class, under a memory cap.
"""

import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from conftest import COURSE, REPO, SUBMISSIONS, build_submission, grade_in_class, read_fixture

from attnlab import wire
from attnlab.answer_room import KEPT_PER_SUBMISSION_BYTES, KEPT_PER_TEST_BYTES, ROOM_FLOOR_BYTES, AnswerRoom
from attnlab.grading.backends import Backend, CallResult
from attnlab.grading.student import NotKept, StudentProxy
from attnlab.grading.suite import grade
from attnlab.misconceptions import Raised, same
from attnlab.outcomes import Outcome
from attnlab.classroom.session import ClassSession
from attnlab.sandbox.environment import SandboxEnvironment
from attnlab.sandbox.host import ForkServer, Limits, bwrap_path
from attnlab.sandbox.standins import AnswerCache

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

MODES = ["bwrap", "plain"]
# Far above what grading one file takes (about 60 MiB, 110 MiB in a class), far below the attacks
# (16 GB for one buffer named 200 times; 2.6 GB for two 48 MiB answers kept per call).
PEAK_BYTES = 400 << 20
# A cap on the grading process's address space, so an attack that gets through fails fast
# instead of taking a shared machine's memory.
ADDRESS_SPACE_CAP = 3 << 30


def hostile(name):
    return read_fixture(SUBMISSIONS / "hostile" / f"{name}.py")


def verdicts(report) -> dict:
    return {t.name: (t.outcome, t.score, t.misconception, t.feedback) for t in report.tests}


def mode_environment(mode: str) -> dict:
    """The process environment that makes new fork servers run in ``mode``."""
    if mode == "bwrap" and bwrap_path() is None:
        pytest.skip("bubblewrap is not installed (or the grader does not run as root)")
    environment = {k: v for k, v in os.environ.items() if k != "ATTNLAB_SANDBOX"}
    return {**environment, "ATTNLAB_SANDBOX": "plain"} if mode == "plain" else environment


@pytest.fixture(scope="module", params=MODES)
def sandbox(request, class_session):
    """A fork server in the mode, and a class's grading process on the same recording with it."""
    with mock.patch.dict(os.environ, mode_environment(request.param), clear=True):
        server = ForkServer(SandboxEnvironment.for_course(COURSE))
    assert ("bubblewrap sandbox" in server.mode) == (request.param == "bwrap")
    recorded = class_session
    session = ClassSession(COURSE, recorded.reference, recorded.script, recorded.limits, recorded.only)
    session.fork_server, session.answer_cache = server, AnswerCache()
    yield server, session
    server.close()


# ---------------------------------------------------------------- 5: what a worker says of its progress


def test_what_a_worker_says_of_its_progress_extends_no_deadline(sandbox, tmp_path):
    """softmax takes 6 s on its process's first call and writes, as it waits, where a watching
    worker once kept its progress marker: a call's deadline is the grader's alone, so it times out
    in a class as alone (on an old grader: 11/11 in a class, 0/11 alone, and 6 s of a grading slot held)."""
    server, session = sandbox
    submission = build_submission(tmp_path / "s", hostile("holds_the_marker_past_its_deadline"))
    limits = Limits(call_seconds=1.0)
    started = time.monotonic()
    alone = grade(COURSE, submission, only=["softmax"], limits=limits, fork_server=server)
    alone_seconds = time.monotonic() - started
    started = time.monotonic()
    in_class = grade_in_class(session, submission, ["softmax"], limits)
    class_seconds = time.monotonic() - started
    assert verdicts(in_class) == verdicts(alone)
    assert in_class.score == 0 and {t.outcome for t in in_class.tests} == {Outcome.TIMED_OUT}
    # One deadline for the function on either path: never the 6 s the worker asked for.
    assert class_seconds < alone_seconds + 2.5 and alone_seconds < 6, (class_seconds, alone_seconds)


# ---------------------------------------------------------------- 6 and 7: the grader's memory

MEASURE = """
import json, resource, sys, warnings
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
sys.path.insert(0, sys.argv[1])
warnings.simplefilter("ignore")
from pathlib import Path
from conftest import COURSE
from attnlab.grading.suite import grade
from attnlab.reference import Reference
from attnlab.classroom.session import ClassSession
from attnlab.grading.replay.recording import record_script
from attnlab.sandbox.host import Limits


def peak_since_reset():
    return next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:")) << 10


def reset_peak():
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


submission, only, limits = Path(sys.argv[2]), [sys.argv[3]], Limits(call_seconds=3.0)
reference = Reference(COURSE)
session = ClassSession(COURSE, reference, record_script(COURSE, reference, only), limits, only)
session.start()
reports = {{}}
for path in ("alone", "class"):
    reset_peak()
    if path == "class":
        report = session.grade(submission, only)
    else:
        report = grade(COURSE, submission, only=only, limits=limits, fork_server=session.fork_server)
    tests = [[t.function, t.name, t.outcome.value, t.score, t.feedback] for t in report.tests]
    reports[path] = {{"peak": peak_since_reset(), "sandbox": report.sandbox, "tests": tests}}
session.close()
print(json.dumps(reports))
"""


def measured(mode: str, submission: Path, module: str) -> dict:
    """Grade ``submission``'s ``module`` alone, then as a class's grading process, in a fresh
    process in ``mode`` whose address space is capped: each path's reports and peak memory. The
    deadline (3 s) leaves a loaded machine room to build the attacker's arrays: a refusal, not a
    timeout, is what is tested."""
    script = MEASURE.format(cap=ADDRESS_SPACE_CAP)
    command = [sys.executable, "-c", script, str(Path(__file__).parent), str(submission), module]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=mode_environment(mode))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("mode", MODES)
def test_a_buffer_named_many_times_is_refused_and_the_grader_stays_small(tmp_path, mode):
    """One 16 MiB buffer named 200 times in one answer: refused as that student's error, with the
    reason, alone and in a class (on the old code: 16 GB, or a MemoryError traceback under a cap)."""
    submission = build_submission(tmp_path / "s", hostile("names_one_buffer_many_times"))
    reports = measured(mode, submission, "softmax")
    for path, report in reports.items():
        assert report["peak"] < PEAK_BYTES, f"{path}: the grader peaked at {report['peak'] >> 20} MiB"
        assert ("bubblewrap sandbox" in report["sandbox"]) == (mode == "bwrap")
        assert {outcome for _, _, outcome, _, _ in report["tests"]} == {Outcome.ERROR.value}
        assert all("one buffer named as the data of two arrays" in feedback for *_, feedback in report["tests"])
    assert reports["alone"]["tests"] == reports["class"]["tests"]


@pytest.mark.parametrize("mode", MODES)
def test_an_answer_far_larger_than_the_references_is_refused_before_it_is_kept(tmp_path, mode):
    """kv_cache_step returns two 48 MiB arrays of garbage: refused before they are read, with the
    sizes, and no test of it passes (on the old code: 2.6 GB, and "leaves its input unchanged" 1/1)."""
    submission = build_submission(tmp_path / "s", hostile("returns_answers_far_larger_than_the_reference"))
    reports = measured(mode, submission, "efficient")
    for path, report in reports.items():
        assert report["peak"] < PEAK_BYTES, f"{path}: the grader peaked at {report['peak'] >> 20} MiB"
        assert ("bubblewrap sandbox" in report["sandbox"]) == (mode == "bwrap")
        kv = [t for t in report["tests"] if t[0] == "kv_cache_step"]
        assert kv and all(outcome == Outcome.ERROR.value and score == 0 for _, _, outcome, score, _ in kv)
        assert all("kv_cache_step returned 96 MiB where the expected answer to this call takes" in t[4] for t in kv)
        others = [t for t in report["tests"] if t[0] != "kv_cache_step"]
        assert others and all(t[2] == Outcome.PASSED.value for t in others)
    assert reports["alone"]["tests"] == reports["class"]["tests"]


# Each attacker, and what its failing tests must say.
ATTACKERS = {
    "holds_the_marker_past_its_deadline": "did not return within 3 s",
    "names_one_buffer_many_times": "one buffer named as the data of two arrays",
    "returns_answers_far_larger_than_the_reference": "is refused before it is read",
}


def _cap_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_CAP, ADDRESS_SPACE_CAP))


@pytest.mark.parametrize("mode", MODES)
def test_a_class_with_these_attackers_saves_every_student_under_a_memory_cap(tmp_path, mode):
    """Through the command line, each grading process capped at 3 GiB: every student is saved, the
    attackers with their reasons, and no grading slot is held past its deadlines (on the old code:
    the buffer's student was not saved, "could not grade ... MemoryError")."""
    classroom = tmp_path / "class"
    build_submission(classroom / "ada", read_fixture(SUBMISSIONS / "correct" / "softmax_logsumexp.py"))
    for name in ATTACKERS:
        build_submission(classroom / name, hostile(name))
    started = time.monotonic()
    command = [
        sys.executable,
        "-m",
        "attnlab.cli",
        "grade",
        str(classroom),
        "--course",
        str(REPO),
        "--only",
        "softmax",
        "--only",
        "efficient",
        "--jobs",
        "2",
        "--timeout",
        "3",
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=600, env=mode_environment(mode), preexec_fn=_cap_address_space
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "could not grade" not in done.stderr, done.stderr[-3000:]
    assert time.monotonic() - started < 150
    results = tmp_path / "class.results"
    stored = {name: json.loads((results / f"{name}.json").read_text()) for name in ["ada", *ATTACKERS]}
    assert all(data["error"] is None for data in stored.values())
    assert stored["ada"]["report"]["score"] == stored["ada"]["report"]["max_score"]
    for name, reason in ATTACKERS.items():
        lost = [t for t in stored[name]["report"]["tests"] if t["score"] < t["max_score"]]
        assert lost and any(reason in t["feedback"] for t in lost), name


# ---------------------------------------------------------------- the wire, the room, what is kept


def test_a_message_decodes_to_no_more_than_its_own_bytes():
    one = np.zeros(4)
    with pytest.raises(wire.WireError, match="one buffer named as the data of two arrays"):
        wire.decode({"__tuple__": [{"__nd__": [0, "<f8", [4]]}] * 2}, [wire.as_bytes(one)])
    with pytest.raises(wire.WireError, match="one buffer named"):  # an empty one too, each name an object
        wire.decode([{"__nd__": [0, "<f8", [0]]}] * 2, [b""])
    with pytest.raises(wire.WireError, match="malformed shape"):
        wire.decode({"__nd__": [0, "<f8", [0, 1 << 62]]}, [b""])
    # No dtype reads more than its bytes, nor a view or a broadcast of them.
    tricks = [("<f8", [4], 8), ("<f8", [2, 2], 8), ("|V8", [1], 8), ("<f8,<f8", [1], 16), ("(4,)<f8", [1], 8)]
    for dtype_text, shape, nbytes in tricks:
        data = b"\0" * nbytes
        with pytest.raises(wire.WireError):
            wire.decode({"__nd__": [0, dtype_text, shape]}, [data])
    # A bool is 0 or 1, whatever byte was sent.
    flags = wire.decode({"__nd__": [0, "|b1", [3]]}, [bytes([0, 1, 7])])
    assert flags.view(np.uint8).tolist() == [0, 1, 1]


def test_a_header_of_too_many_values_is_refused_before_it_is_parsed():
    many = [[]] * (wire.MAX_HEADER_VALUES)
    with pytest.raises(wire.WireError, match="numbers, texts and lists in all"):
        wire.frame({"op": "result", "value": many})
    grader, peer = socket.socketpair()
    with grader, peer:
        body = b'{"op":"result","value":[' + b"[]," * wire.MAX_HEADER_VALUES + b"[]]}"
        sending = threading.Thread(target=peer.sendall, args=(wire._PREFIX.pack(len(body), 0) + body,))
        sending.start()  # more than a socket holds unread
        with mock.patch.object(wire, "loads", side_effect=AssertionError("parsed")):
            with pytest.raises(wire.WireError, match="numbers, texts and lists in all"):
                wire.receive(grader, time.monotonic() + 5)
        sending.join()
    # What a list may hold still crosses whole.
    grader, peer = socket.socketpair()
    with grader, peer:
        value = [0.5] * wire.MAX_ITEMS
        sending = threading.Thread(target=wire.send, args=(peer, {"op": "result", "value": wire.encode(value, [])}))
        sending.start()
        header, buffers = wire.receive(grader, time.monotonic() + 5)
        sending.join()
        assert wire.decode(header["value"], buffers) == value


def test_an_answer_past_its_room_is_refused_before_its_data_is_read():
    asked = []

    def reference_size():
        asked.append(True)
        return 1000

    room = AnswerRoom("softmax", reference_size)
    assert room.refusal(ROOM_FLOOR_BYTES) is None and not asked, "below the floor, the reference is not asked"
    assert "softmax returned 2 MiB where the expected answer to this call takes 1000 bytes" in room.refusal(2 << 20)
    assert AnswerRoom("softmax", 1 << 20).refusal(4 << 20) is None  # float64 for float16: four times
    grader, peer = socket.socketpair()
    with grader, peer:
        big = np.zeros(1 << 12)  # within what a socket holds unread
        buffers: list = []
        wire.send(peer, {"op": "result", "value": wire.encode(big, buffers)}, buffers)
        seen = []

        def admit(header, nbytes):
            seen.append(nbytes)
            raise RuntimeError("refused")

        with pytest.raises(RuntimeError):
            wire.receive(grader, time.monotonic() + 5, admit)
        assert seen[0] >= big.nbytes
        assert len(grader.recv(big.nbytes, socket.MSG_DONTWAIT | socket.MSG_PEEK)) > 0, "the array was left unread"


class _Answers(Backend):
    """A backend that answers every call with an array of ``nbytes``."""

    def __init__(self, nbytes):
        self.nbytes = nbytes

    def run(self, function, args, kwargs, **options):
        return CallResult(np.zeros(self.nbytes // 8))


def test_the_grader_keeps_a_bounded_part_of_a_tests_and_a_submissions_calls():
    proxy = StudentProxy(_Answers(1 << 20), ["softmax"])
    kept_per_test = []
    for _ in range(2 * KEPT_PER_SUBMISSION_BYTES // KEPT_PER_TEST_BYTES):
        proxy.start_test()
        for _ in range(2 * KEPT_PER_TEST_BYTES >> 20):
            proxy.softmax(np.zeros(2))
        kept = [c for c in proxy.calls if not isinstance(c.result, NotKept)]
        assert sum(c.result.nbytes for c in kept) <= KEPT_PER_TEST_BYTES
        assert sum(isinstance(c.result, NotKept) for c in proxy.calls) == 1, "a test whose calls were cut says so once"
        kept_per_test.append(len(kept))
    assert sum(kept_per_test) * (1 << 20) <= KEPT_PER_SUBMISSION_BYTES and kept_per_test[-1] == 0
    # A test whose calls were cut names no misconception: what stands for them equals no output.
    for output in (np.zeros(3), (np.zeros(2), np.ones(2)), Raised("TypeError"), {"k": np.zeros(1)}, "text", None):
        assert not same(output, NotKept())
