"""A class graded in shards (``--shard K/N``) and merged (``attnlab gradebook merge``): the same
gradebook as one run, shards chosen by a hash of the id, and merges of the wrong folders refused."""

import csv
import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import COURSE, REPO, SUBMISSIONS, build_submission, read_fixture

from attnlab.classroom.shards import Shard, in_shard, parse_shard
from attnlab.points import load_points

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

ATTNLAB = [sys.executable, "-m", "attnlab.cli"]
# One student or two in each of four shards (by the hash of their ids: ada 3, dee 4, gus 2, jo 1, kim 1).
CLASS = {
    "ada": "correct/softmax_logsumexp",
    "dee": "buggy/softmax_ignores_axis",
    "gus": "correct/softmax_logsumexp",
    "jo": "buggy/softmax_ignores_axis",
    "kim": "correct/softmax_logsumexp",
}


def attnlab(*args, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([*ATTNLAB, *map(str, args)], capture_output=True, text=True, timeout=600, **kwargs)


def gradebook_rows(path: Path) -> list[tuple]:
    """Per student and per test, without what differs between two gradings of the same work (times)."""
    with sqlite3.connect(path) as db:
        students = db.execute(
            "SELECT student, score, max_score, error, fingerprint FROM submissions ORDER BY student"
        ).fetchall()
        tests = db.execute(
            "SELECT student, number, test, status, score, max_score, feedback, misconception FROM results ORDER BY student, number"
        ).fetchall()
    return students + tests


def test_a_shard_is_k_of_n_counted_from_one():
    assert parse_shard("2/4") == Shard(2, 4) and parse_shard(" 1 / 1 ") == Shard(1, 1)
    for bad in ("0/4", "5/4", "a/b", "", "2/0", "-1/4", "2", "1/4/2"):
        with pytest.raises(ValueError, match="is not a shard"):
            parse_shard(bad)


def test_every_student_is_in_one_shard_and_stays_there_when_others_join():
    ids = [f"s{n:04d}" for n in range(400)] + ["José", "李雷", "cy@example.org"]
    split = {student: [k for k in range(1, 5) if in_shard(student, Shard(k, 4))] for student in ids}
    assert all(len(shards) == 1 for shards in split.values())
    sizes = [sum(shards == [k] for shards in split.values()) for k in range(1, 5)]
    assert all(60 < size < 140 for size in sizes), sizes  # a hash, so near a quarter each
    for student in ids:  # a shard's choice depends on the id alone, never on who else is in the class
        assert [k for k in range(1, 5) if in_shard(student, Shard(k, 4))] == split[student]
    assert {student: [k for k in range(1, 5) if in_shard(student, Shard(k, 4))] for student in CLASS} == {
        "ada": [3],
        "dee": [4],
        "gus": [2],
        "jo": [1],
        "kim": [1],
    }


@pytest.fixture(scope="module")
def sharded(tmp_path_factory):
    """One unsharded run and four shard processes, all at once, on one small class."""
    root = tmp_path_factory.mktemp("sharded")
    for student, fixture in CLASS.items():
        build_submission(root / "class" / student, read_fixture(SUBMISSIONS / f"{fixture}.py"))
    common = ["--only", "softmax", "--jobs", "1", "--course", REPO]
    runs = {
        "whole": subprocess.Popen(
            [*ATTNLAB, "grade", root / "class", "--results", root / "whole", *common],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    }
    started = time.monotonic()
    for k in range(1, 5):
        runs[k] = subprocess.Popen(
            [*ATTNLAB, "grade", root / "class", "--shard", f"{k}/4", *common],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    finished = {name: (run.wait(timeout=600), run.communicate()[1]) for name, run in runs.items()}
    return root, finished, time.monotonic() - started


def test_four_shards_merged_make_the_gradebook_of_one_run(sharded):
    root, finished, _ = sharded
    for name, (code, stderr) in finished.items():
        assert code == 0, f"{name}: {stderr[-2000:]}"
    shards = sorted((root / "class.results").glob("shard-*-of-4"))
    assert [p.name for p in shards] == [f"shard-{k}-of-4" for k in range(1, 5)]
    for k, folder in enumerate(shards, start=1):
        assert {p.stem for p in folder.glob("*.json")} == {s for s in CLASS if in_shard(s, Shard(k, 4))}
    merged = attnlab("gradebook", "merge", *shards, "-o", root / "class.results")
    assert merged.returncode == 0, merged.stderr
    assert "Merged 4 shards: 5 students" in " ".join(merged.stderr.split())
    whole = gradebook_rows(root / "whole" / "gradebook.sqlite")
    assert len(whole) > 5 and gradebook_rows(root / "class.results" / "gradebook.sqlite") == whole


def test_after_merging_the_class_is_current_and_writes_a_canvas_csv(sharded):
    root, _, _ = sharded
    if not (root / "class.results" / "gradebook.sqlite").exists():
        pytest.skip("needs the merge above")
    (root / "roster.csv").write_text(
        "id,name,email,section\nada,Ada Lovelace,ada@example.org,S1\njo,\"Jo, Jr.\",jo@example.org,S2\nzed,Zed Absent,zed@example.org,S1\n"
    )
    done = attnlab(
        "grade",
        root / "class",
        "--only",
        "softmax",
        "--csv",
        root / "grades.csv",
        "--roster",
        root / "roster.csv",
        "--format",
        "canvas",
        "--course",
        REPO,
    )
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stderr.split())
    assert "0 to grade, 5 unchanged" in said and "3 students graded but not on the roster" in said and "zed" in said
    rows = list(csv.reader((root / "grades.csv").open()))
    assert rows[0] == ["Student", "ID", "SIS User ID", "Section", "attnlab: self-attention from scratch"]
    scores = {
        json.loads(p.read_text())["student"]: json.loads(p.read_text())["report"]["score"]
        for p in (root / "class.results").glob("*.json")
    }
    softmax_points = sum(
        points for (file, _), points in load_points(COURSE.hidden_tests_dir).items() if file == "test_softmax"
    )
    assert rows[1][0] == "Points Possible" and float(rows[1][4]) == softmax_points
    assert rows[2] == ["Ada Lovelace", "", "ada", "S1", f"{scores['ada']:g}"] and rows[3][:4] == [
        "Jo, Jr.",
        "",
        "jo",
        "S2",
    ]
    assert rows[4] == ["Zed Absent", "", "zed", "S1", ""]
    assert {row[2] for row in rows[5:]} == {"dee", "gus", "kim"}


def test_a_student_who_joins_later_is_graded_by_their_shard_alone(sharded):
    root, _, _ = sharded
    build_submission(root / "class" / "lee", read_fixture(SUBMISSIONS / "correct/softmax_logsumexp.py"))  # lee: shard 4
    try:
        again = attnlab("grade", root / "class", "--shard", "4/4", "--only", "softmax", "--jobs", "1", "--course", REPO)
        assert again.returncode == 0, again.stderr
        assert "(shard 4/4); 1 to grade, 1 unchanged" in " ".join(again.stderr.split())
    finally:
        import shutil

        shutil.rmtree(root / "class" / "lee")


def results_folder(path: Path, class_folder: str, shard: str | None, students: dict[str, str]) -> Path:
    """A results folder as a shard leaves it: its class, its shard, a result per student (by grader)."""
    path.mkdir(parents=True)
    (path / "class-folder.txt").write_text(class_folder + "\n")
    if shard:
        (path / "shard.txt").write_text(shard + "\n")
    for student, grader in students.items():
        report = {"score": 1.0, "max_score": 1.0, "tests": []}
        (path / f"{student}.json").write_text(
            json.dumps({"student": student, "fingerprint": "f", "grader": grader, "report": report})
        )
    return path


def shard_of(k: int, n: int, candidates=tuple(f"s{i}" for i in range(100))) -> dict[str, str]:
    return {s: "g1" for s in candidates if in_shard(s, Shard(k, n))}


@pytest.mark.parametrize(
    "case",
    [
        "other class",
        "other grader",
        "other split",
        "missing",
        "twice",
        "whole class",
        "not results",
        "wrong shard",
        "output of another class",
    ],
)
def test_a_merge_of_the_wrong_folders_is_refused_in_one_line(tmp_path, case):
    folders = [results_folder(tmp_path / f"s{k}", "/c/class", f"{k}/2", shard_of(k, 2)) for k in (1, 2)]
    output = tmp_path / "merged"
    expected = {
        "other class": "different classes",
        "other grader": "different graders",
        "other split": "different splits",
        "missing": "shard 2/2 is missing",
        "twice": "given twice",
        "whole class": "not of a shard",
        "not results": "not a results folder",
        "wrong shard": "who is not in shard",
        "output of another class": "holds the results of the class in",
    }[case]
    if case == "other class":
        (folders[1] / "class-folder.txt").write_text("/c/stray\n")
    elif case == "other grader":
        student = next(iter(shard_of(2, 2)))
        data = json.loads((folders[1] / f"{student}.json").read_text())
        (folders[1] / f"{student}.json").write_text(json.dumps({**data, "grader": "g2"}))
    elif case == "other split":
        folders.append(results_folder(tmp_path / "s3", "/c/class", "3/3", shard_of(3, 3)))
    elif case == "missing":
        folders.pop()
    elif case == "twice":
        folders.append(folders[0])
    elif case == "whole class":
        folders.append(results_folder(tmp_path / "whole", "/c/class", None, {"s1": "g1"}))
    elif case == "not results":
        folders.append(tmp_path)
    elif case == "wrong shard":
        stray = next(iter(shard_of(2, 2)))
        (folders[0] / f"{stray}.json").write_text((folders[1] / f"{stray}.json").read_text())
    elif case == "output of another class":
        results_folder(output, "/c/stray", None, {})
    refused = attnlab("gradebook", "merge", *folders, "-o", output)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and expected in refused.stderr, refused.stderr
    assert not (output / "gradebook.sqlite").exists()


def test_the_merge_of_two_shards_holds_both(tmp_path):
    folders = [results_folder(tmp_path / f"s{k}", "/c/class", f"{k}/2", shard_of(k, 2)) for k in (1, 2)]
    merged = attnlab("gradebook", "merge", *folders, "-o", tmp_path / "merged")
    assert merged.returncode == 0, merged.stderr
    with sqlite3.connect(tmp_path / "merged" / "gradebook.sqlite") as db:
        assert {s for (s,) in db.execute("SELECT student FROM submissions")} == set(shard_of(1, 2)) | set(
            shard_of(2, 2)
        )


def test_shard_options_are_checked_before_any_grading(tmp_path):
    for spec in ("0/4", "a/b"):  # the others: test_a_shard_is_k_of_n_counted_from_one
        refused = attnlab("grade", REPO / "tests", "--shard", spec, "--course", REPO)
        assert refused.returncode == 2 and "--shard" in refused.stderr and refused.stderr.count("\n") == 1, (
            refused.stderr
        )
    refused = attnlab("grade", REPO / "tests", "--shard", "1/2", "--csv", tmp_path / "g.csv", "--course", REPO)
    assert refused.returncode == 2 and "merge the shards" in refused.stderr
