"""A failure of the grader is never a student's grade, and nothing of a run outlives it.

The sandbox broken on purpose (a fork server that exits, workers that die before any
student code runs), a reference that fails its own test, a results disk that fills up,
a TMPDIR the sandbox's user cannot reach, a grader killed with ``kill -9``: each run says
why in one line and exits non-zero, saves nothing it did not grade, and leaves nothing
behind.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import pytest
from conftest import COURSE, REPO, SUBMISSIONS, build_submission, processes_of, read_fixture

from attnlab.grading.replay.kept import RESULTS_SUBFOLDER
from attnlab.grading.suite import grade
from attnlab.lifecycle import remove_stale_scratch, running
from attnlab.outcomes import GraderFailure
from attnlab.sandbox import mode
from attnlab.sandbox.environment import SandboxEnvironment
from attnlab.sandbox.host import ForkServer, private_uid_of, workroot_base

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

# The sandbox broken two ways, as mode._boot replacements (the fork server's start-up code).
BROKEN_BOOTS = {
    # Every worker forked dies before its first message, before any student code ran.
    "workers die before saying hello": "lambda *path: f'import os, sys; sys.path[:0] = {list(path)!r}; import attnlab.sandbox.inside.forkserver as f; f._become_worker = lambda *a: os._exit(0); f.main(int(sys.argv[1]))'",
    # The fork server itself ends at once.
    "the fork server exits": "lambda *path: 'import sys; sys.exit(0)'",
    # What a worker left cannot be ended (a process stuck in the kernel): no worker starts beside it.
    "a leftover cannot be ended": "lambda *path: f'import os, sys; sys.path[:0] = {list(path)!r}; import attnlab.sandbox.inside.forkserver as f; f._kill_everything_of = lambda uid: False; f.main(int(sys.argv[1]))'",
}
SCRATCH = ("attnlab-sandbox-", "attnlab-stage-", "attnlab-staged-")


def correct():
    return read_fixture(SUBMISSIONS / "correct" / "softmax_logsumexp.py")


def attnlab(*args, boot: str | None = None, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """``attnlab ARGS --course REPO`` in a subprocess, its sandbox's start-up replaced by ``boot``."""
    patch = f"import attnlab.sandbox.mode as h; h._boot = {boot}; " if boot else ""
    command = [
        sys.executable,
        "-c",
        f"{patch}from attnlab.cli import main; main()",
        *map(str, args),
        "--course",
        str(REPO),
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, env=env, **kwargs)


def one_error_line(stderr: str) -> str:
    """The run's one error line (and no traceback)."""
    assert "Traceback" not in stderr, stderr[-3000:]
    errors = [line for line in stderr.splitlines() if line.startswith("attnlab: error:")]
    assert len(errors) == 1, stderr[-3000:]
    return errors[0]


def make_class(folder: Path, students: int) -> Path:
    for index in range(students):
        build_submission(folder / f"student{index}", correct())
    return folder


def scores(results: Path) -> dict[str, tuple[float, float]]:
    return {
        p.stem: (d["report"]["score"], d["report"]["max_score"])
        for p in sorted(results.glob("*.json"))
        for d in [json.loads(p.read_text())]
    }


@pytest.fixture
def unreachable_tmpdir(tmp_path):
    """A TMPDIR of mode 0700 below /tmp, as pam_tmpdir makes ``/tmp/user/0``."""
    folder = tmp_path / "user" / "0"
    folder.mkdir(parents=True)
    folder.chmod(0o700)
    return folder


# -- the sandbox broken on purpose ------------------------------------------------------------


@pytest.mark.parametrize("broken", sorted(BROKEN_BOOTS))
def test_a_class_whose_sandbox_cannot_start_stops_saying_why_and_saves_nothing(tmp_path, broken):
    classroom = make_class(tmp_path / "class", 3)
    results = tmp_path / "results"
    run = attnlab(
        "grade", classroom, "--results", results, "--only", "softmax", "--jobs", "2", boot=BROKEN_BOOTS[broken]
    )
    assert run.returncode == 1, run.stderr[-3000:]
    line = one_error_line(run.stderr)
    assert "grading stopped" in line and "sandbox" in line and "nothing was saved" in line
    if broken == "a leftover cannot be ended":
        assert "could not be ended" in line, line
    assert list(results.glob("*.json")) == [], "no grade is stored for a student the sandbox failed"
    # Fixed, the same command grades every student, at full marks.
    again = attnlab("grade", classroom, "--results", results, "--only", "softmax", "--jobs", "2")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "3 to grade, 0 unchanged" in " ".join(again.stderr.split())
    assert {s: a == b > 0 for s, (a, b) in scores(results).items()} == {f"student{i}": True for i in range(3)}


@pytest.mark.parametrize("broken", sorted(BROKEN_BOOTS))
def test_one_submission_whose_sandbox_cannot_start_is_not_graded(tmp_path, broken):
    submission = build_submission(tmp_path / "ada", correct())
    run = attnlab(
        "grade", submission, "--only", "softmax", "--json", tmp_path / "results.json", boot=BROKEN_BOOTS[broken]
    )
    assert run.returncode == 1, run.stderr[-3000:]
    assert "not graded" in one_error_line(run.stderr) and "sandbox" in run.stderr
    assert "points" not in run.stdout and not (tmp_path / "results.json").exists()


def test_grade_raises_a_grader_failure_and_the_server_works_again_once_told(tmp_path, monkeypatch):
    submission = build_submission(tmp_path / "ada", correct())
    monkeypatch.setattr(mode, "_boot", eval(BROKEN_BOOTS["workers die before saying hello"]))
    server = ForkServer(SandboxEnvironment.for_course(COURSE))
    try:
        with pytest.raises(GraderFailure, match="could not start a worker for softmax.py"):
            grade(COURSE, submission, only=["softmax"], fork_server=server)
        assert server.failure is None, "grade() took the failure: the next submission starts clean"
    finally:
        server.close()
    assert not server.workroot.exists(), "close() removes the server's folder"


def test_a_fork_server_stopped_at_once_leaves_no_process_of_its_own_behind(monkeypatch):
    # bubblewrap's sandboxed child, stopped before its parent let it go on, waited for ever with
    # the grader's output open, and the grader's caller with it (CI hung here for 10 minutes). A
    # start-up that forks a child which outlives its parent is that moment, made certain.
    token = f"attnlab-test-{os.getpid()}-{time.monotonic_ns()}"
    monkeypatch.setenv("ATTNLAB_SANDBOX", "plain")
    monkeypatch.setattr(mode, "_boot", lambda *path: f"import os, time; os.fork(); time.sleep(600)  # {token}")
    try:
        server = ForkServer(SandboxEnvironment.for_course(COURSE))
        deadline = time.monotonic() + 30
        while len(_processes_naming(token)) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(_processes_naming(token)) == 2, "the start-up forked its child"
        server.close()
        assert _processes_naming(token) == []
    finally:
        for pid in _processes_naming(token):
            os.kill(pid, signal.SIGKILL)


def _processes_naming(text: str) -> list[int]:
    """The processes whose command line holds ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and text.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


def test_a_reference_that_fails_its_own_test_stops_the_class(tmp_path):
    course = tmp_path / "course"
    for folder in ("exercises", "solutions"):
        shutil.copytree(REPO / folder, course / folder)
    softmax = course / "solutions" / "softmax.py"
    softmax.write_text(
        softmax.read_text() + "\n\n_right = softmax\n\ndef softmax(x, axis=-1):\n    return _right(x, axis) * 0.5\n"
    )
    classroom = make_class(tmp_path / "class", 2)
    results = tmp_path / "results"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnlab.cli",
            "grade",
            str(classroom),
            "--results",
            str(results),
            "--only",
            "softmax",
            "--only",
            "masks",
            "--jobs",
            "2",
            "--course",
            str(course),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 1, run.stderr[-3000:]
    assert "the reference fails its own hidden test 'softmax:" in one_error_line(run.stderr)
    assert list(results.glob("*.json")) == []


# -- any TMPDIR -------------------------------------------------------------------------------


@pytest.fixture(params=["below /tmp", "elsewhere"])
def closed_tmpdir(request, tmp_path):
    """A TMPDIR of mode 0700: below /tmp (pam_tmpdir's ``/tmp/user/0``), or in /var/tmp."""
    if request.param == "below /tmp":
        folder = tmp_path / "user" / "0"
        folder.mkdir(parents=True)
    else:
        folder = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="attnlab-test-tmpdir-"))
    folder.chmod(0o700)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_a_closed_tmpdir_grades_the_reference_at_full_marks_alone_and_in_a_class(tmp_path, closed_tmpdir):
    env = {**os.environ, "TMPDIR": str(closed_tmpdir)}
    alone = attnlab("grade", REPO / "solutions", "--track", "numpy", "--json", tmp_path / "alone.json", env=env)
    assert alone.returncode == 0, alone.stderr[-3000:]
    report = json.loads((tmp_path / "alone.json").read_text())
    assert report["score"] == report["extra_data"]["max_score"] > 0, [
        t["output"] for t in report["tests"] if t["score"] < t["max_score"]
    ][:3]

    classroom = tmp_path / "class"
    for student in ("ada", "bob"):
        shutil.copytree(
            REPO / "solutions", classroom / student, ignore=shutil.ignore_patterns("hidden_tests", "misconceptions")
        )
    results = tmp_path / "results"
    run = attnlab("grade", classroom, "--results", results, "--track", "numpy", "--jobs", "2", env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert {s: a == b > 0 for s, (a, b) in scores(results).items()} == {"ada": True, "bob": True}
    assert [p.name for p in closed_tmpdir.iterdir() if p.name.startswith(SCRATCH)] == []


def test_the_work_folder_goes_where_the_workers_can_reach_it(unreachable_tmpdir, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(unreachable_tmpdir))
    assert workroot_base(private_user=False) == str(unreachable_tmpdir), "the grader's own user reaches its TMPDIR"
    assert workroot_base(private_user=True) == "/tmp"
    reachable = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="attnlab-test-tmpdir-"))
    try:
        reachable.chmod(0o755)
        monkeypatch.setattr(tempfile, "tempdir", str(reachable))
        assert workroot_base(private_user=True) == str(reachable), "a TMPDIR open to all is kept"
    finally:
        reachable.rmdir()


# -- nothing outlives the grader --------------------------------------------------------------


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
        except (OSError, IndexError, ValueError):
            pass
    return found


def descendants_of(pid: int) -> set[int]:
    found, frontier = set(), [pid]
    while frontier:
        for child in children_of(frontier.pop()):
            if child not in found:
                found.add(child)
                frontier.append(child)
    return found


@pytest.fixture
def open_tmpdir():
    """A TMPDIR every user can reach, outside /tmp: the sandbox's folders go in it."""
    folder = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="attnlab-test-tmpdir-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def recorded(results: Path) -> bool:
    """Has the class kept a recording of the reference's run in its results folder?"""
    return any((results / RESULTS_SUBFOLDER).glob("*.pickle"))


@pytest.mark.parametrize("phase", ["recording", "grading"])
def test_a_class_run_killed_with_sigkill_leaves_no_process_and_the_next_run_no_folder(tmp_path, open_tmpdir, phase):
    classroom = make_class(tmp_path / "class", 4)
    results = tmp_path / "results"
    # No recording kept in the user's cache either: the run records, and can be killed doing it.
    env = {**os.environ, "TMPDIR": str(open_tmpdir), "ATTNLAB_RECORDINGS": str(tmp_path / "recordings")}
    command = [
        sys.executable,
        "-m",
        "attnlab.cli",
        "grade",
        str(classroom),
        "--results",
        str(results),
        "--jobs",
        "2",
        "--track",
        "numpy",
        "--course",
        str(REPO),
    ]
    grader = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True
    )
    seen: set[int] = set()
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            seen |= descendants_of(grader.pid)
            if phase == "recording" and len(children_of(grader.pid)) >= 2 and not recorded(results):
                time.sleep(0.3)  # well into recording, in both processes
                break
            if phase == "grading" and list(results.glob("student*.json")):
                break
            time.sleep(0.02)
        else:
            pytest.fail(f"the run never reached {phase}")
        seen |= descendants_of(grader.pid)
        assert phase == "grading" or not recorded(results), "killed while recording"
    finally:
        os.kill(grader.pid, signal.SIGKILL)  # the grader alone: what it started must go with it
        grader.wait()
    assert seen, "recording or grading processes"
    users = {private_uid_of(pid) for pid in seen | {grader.pid}}
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (any(running(pid) for pid in seen) or processes_of(users)):
        time.sleep(0.05)
    assert [pid for pid in seen if running(pid)] == []
    assert processes_of(users) == []

    again = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert again.returncode == 0, again.stderr[-3000:]
    assert len(list(results.glob("student*.json"))) == 4
    assert [p.name for p in open_tmpdir.iterdir() if p.name.startswith(SCRATCH)] == [], (
        "the next run cleared what the killed one left"
    )


def test_a_class_run_leaves_no_folder_behind(tmp_path, open_tmpdir):
    classroom = make_class(tmp_path / "class", 2)
    run = attnlab(
        "grade",
        classroom,
        "--results",
        tmp_path / "results",
        "--only",
        "softmax",
        "--jobs",
        "2",
        env={**os.environ, "TMPDIR": str(open_tmpdir)},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert list(open_tmpdir.iterdir()) == []


def test_only_the_folders_of_gone_graders_of_ours_are_cleared(tmp_path):
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    dead = int(gone.stdout)
    stale = tmp_path / f"attnlab-sandbox-{dead}-abc123"
    (stale / "worker-x").mkdir(parents=True)
    live = tmp_path / f"attnlab-stage-{os.getpid()}-abc123"
    live.mkdir()
    parent_alive = tmp_path / f"attnlab-sandbox-{os.getppid()}-abc123"
    parent_alive.mkdir()
    target = tmp_path / "kept"
    target.mkdir()
    (target / "precious").write_text("x")
    link = tmp_path / f"attnlab-stage-{dead}-link"
    link.symlink_to(target)
    unlike = tmp_path / f"attnlab-sandbox-{dead}"
    unlike.mkdir()
    others = tmp_path / f"attnlab-sandbox-{dead}-other"
    others.mkdir()
    os.chown(others, 12345, 12345)
    assert remove_stale_scratch(tmp_path) == [str(stale)]
    assert (
        not stale.exists()
        and live.exists()
        and parent_alive.exists()
        and link.is_symlink()
        and unlike.exists()
        and others.exists()
    )
    assert (target / "precious").exists()


# -- a full results disk ----------------------------------------------------------------------


def test_a_full_results_disk_stops_the_class_in_one_line_and_loses_nothing(tmp_path):
    classroom = make_class(tmp_path / "class", 6)
    results = tmp_path / "results"
    results.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(results)], check=True)
    try:
        # Room for three results (a page each, and more than enough), not for the recording.
        free = os.statvfs(results).f_bavail * os.statvfs(results).f_frsize
        (results / "filler").write_bytes(b"\0" * (free - 3 * 4096 - 2048))
        run = attnlab("grade", classroom, "--results", results, "--only", "softmax", "--jobs", "2")
        assert run.returncode == 1, run.stderr[-3000:]
        line = one_error_line(run.stderr)
        assert f"cannot save the results in {results}" in line and "No space left on device" in line
        assert sorted(p.name for p in results.iterdir() if p.name.endswith(".tmp") or ".tmp" in p.name) == []
        saved = scores(results)
        assert 1 <= len(saved) < 6, saved
        assert all(a == b > 0 for a, b in saved.values()), "the results saved before are whole"
        before = {p.name: p.read_bytes() for p in results.glob("*.json")}

        subprocess.run(["mount", "-o", "remount,size=4m", str(results)], check=True)
        again = attnlab("grade", classroom, "--results", results, "--only", "softmax", "--jobs", "2")
        assert again.returncode == 0, again.stderr[-3000:]
        assert f"{6 - len(saved)} to grade, {len(saved)} unchanged" in " ".join(again.stderr.split())
        assert len(scores(results)) == 6 and all(a == b > 0 for a, b in scores(results).values())
        assert {name: (results / name).read_bytes() for name in before} == before
    finally:
        subprocess.run(["umount", "-l", str(results)], check=False)


# -- Gradescope -------------------------------------------------------------------------------


def test_gradescope_gets_no_score_when_the_sandbox_cannot_start(tmp_path):
    import zipfile

    from attnlab.export.gradescope import build_autograder_zip

    root = tmp_path / "autograder"
    build_autograder_zip(COURSE, tmp_path / "autograder.zip")
    with zipfile.ZipFile(tmp_path / "autograder.zip") as bundle:
        bundle.extractall(root / "source")
    build_submission(root / "submission", correct())
    boot = BROKEN_BOOTS["workers die before saying hello"]
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import attnlab.sandbox.mode as h; h._boot = {boot}; from attnlab.export.gradescope import main; main()",
            str(root),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 1, run.stderr[-3000:]
    assert "could not start a worker" in one_error_line(run.stderr)
    assert not (root / "results" / "results.json").exists(), (
        "no results: Gradescope shows the autograder failed, not a 0"
    )


def test_a_worker_folder_that_cannot_be_made_is_the_graders_failure(tmp_path):
    # A full or vanished temporary folder once failed the hidden test that needed a worker: a 0.
    submission = build_submission(tmp_path / "ada", correct())
    server = ForkServer(SandboxEnvironment.for_course(COURSE))
    try:
        shutil.rmtree(server.workroot)
        with pytest.raises(
            GraderFailure, match="the sandbox could not (prepare a worker's folder for softmax.py|copy the submission)"
        ):
            grade(COURSE, submission, only=["softmax"], fork_server=server)
    finally:
        server.close()


def test_a_sandbox_that_fails_ends_the_grading_at_the_test_that_met_it(tmp_path, monkeypatch):
    # Every later test met the failure again, and hypothesis formatted each one's traceback, which
    # grew with each raise of the one failure: a minute and more before the run said why.
    from attnlab.grading.plugin import GradingPlugin

    monkeypatch.setattr(mode, "_boot", eval(BROKEN_BOOTS["workers die before saying hello"]))
    recorded = []
    record = GradingPlugin._record
    monkeypatch.setattr(
        GradingPlugin, "_record", lambda self, item, *a: recorded.append(item.nodeid) or record(self, item, *a)
    )
    submission = build_submission(tmp_path / "ada", correct())
    server = ForkServer(SandboxEnvironment.for_course(COURSE))
    try:
        with pytest.raises(GraderFailure, match="could not start a worker") as failure:
            grade(COURSE, submission, only=["softmax", "masks"], fork_server=server)
    finally:
        server.close()
    # The test that met it (when the session had begun; the replay before it may meet it first).
    assert len(recorded) <= 1, recorded
    assert len(traceback.extract_tb(failure.value.__traceback__)) < 40, "one raise's frames, not every raise's"


# -- what only looks like a sandbox failure ---------------------------------------------------


def test_a_worker_that_the_students_code_ends_is_the_students_alone_and_in_a_class(grade_fixture, tmp_path):
    hostile = read_fixture(SUBMISSIONS / "hostile" / "os_exit_at_import.py")
    report = grade_fixture(hostile)  # no GraderFailure: the student's code ran
    assert report.tests and all(
        t.score == 0 and "softmax.py could not be imported: the worker exited with status 0" in t.feedback
        for t in report.tests
    )

    classroom = tmp_path / "class"
    build_submission(classroom / "exits", hostile)
    build_submission(classroom / "honest", correct())
    results = tmp_path / "results"
    run = attnlab("grade", classroom, "--results", results, "--only", "softmax", "--jobs", "2")
    assert run.returncode == 0, run.stderr[-3000:]
    stored = {p.stem: json.loads(p.read_text())["report"] for p in results.glob("*.json")}
    assert stored["exits"]["score"] == 0 < stored["honest"]["score"] == stored["honest"]["max_score"]
    assert all(
        "could not be imported: the worker exited with status 0" in t["feedback"] for t in stored["exits"]["tests"]
    )
