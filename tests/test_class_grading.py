"""Grading a whole class through the command line, as an instructor does: mixed, hostile, killed."""

import csv
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from conftest import (
    COURSE,
    REPO,
    SUBMISSIONS,
    build_submission,
    hidden_test_ids,
    private_uids_in,
    process_group,
    processes_of,
    read_fixture,
)

from attnlab.grading.suite import grade
from attnlab.grading.replay.kept import RESULTS_SUBFOLDER
from attnlab.sandbox.host import Limits, private_uid_of

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

ATTNLAB = [sys.executable, "-m", "attnlab.cli"]
BUGGY = ["softmax_ignores_axis", "sdpa_mask_inverted", "split_heads_reshape_only"]
# CPU seconds per call: the torch track's longest call takes 0.3 to 0.4 s on a quiet host, and a
# host shared with other test runs can triple a call's CPU time (a core's twin and memory bandwidth
# shared); a looping submission costs one deadline, however long.
DEADLINE = 5
HOSTILE = [
    "infinite_loop",
    "allocates_20_gb",
    "forks_50_sleepers",
    "reads_the_solutions",
    "opens_a_socket",
    "writes_outside_its_folder",
]
# Submissions that computed nothing and were given points by an earlier class fast path.
FORGERS = {
    "harvests_answers_from_memory": "attention",
    "inverts_what_merge_heads_was_given": "multihead",
    "chains_its_masks": "masks",
    "chains_its_attention": "attention",
    "steals_answers_through_the_keyring": "multihead",
    "reads_a_classmates_keyring": "multihead",
}


def fixture(kind: str, name: str):
    return read_fixture(SUBMISSIONS / kind / f"{name}.py")


def make_class(folder: Path) -> Path:
    """Two correct students (a folder, a zip), buggy and hostile ones, and one that is not a submission."""
    build_submission(folder / "ada", fixture("correct", "softmax_logsumexp"))
    build_submission(folder / "zipped-src", fixture("correct", "scores_einsum"))
    with zipfile.ZipFile(folder / "bob.zip", "w") as bundle:
        for path in (folder / "zipped-src").iterdir():
            bundle.write(path, f"bob/{path.name}")
    shutil.rmtree(folder / "zipped-src")
    for name in BUGGY:
        build_submission(folder / f"buggy-{name}", fixture("buggy", name))
    for name in (*HOSTILE, *FORGERS):
        build_submission(folder / f"hostile-{name}", fixture("hostile", name))
    (folder / "empty-handed").mkdir()
    (folder / "empty-handed" / "notes.txt").write_text("I did not do it")
    return folder


def run_grade(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*ATTNLAB, "grade", *map(str, args), "--course", str(REPO)],
        capture_output=True,
        text=True,
        timeout=600,
        **kwargs,
    )


def snapshot(folder: Path) -> dict:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def gradebook_rows(path: Path) -> list[tuple]:
    """The gradebook without what differs between two gradings of the same work (times)."""
    with sqlite3.connect(path) as db:
        students = db.execute(
            "SELECT student, score, max_score, error, fingerprint FROM submissions ORDER BY student"
        ).fetchall()
        tests = db.execute(
            "SELECT student, number, test, status, score, max_score, feedback, misconception FROM results ORDER BY student, number"
        ).fetchall()
    return students + tests


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("course-run")
    classroom = make_class(root / "class")
    before = snapshot(root)
    for target in (Path("/tmp/attnlab-pwned"), root / "escaped.py"):
        target.unlink(missing_ok=True)
    started = time.monotonic()
    result = run_grade(
        classroom, "--timeout", str(DEADLINE), "--jobs", "2", "--csv", root / "class.results" / "class.csv"
    )
    return root, before, result, time.monotonic() - started


def stored(root: Path, student: str) -> dict:
    return json.loads((root / "class.results" / f"{student}.json").read_text())


def outcomes_of(data: dict, function: str) -> set[str]:
    return {t["outcome"] for t in data["report"]["tests"] if t["function"] == function}


def test_a_mixed_class_finishes_with_every_result_saved(graded_class):
    root, _, result, _ = graded_class
    assert result.returncode == 0, result.stderr[-2000:]
    students = {p.stem for p in (root / "class.results").glob("*.json")}
    assert students == {
        "ada",
        "bob",
        "empty-handed",
        *(f"buggy-{n}" for n in BUGGY),
        *(f"hostile-{n}" for n in (*HOSTILE, *FORGERS)),
    }
    assert "Score distribution" in result.stdout and "Tests most students answer wrong" in result.stdout


def test_correct_students_get_full_marks_and_buggy_ones_lose_on_their_function(graded_class):
    root, *_ = graded_class
    for student in ("ada", "bob"):
        report = stored(root, student)["report"]
        assert report["score"] == report["max_score"], student
    for name in BUGGY:
        data = stored(root, f"buggy-{name}")
        function = {
            "softmax_ignores_axis": "softmax",
            "sdpa_mask_inverted": "scaled_dot_product_attention",
            "split_heads_reshape_only": "split_heads",
        }[name]
        lost = [t for t in data["report"]["tests"] if t["score"] < t["max_score"]]
        assert {t["function"] for t in lost} == {function}, [
            (name, t["name"], t["outcome"], t["feedback"][:400]) for t in lost if t["function"] != function
        ]


def test_hostile_students_get_named_outcomes(graded_class):
    root, *_ = graded_class
    assert outcomes_of(stored(root, "hostile-infinite_loop"), "softmax") == {"timed out"}
    assert outcomes_of(stored(root, "hostile-allocates_20_gb"), "attention_scores") - {"passed"} == {"out of memory"}
    assert outcomes_of(stored(root, "hostile-forks_50_sleepers"), "softmax") == {"passed"}
    assert outcomes_of(stored(root, "hostile-reads_the_solutions"), "softmax") == {"error"}
    assert outcomes_of(stored(root, "hostile-opens_a_socket"), "softmax") == {"error"}
    assert "no exercise file found" in stored(root, "empty-handed")["error"]


def test_the_class_costs_its_deadlines_and_not_more(graded_class):
    root, *_ = graded_class
    report = stored(root, "hostile-infinite_loop")["report"]
    # Deadlines are CPU seconds: how long one takes by the clock depends on the machine's load, so
    # what is counted is the tests that waited one out, at most one of them.
    looping = [t for t in report["tests"] if t["function"] == "softmax"]
    assert looping and sum(t["duration"] >= DEADLINE for t in looping) <= 1, (
        "one deadline for the looping function, not one per test"
    )


def test_no_process_survives_and_nothing_is_written_outside_the_results(graded_class):
    root, before, *_ = graded_class
    uids = private_uids_in(root / "class.results")
    assert uids or os.geteuid() != 0, "as root, workers run as private users"
    assert processes_of(uids) == []
    after = {k: v for k, v in snapshot(root).items() if not k.startswith("class.results/")}
    assert after == before
    assert not Path("/tmp/attnlab-pwned").exists()


def test_the_gradebook_has_a_row_per_student_and_test_and_the_csv_a_row_per_student(graded_class):
    root, *_ = graded_class
    with sqlite3.connect(root / "class.results" / "gradebook.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0] == 3 + len(BUGGY) + len(HOSTILE) + len(
            FORGERS
        )
        per_student = dict(db.execute("SELECT student, COUNT(*) FROM results GROUP BY student").fetchall())
    assert set(per_student.values()) == {len(hidden_test_ids(COURSE))}, (
        "every student has a row for every hidden test item"
    )
    rows = list(csv.reader((root / "class.results" / "class.csv").open(newline="")))
    assert rows[0][:5] == ["student", "total", "max_total", "softmax", "scores"] and len(rows) == 1 + 3 + len(
        BUGGY
    ) + len(HOSTILE) + len(FORGERS)


def test_class_grading_gives_the_scores_grading_alone_gives(graded_class, fork_server):
    """Replay (recorded calls, no pytest) must never change a verdict: compare with live grading."""
    root, *_ = graded_class
    for student in ("ada", "buggy-sdpa_mask_inverted", "hostile-allocates_20_gb"):
        alone = grade(COURSE, root / "class" / student, limits=Limits(call_seconds=DEADLINE), fork_server=fork_server)
        in_class = stored(root, student)["report"]["tests"]
        assert [(t.name, t.outcome.value, t.score, t.misconception) for t in alone.tests] == [
            (t["name"], t["outcome"], t["score"], t["misconception"]) for t in in_class
        ]


@pytest.mark.parametrize("name", sorted(FORGERS))
def test_a_submission_that_computes_nothing_earns_nothing_in_a_class_as_alone(graded_class, fork_server, name):
    """What each forger's functions earn in the class is what they earn graded alone, and the
    functions that only copy or chain earn nothing on either path."""
    root, *_ = graded_class
    student = f"hostile-{name}"
    alone = grade(
        COURSE,
        root / "class" / student,
        only=[FORGERS[name]],
        limits=Limits(call_seconds=DEADLINE),
        fork_server=fork_server,
    )
    in_class = [t for t in stored(root, student)["report"]["tests"] if t["module"] == FORGERS[name]]
    assert [(t.name, t.outcome.value, t.score) for t in alone.tests] == [
        (t["name"], t["outcome"], t["score"]) for t in in_class
    ]
    copied = {
        "harvests_answers_from_memory": {"scaled_dot_product_attention", "self_attention", "cross_attention"},
        "inverts_what_merge_heads_was_given": {"split_heads"},
        "chains_its_masks": {"causal_mask", "padding_mask"},
        "chains_its_attention": {"scaled_dot_product_attention"},
        "steals_answers_through_the_keyring": set(),
        "reads_a_classmates_keyring": set(),
    }[name]
    assert {t["function"] for t in in_class if t["score"] > 0} & copied == set()
    # The keyring's readers return zeros of the right shape: nothing, as a shape test is paid with the values.
    assert sum(t["score"] for t in in_class) < sum(t["max_score"] for t in in_class)


def test_a_rerun_grades_nothing_and_a_changed_or_named_submission_again(graded_class):
    root, *_ = graded_class
    again = run_grade(root / "class", "--timeout", str(DEADLINE))
    assert f"0 to grade, {3 + len(BUGGY) + len(HOSTILE) + len(FORGERS)} unchanged" in " ".join(again.stderr.split())
    (root / "class" / "ada" / "softmax.py").write_text((REPO / "exercises" / "softmax.py").read_text())
    (recording,) = (root / "class.results" / RESULTS_SUBFOLDER).glob("softmax-*.pickle")
    recorded_at = recording.stat().st_mtime_ns
    changed = run_grade(root / "class", "--timeout", str(DEADLINE), "--jobs", "1")
    assert f"1 to grade, {2 + len(BUGGY) + len(HOSTILE) + len(FORGERS)} unchanged" in " ".join(changed.stderr.split())
    assert recording.stat().st_mtime_ns == recorded_at, (
        "the first run's recording of the reference was loaded, not made again"
    )
    assert stored(root, "ada")["report"]["score"] < stored(root, "ada")["report"]["max_score"]
    named = run_grade(root / "class", "--student", "bob", "--timeout", str(DEADLINE))
    assert "1 to grade" in " ".join(named.stderr.split())
    unknown = run_grade(root / "class", "--student", "nobody-here")
    assert unknown.returncode == 2 and "no submission for student nobody-here" in unknown.stderr


def test_a_grader_killed_midway_resumes_and_ends_with_the_same_gradebook(tmp_path):
    """On the numpy track only (--track), which also shows a class graded on part of the course."""
    classroom = tmp_path / "class"
    for index in range(6):
        build_submission(classroom / f"student{index}", fixture("correct", "softmax_logsumexp"))
    build_submission(classroom / "student6", fixture("buggy", "softmax_ignores_axis"))
    uninterrupted = run_grade(classroom, "--results", tmp_path / "full", "--jobs", "2", "--track", "numpy")
    assert uninterrupted.returncode == 0, uninterrupted.stderr[-2000:]
    modules = {t["module"] for t in json.loads((tmp_path / "full" / "student0.json").read_text())["report"]["tests"]}
    assert "torch_attention" not in modules and "softmax" in modules

    results = tmp_path / "killed"
    grader = subprocess.Popen(
        [
            *ATTNLAB,
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
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    grader_pids: set[int] = set()  # its slots' private users are derived from their ids
    while time.monotonic() < deadline and len(list(results.glob("student*.json"))) < 2:
        grader_pids.update(process_group(grader.pid))
        time.sleep(0.05)
    os.killpg(grader.pid, signal.SIGKILL)
    grader.wait()
    finished = len(list(results.glob("student*.json")))
    assert 2 <= finished < 7, "killed halfway, not before or after"
    time.sleep(0.5)
    assert private_uids_in(results) <= {private_uid_of(pid) for pid in grader_pids}
    assert processes_of({private_uid_of(pid) for pid in grader_pids}) == []

    resumed = run_grade(classroom, "--results", results, "--jobs", "2", "--track", "numpy")
    assert f"{7 - finished} to grade, {finished} unchanged" in " ".join(resumed.stderr.split())
    assert gradebook_rows(results / "gradebook.sqlite") == gradebook_rows(tmp_path / "full" / "gradebook.sqlite")


def alive(pid: int) -> bool:
    """Running, that is: not gone and not a zombie waiting to be reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_signal_to_the_graders_own_process_leaves_no_process_behind(tmp_path, stop):
    # kill PID, a scheduler's time limit or the OOM killer reach that process alone: its grading
    # processes once stayed behind, orphaned, each holding its sandbox and waiting for work.
    classroom = tmp_path / "class"
    for index in range(4):
        build_submission(classroom / f"student{index}", fixture("correct", "softmax_logsumexp"))
    results = tmp_path / "results"
    grader = subprocess.Popen(
        [
            *ATTNLAB,
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
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list(results.glob("student*.json")):
        time.sleep(0.05)
    others = [pid for pid in process_group(grader.pid) if pid != grader.pid]
    assert others, "grading processes and their sandboxes"
    os.kill(grader.pid, stop)
    _, stderr = grader.communicate(timeout=60)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and any(alive(pid) for pid in others):
        time.sleep(0.05)
    assert [pid for pid in others if alive(pid)] == []
    if stop == signal.SIGTERM:  # as Ctrl-C: what finished is kept, the gradebook rebuilt from it
        assert grader.returncode == 130 and "run the same command again to go on" in " ".join(stderr.split())
        assert (results / "gradebook.sqlite").exists()


def test_a_gradescope_group_is_graded_once_and_each_member_gets_the_result(tmp_path):
    export = tmp_path / "export"
    build_submission(export / "submission_7", fixture("buggy", "softmax_ignores_axis"))
    build_submission(export / "submission_8", fixture("correct", "softmax_logsumexp"))
    (export / "submission_metadata.yml").write_text(
        "submission_7:\n  :submitters:\n  - :sid: '11'\n  - :sid: '12'\nsubmission_8:\n  :submitters:\n  - :email: cy@example.org\n"
    )
    result = run_grade(export, "--results", tmp_path / "class.results", "--only", "softmax")
    assert result.returncode == 0, result.stderr[-2000:]
    ann, ben, cy = (stored(tmp_path, student) for student in ("11", "12", "cy@example.org"))
    assert ann["report"]["score"] < ann["report"]["max_score"] == cy["report"]["score"]
    # One grading, two results: the same report to the microsecond of its duration.
    assert ann["report"] == ben["report"] and ann["fingerprint"] == ben["fingerprint"]
    with sqlite3.connect(tmp_path / "class.results" / "gradebook.sqlite") as db:
        assert db.execute("SELECT student FROM submissions ORDER BY student").fetchall() == [
            ("11",),
            ("12",),
            ("cy@example.org",),
        ]


def test_two_classes_side_by_side_keep_their_results_apart(tmp_path):
    """Each class's results are its own by default; a results folder given for another class is
    refused in one line with nothing graded or changed; archive litter is no student."""
    build_submission(tmp_path / "class" / "alice", fixture("correct", "softmax_logsumexp"))
    build_submission(tmp_path / "class" / "__MACOSX" / "alice", fixture("correct", "softmax_logsumexp"))
    build_submission(tmp_path / "stray" / "alice", fixture("buggy", "softmax_ignores_axis"))
    for folder in ("class", "stray"):
        done = run_grade(tmp_path / folder, "--only", "softmax", "--jobs", "1")
        assert done.returncode == 0, done.stderr[-2000:]
    kept = snapshot(tmp_path / "class.results")
    assert {p.stem for p in (tmp_path / "class.results").glob("*.json")} == {"alice"}
    scores = {
        folder: json.loads((tmp_path / f"{folder}.results" / "alice.json").read_text())["report"]["score"]
        for folder in ("class", "stray")
    }
    assert scores["class"] > scores["stray"]
    refused = run_grade(tmp_path / "stray", "--only", "softmax", "--results", tmp_path / "class.results")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "holds the results of the class in" in refused.stderr and "stray.results" in refused.stderr
    assert snapshot(tmp_path / "class.results") == kept


def test_a_change_of_points_alone_rescores_the_stored_results_without_running_any_code(tmp_path):
    # Editing points.toml once regraded every submission (49 s for 26): the outcomes were already stored.
    course = tmp_path / "course"
    for part in ("exercises", "solutions"):
        shutil.copytree(REPO / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    classroom = tmp_path / "class"
    build_submission(classroom / "ada", fixture("correct", "softmax_logsumexp"))
    build_submission(classroom / "bob", fixture("buggy", "softmax_ignores_axis"))

    def grade_class_of(results: Path) -> subprocess.CompletedProcess:
        args = ["grade", classroom, "--results", results, "--only", "softmax", "--jobs", "1", "--course", course]
        done = subprocess.run([*ATTNLAB, *map(str, args)], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        return done

    grade_class_of(tmp_path / "results")
    before = {s: stored_in(tmp_path / "results", s)["report"] for s in ("ada", "bob")}
    points = course / "solutions" / "hidden_tests" / "points.toml"
    points.write_text(
        points.read_text()
        .replace("[test_softmax]\n", "[test_softmax]\n# reweighted\n", 1)
        .replace(
            "test_values = 2\ntest_stable_for_large_scores = 2", "test_values = 5\ntest_stable_for_large_scores = 3"
        )
    )
    rescored = grade_class_of(tmp_path / "results")
    said = " ".join(rescored.stderr.split())
    assert "0 to grade, 2 rescored (only the points changed: no code run)" in said, said
    assert "Recording the reference" not in said
    fresh = tmp_path / "fresh"
    grade_class_of(fresh)
    for student in ("ada", "bob"):
        now, regraded = stored_in(tmp_path / "results", student)["report"], stored_in(fresh, student)["report"]
        assert (now["score"], now["max_score"]) == (regraded["score"], regraded["max_score"])
        assert [(t["test"], t["score"], t["max_score"]) for t in now["tests"]] == [
            (t["test"], t["score"], t["max_score"]) for t in regraded["tests"]
        ]
        assert now["max_score"] == before[student]["max_score"] + 4
    assert before["ada"]["score"] + 4 == stored_in(tmp_path / "results", "ada")["report"]["score"]
    assert "ada: " in rescored.stdout and "Scores changed since they were last graded" in rescored.stdout


def stored_in(results: Path, student: str) -> dict:
    return json.loads((results / f"{student}.json").read_text())


def test_a_regrade_interrupted_and_resumed_still_lists_the_changes_made_before_the_interruption(tmp_path, monkeypatch):
    # The run that finished a regrade listed only its own students' changes: those graded before a
    # Ctrl-C were current by then, and their scores before the regrade were forgotten.
    from attnlab.classroom import grading
    from attnlab.classroom.gradebook import ResultStore
    from attnlab.report.class_summary import score_changes

    classroom = tmp_path / "class"
    for student in ("ada", "bob"):
        build_submission(classroom / student, fixture("correct", "softmax_logsumexp"))
    store = ResultStore(tmp_path / "results")
    limits = Limits()
    old = {"submission": "x", "sandbox": "none", "duration": 1.0, "score": 3.0, "max_score": 10.0, "tests": []}
    for entry in grading.plan_class(COURSE, classroom, store, limits).entries:
        store.save(
            entry.student, source="x", fingerprint=entry.fingerprint(COURSE), grader="older", report=old, error=None
        )
    plan = grading.plan_class(COURSE, classroom, store, limits)
    assert sorted(plan.before) == ["ada", "bob"]

    def graded_one_then_interrupted(course, plan, store, *rest):
        ada = next(e for e in plan.entries if e.student == "ada")
        grading._save(store, plan, ada, {**old, "score": 9.0}, None)
        raise KeyboardInterrupt

    monkeypatch.setattr(grading, "_grade_in_parallel", graded_one_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        grading.grade_class(COURSE, plan, store, limits)
    resumed = grading.plan_class(COURSE, classroom, store, limits)
    assert [e.student for e in resumed.to_grade] == ["bob"]
    assert resumed.before == {"ada": 3.0, "bob": 3.0}
    assert score_changes(resumed.before, [r.data for r in store.all(["ada", "bob"])]) == ["ada: 3 → 9"]
    store.forget_before()
    assert grading.plan_class(COURSE, classroom, store, limits).before == {"bob": 3.0}
