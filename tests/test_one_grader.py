"""One grader, in every sandbox mode: a submission's code cannot tell a class from a single
grading, so a class grades each submission exactly as alone, and no student stops a class.

Hostile fixtures answer right or wrong by whatever a path could show them (the stack, their
process and its parent, the processes around them, their environment, how they are asked), and
one leaves a process behind that kills all it may signal. Each is graded alone, by a grader
of its own (a fresh fork server, as ``attnlab grade SUBMISSION`` and Gradescope grade it), and
in a class, last in one grading process after honest classmates (its fork server older, having
served them). Every test must end the same on both paths, in bubblewrap, as a private user, and
as a container's private user (``ATTNLAB_SANDBOX=container``: no CAP_SYS_ADMIN).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import COURSE, SUBMISSIONS, build_submission, read_fixture

from attnlab.classroom.gradebook import ResultStore
from attnlab.classroom.grading import grade_class, plan_class
from attnlab.grading.suite import grade
from attnlab.outcomes import Outcome
from attnlab.results import GradeReport
from attnlab.sandbox.host import Limits, bwrap_path

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox modes need root"),
]

MODES = ["bwrap", "plain", "container"]
PROBES = [
    "answers_by_its_stack",
    "answers_by_its_process_and_parent",
    "answers_by_its_environment",
    "answers_by_how_it_is_asked",
    "hides_its_nested_calls",
    "leaves_a_killer_behind",
]
# Without CAP_SYS_ADMIN a worker has no pid namespace, /proc or /tmp of its own: it sees the
# machine's processes and shared folders, where the grader's own can tell a class from a single
# grading (docs/security.md, known limits).
SEES_THE_MACHINE = {"container": {"answers_by_its_process_and_parent", "answers_by_its_environment"}}
LIMITS = Limits(call_seconds=2.0)
# Graded beyond its own file: what its leftover does must not reach the next file's workers.
FILES = {"leaves_a_killer_behind": ["softmax", "scores"]}


def files_of(name: str, fixture) -> list[str]:
    return FILES.get(name, [fixture.file.removesuffix(".py")])


def verdicts(report: GradeReport) -> dict:
    return {t.name: (t.outcome, t.score, t.misconception, t.feedback) for t in report.tests}


@pytest.fixture(scope="module", params=MODES)
def mode(request):
    if request.param == "bwrap" and bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    with pytest.MonkeyPatch.context() as patch:
        if request.param == "bwrap":
            patch.delenv("ATTNLAB_SANDBOX", raising=False)
        else:
            patch.setenv("ATTNLAB_SANDBOX", request.param)
        yield request.param


@pytest.fixture(scope="module")
def in_class(mode, tmp_path_factory) -> dict[str, GradeReport]:
    """The probes graded as one class, in one grading process, after two honest classmates."""
    folder = tmp_path_factory.mktemp(f"class-{mode}")
    probes = {name: read_fixture(SUBMISSIONS / "hostile" / f"{name}.py") for name in PROBES}
    honest = read_fixture(SUBMISSIONS / "correct" / "softmax_logsumexp.py")
    for name in ("a-honest", "b-honest"):
        build_submission(folder / "class" / name, honest)
    for name, fixture in probes.items():
        build_submission(folder / "class" / f"z-{name}", fixture)
    store = ResultStore(folder / "results")
    plan = plan_class(COURSE, folder / "class", store, LIMITS)
    plan.files_of.update({e.student: ["softmax"] for e in plan.entries if e.student.endswith("honest")})
    plan.files_of.update({f"z-{name}": files_of(name, f) for name, f in probes.items()})
    plan.to_grade.sort(key=lambda entry: entry.student)  # the honest ones first, in the one process
    outcome = grade_class(COURSE, plan, store, LIMITS, jobs=1)
    assert not outcome.failures, outcome.failures
    stored = {result.student: result for result in store.all([e.student for e in plan.entries])}
    assert all(result.error is None for result in stored.values()), {s: r.error for s, r in stored.items()}
    return {student: GradeReport.from_dict(result.report) for student, result in stored.items()}


def test_honest_classmates_of_the_probes_get_full_marks(in_class):
    for name in ("a-honest", "b-honest"):
        assert in_class[name].score == in_class[name].max_score > 0, verdicts(in_class[name])


@pytest.mark.parametrize("name", PROBES)
def test_a_probe_is_graded_in_a_class_exactly_as_alone(mode, in_class, tmp_path, name):
    if name in SEES_THE_MACHINE.get(mode, ()):
        pytest.skip(f"in the {mode} mode a worker sees the machine's processes and folders (docs/security.md)")
    fixture = read_fixture(SUBMISSIONS / "hostile" / f"{name}.py")
    submission = build_submission(tmp_path / name, fixture)
    alone = grade(COURSE, submission, only=files_of(name, fixture), limits=LIMITS)
    assert verdicts(in_class[f"z-{name}"]) == verdicts(alone)


def test_a_process_left_behind_costs_its_own_submission_only(mode, in_class):
    """The killer is the student's: graded, its own workers ended (those tests say how), never the
    grader's failure; what it left is gone before the next worker starts, so other files pass."""
    report = in_class["z-leaves_a_killer_behind"]
    lost = [t for t in report.tests if t.score < t.max_score]
    assert lost and {t.module for t in lost} == {"softmax"}, verdicts(report)
    assert all(t.outcome is Outcome.ERROR and "could not be imported" in t.feedback for t in lost), verdicts(report)
    assert all(t.score == t.max_score for t in report.tests if t.module == "scores")


def test_a_workers_limits_do_not_tell_how_long_the_graders_paths_are(tmp_path, monkeypatch):
    """Without bubblewrap the fork server's command line holds its work folder's path (with the
    grading process's pid: 4 digits in one grading, 5 in the next). The address space a worker may
    map was counted from what that command line took, to the page, and a worker reads its cap:
    ``answers_by_its_environment`` answered differently in a class and alone when the two pids'
    lengths differed. Here two work folders' paths differ in length by thousands of characters,
    in names its mask hides, and nothing else."""
    monkeypatch.setenv("ATTNLAB_SANDBOX", "plain")
    name = "answers_by_its_environment"
    fixture = read_fixture(SUBMISSIONS / "hostile" / f"{name}.py")
    submission = build_submission(tmp_path / name, fixture)
    seen = []
    for length in (9, 200):  # every folder's name is one masked run of letters, in both
        base = Path(tempfile.mkdtemp(dir="/var/tmp"))
        folder = base.joinpath(*[f"{index}" + "p" * length for index in range(10)])
        folder.mkdir(parents=True)
        try:
            for each in (folder, *folder.parents)[: len(folder.relative_to(base).parts) + 1]:
                each.chmod(0o711)  # the private user passes through, as through /tmp
            monkeypatch.setattr(tempfile, "tempdir", str(folder))
            seen.append(verdicts(grade(COURSE, submission, only=files_of(name, fixture), limits=LIMITS)))
        finally:
            shutil.rmtree(base, ignore_errors=True)
    assert seen[0] == seen[1]


def outcome_of(script: str, *args: str, timeout: int = 60) -> dict:
    """Run ``script`` in a Python process of its own and return the JSON its last line prints."""
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


# Run in a process of its own: the fork server's clean-up reaps every child of the process it runs in.
RACE_WITH_A_KILLER = """
import json, os, signal, sys, time
from attnlab.sandbox.inside import forkserver

uid = 1_899_000_000 + os.getpid() % 1_000_000  # a user nothing else runs as
killer = os.fork()
if killer == 0:
    forkserver._become(uid)
    end = time.monotonic() + 20
    while time.monotonic() < end:
        try:
            os.kill(-1, signal.SIGKILL)  # every process of its user, again and again, never resting
        except OSError:
            pass
    os._exit(0)
while not forkserver._processes_of(uid):
    time.sleep(0.001)
ending = forkserver._kill_all
def slowed():
    time.sleep(0.2)  # what a busy machine does to the fork server's killer, before it signals
    ending()
forkserver._kill_all = slowed
started = time.monotonic()
forkserver._kill_everything_of(uid)
left = forkserver._processes_of(uid)
try:  # what the fork server's clean-up left, if it left anything
    os.kill(killer, signal.SIGKILL)
    os.waitpid(killer, 0)
except (ProcessLookupError, ChildProcessError):
    pass
print(json.dumps({"left": left, "seconds": time.monotonic() - started}))
"""


def test_what_a_worker_left_is_ended_even_by_a_killer_that_signals_first():
    """Before each worker the fork server ends every process of the submission's user, by a child
    that becomes that user and signals them all. A leftover that signals all of them too, and
    first, ended that child instead: on a busy machine the whole suite met it (the class stopped
    with "the sandbox could not start a worker"). Here the child is slowed between becoming the
    user and signalling, so the leftover always signals first; it must still end."""
    outcome = outcome_of(RACE_WITH_A_KILLER)
    assert outcome["left"] == [], outcome


# Two processes of the user the clean-up's signal does not end: a zombie (its parent, root, never
# reaps it) and a live one, out of its reach here because the signalling itself is stubbed out.
LEFTOVERS_THAT_ARE_NOT_ENDED = """
import json, os, signal, sys, time
from attnlab.sandbox.inside import forkserver

uid = 1_899_000_000 + os.getpid() % 1_000_000
keeper = os.fork()
if keeper == 0:  # stays root and never reaps its child
    if os.fork() == 0:
        forkserver._become(uid)
        os._exit(0)
    time.sleep(60)
    os._exit(0)
while not any(forkserver._exited(p) for p in os.listdir("/proc") if p.isdigit() and os.stat(f"/proc/{p}").st_uid == uid):
    time.sleep(0.001)
outcome = {"zombie only": forkserver._kill_everything_of(uid)}
live = os.fork()
if live == 0:
    forkserver._become(uid)
    time.sleep(60)
    os._exit(0)
while not forkserver._processes_of(uid):
    time.sleep(0.001)
forkserver._kill_all = lambda: None
started = time.monotonic()
outcome["live"] = forkserver._kill_everything_of(uid)
outcome["seconds"] = time.monotonic() - started
for pid in (live, keeper):
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
print(json.dumps(outcome))
"""


def test_what_cannot_be_ended_is_said_not_left_beside_the_next_worker():
    """The fork server's clean-up says when a live process of the user is still there after its
    deadline (a process stuck in the kernel, where no signal reaches it, is one): the next worker
    is then not started beside it, and the grading stops saying so (test_grader_failures: "a
    leftover cannot be ended"). A zombie is not such a process: where no init reaps orphans (some
    containers), one may wait for ever, and it holds nothing."""
    outcome = outcome_of(LEFTOVERS_THAT_ARE_NOT_ENDED)
    assert outcome["zombie only"] is True and outcome["live"] is False and outcome["seconds"] < 15, outcome


# The grading process as a container's first process without an init: it adopts orphans and
# never reaps them. In a process of its own, whose zombies go with it.
GRADED_UNDER_A_REAPER_THAT_NEVER_REAPS = """
import ctypes, json, os, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
assert ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
os.environ["ATTNLAB_SANDBOX"] = "container"
from conftest import COURSE, SUBMISSIONS, build_submission, read_fixture
from attnlab.grading.suite import grade
from attnlab.sandbox.host import Limits
fixture = read_fixture(SUBMISSIONS / "hostile" / "orphans_a_sleeper_to_a_reaper_that_never_reaps.py")
submission = build_submission(Path(tempfile.mkdtemp()) / "orphans", fixture)
report = grade(COURSE, submission, only=["softmax", "scores"], limits=Limits(call_seconds=2.0))
print(json.dumps({"score": report.score, "max_score": report.max_score}))
"""


def test_a_leftover_adopted_by_a_reaper_that_never_reaps_stops_nothing():
    """Killed, the orphan stays a zombie of the submission's user: it holds nothing and runs
    nothing, so the next worker starts and the submission gets full marks."""
    outcome = outcome_of(GRADED_UNDER_A_REAPER_THAT_NEVER_REAPS, str(Path(__file__).parent), timeout=300)
    assert outcome["score"] == outcome["max_score"] > 0, outcome
