"""Intake that never loses a student's work in silence: a class folder in the forms instructors
really receive (misnamed files, a resubmission, two drafts, clashing names, a Gradescope export
inside, an empty zip, a loose file), graded through the command line as an instructor does; each
form graded as meant, or refused in a line of its own that says why, and the class summary ends
with what was found and not graded."""

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import COURSE, REPO, chains_of_folders

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

ATTNLAB = [sys.executable, "-m", "attnlab.cli"]
SOFTMAX = (COURSE.solutions_dir / "softmax.py").read_text()
BUGGY = SOFTMAX.replace("axis=-1", "axis=0")  # the softmax over the wrong axis
assert BUGGY != SOFTMAX
ONLY = ["--only", "softmax"]
OLD, NEW = 1_700_000_000, 1_750_000_000  # two saving times, months apart
# A Canvas class list, with the students' emails; Fay's SID on Gradescope (77) is not on it, her email is.
ROSTER = "Student,ID,SIS User ID,SIS Login ID,Section,Email\n" + "".join(
    f'"{name}",{9000 + n},{sid},{sid},A,{sid}@uni.edu\n'
    for n, (name, sid) in enumerate(
        [
            ("Ada", "ada"),
            ("Res", "s2311"),
            ("Cy", "cy"),
            ("Dan", "dan"),
            ("Di", "di"),
            ("Dee", "dee"),
            ("Fox", "fox"),
            ("Eve", "eve"),
            ("Em", "empty"),
            ("Fay", "s2400"),
        ]
    )
).replace("s2400@uni.edu", "fay@uni.edu")


def put(path: Path, text: str = SOFTMAX, when: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if when is not None:
        os.utime(path, (when, when))
    return path


def make_class(folder: Path) -> Path:
    put(folder / "ada" / "softmax.py")
    put(folder / "s2311" / "softmax.py", BUGGY, OLD)  # the first upload, with a bug
    put(folder / "s2311 (1)" / "softmax.py", SOFTMAX, NEW)  # the resubmission, mended
    put(folder / "alice." / "softmax.py")
    put(folder / "alice" / "softmax.py")
    put(folder / "bea" / "softmax.py")
    with zipfile.ZipFile(folder / "Bea.zip", "w") as bundle:  # one results file with bea's on a disk that ignores case
        bundle.writestr("softmax.py", SOFTMAX)
    put(folder / "cy" / "Softmax.py")
    put(folder / "dan" / "softmax (1).py")
    put(folder / "di" / "softmax.py.txt")
    put(folder / "dee" / "Softmax.py")
    put(folder / "dee" / "softmax copy.py", BUGGY)
    put(folder / "fox" / "softmax.py")
    put(folder / "fox" / "softmax (1).py", BUGGY)
    put(folder / "eve" / "v1" / "softmax.py", BUGGY, OLD)
    put(folder / "eve" / "v2" / "softmax.py", SOFTMAX, NEW)
    put(folder / "gradescope_export" / "submission_41" / "softmax.py")
    put(
        folder / "gradescope_export" / "submission_metadata.yml",
        "submission_41:\n  :submitters:\n  - :name: Fay\n    :sid: '77'\n    :email: fay@uni.edu\n",
    )
    zipfile.ZipFile(folder / "empty.zip", "w").close()
    put(folder / "notes.txt", "grading notes")
    return folder


def attnlab(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*ATTNLAB, *map(str, args), "--course", REPO],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200"},
    )


@pytest.fixture(scope="module")
def intake(tmp_path_factory):
    root = tmp_path_factory.mktemp("intake")
    classroom = make_class(root / "class")
    (root / "roster.csv").write_text(ROSTER)
    (root / "work").mkdir()
    first = attnlab(
        "grade",
        classroom,
        *ONLY,
        "--jobs",
        "2",
        "--roster",
        root / "roster.csv",
        "--format",
        "csv",
        "--csv",
        root / "sheet.csv",
        "--excel",
        cwd=root / "work",
    )
    results = {p.stem: json.loads(p.read_text()) for p in (root / "class.results").glob("*.json")}
    return {"root": root, "class": classroom, "first": first, "results": results}


def report(intake, student: str) -> dict:
    return intake["results"][student]["report"]


def full_marks(report: dict) -> bool:
    return report["score"] == report["max_score"] > 0


def test_the_class_is_graded_whatever_it_holds(intake):
    first = intake["first"]
    assert first.returncode == 0, first.stderr[-3000:]
    assert "Traceback" not in first.stdout + first.stderr
    assert set(intake["results"]) == {"ada", "s2311", "cy", "dan", "di", "dee", "fox", "eve", "77", "empty"}


def test_misnamed_files_are_graded_as_the_file_meant_and_said_to_be(intake):
    for student, handed_in in (("cy", "Softmax.py"), ("dan", "softmax (1).py"), ("di", "softmax.py.txt")):
        graded = report(intake, student)
        assert full_marks(graded), student
        assert graded["notes"] == [f"{handed_in} was graded as softmax.py"]


def test_two_files_that_could_each_be_the_exercise_file_are_named_and_neither_graded(intake):
    data = intake["results"]["dee"]
    assert (
        data["report"] is None
        and "Softmax.py and softmax copy.py: not graded, as either may be softmax.py" in data["error"]
    )
    fox = report(intake, "fox")
    assert full_marks(fox) and fox["not_graded"] == ["softmax (1).py: not graded, as softmax.py was"]


def test_a_resubmission_is_its_students_newest_upload_and_both_are_listed(intake):
    # It was another student, "s2311__1", and the LMS sheet got the older, buggy attempt.
    graded = report(intake, "s2311")
    assert full_marks(graded) and intake["results"]["s2311"]["source"].endswith("s2311 (1)")
    [note] = graded["notes"]
    assert note.startswith("graded your upload 's2311 (1)'") and "not graded: 's2311' (saved" in note
    assert "s2311: not graded: an earlier upload of s2311 than 's2311 (1)'" in intake["first"].stdout


def test_two_drafts_are_refused_not_chosen_silently(intake):
    data = intake["results"]["eve"]
    assert data["report"] is None
    # The stored refusal is what the student reads (their feedback): what to do, not the instructor's option.
    assert "v1/ and v2/ each hold exercise files (drafts?): hand in one of them" in data["error"]
    assert "--pick" not in data["error"] and "instructor" not in data["error"]
    # The instructor reads it in the class's not-graded list, with the option they have.
    listed = (intake["root"] / "class.results" / "not-graded.txt").read_text()
    assert "eve: " in listed and "grade the newest of them with --pick newest" in listed, listed


def test_entries_that_would_share_a_results_file_are_each_refused_and_the_class_graded(intake):
    # "alice." beside "alice" stopped the whole class (exit 2); "Bea.zip" beside "bea" would write
    # one results file over the other on a disk that ignores case.
    out = intake["first"].stdout
    for entry, student in (("alice.", "alice"), ("alice", "alice"), ("Bea.zip", "Bea"), ("bea", "bea")):
        assert f"\n  {entry}: not graded: " in out and f"would both be student {student!r} (one results file)" in out, (
            entry
        )
    assert not [p for p in (intake["root"] / "class.results").glob("*.json") if p.stem.casefold() in ("alice", "bea")]


def test_a_gradescope_export_in_the_class_folder_is_its_submissions(intake):
    # It was one student, "gradescope_export", at full marks.
    assert "gradescope_export" not in intake["results"]
    assert full_marks(report(intake, "77")) and intake["results"]["77"]["also"] == ["fay@uni.edu"]


def sheet(intake) -> dict[str, list[str]]:
    return {
        row[0]: row for row in csv.reader(io.StringIO((intake["root"] / "sheet.csv").read_text(encoding="utf-8-sig")))
    }


def test_the_lms_sheet_opens_in_excel(intake):
    assert (
        (intake["root"] / "sheet.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    )  # --excel: Excel reads UTF-8 after its BOM


def test_a_gradescope_sid_not_on_the_roster_is_matched_by_its_email(intake):
    maximum = report(intake, "77")["max_score"]
    assert sheet(intake)["s2400"][4:] == [f"{maximum:g}", f"{maximum:g}"]  # SID 77 is not on the roster; fay@uni.edu is
    assert "77" not in sheet(intake) and "not on the roster" not in intake["first"].stderr


def test_an_empty_zip_is_0_of_the_class_points_not_0_of_0(intake):
    maximum = report(intake, "ada")["max_score"]
    assert sheet(intake)["empty"][4:] == ["0", f"{maximum:g}"]
    assert sheet(intake)["s2311"][4] == f"{maximum:g}"  # the resubmission's score, not the first upload's


def test_the_summary_ends_with_what_was_found_and_not_graded_one_line_each(intake):
    out = intake["first"].stdout
    tail = out[out.index("Found and not graded (") :]
    lines = (intake["root"] / "class.results" / "not-graded.txt").read_text().splitlines()  # every line, as shown
    assert " ".join(tail.split()) == " ".join(["Found and not graded (10):", *lines])  # last in the summary
    expected = [
        "notes.txt: not graded: a file",
        "alice.: not graded",
        "alice: not graded",
        "Bea.zip: not graded",
        "bea: not graded",
        "s2311: not graded: an earlier upload",
        "not gradable: dee:",
        "not gradable: empty:",
        "not gradable: eve:",
        "fox: softmax (1).py: not graded, as softmax.py was",
    ]
    for start in expected:
        assert sum(line.startswith(start) for line in lines) == 1, (start, lines)
    assert len(lines) == len(expected), lines


def test_grading_leaves_nothing_in_the_folder_it_is_run_from(intake, tmp_path):
    # Hypothesis's constants (literals of the solutions and the hidden tests) were left in .hypothesis/.
    assert list((intake["root"] / "work").iterdir()) == []
    put(tmp_path / "ada" / "softmax.py")
    (tmp_path / "work").mkdir()
    assert attnlab("grade", tmp_path / "ada", *ONLY, cwd=tmp_path / "work").returncode == 0
    assert list((tmp_path / "work").iterdir()) == []


def test_pick_newest_grades_the_newest_draft_and_the_regrade_says_why_and_whose_score_changed(intake, tmp_path):
    classroom = tmp_path / "class"
    shutil.copytree(intake["class"], classroom)
    shutil.copytree(intake["root"] / "class.results", tmp_path / "class.results")
    (tmp_path / "class.results" / "class-folder.txt").write_text(f"{classroom.resolve()}\n")
    again = attnlab("grade", classroom, *ONLY, "--pick", "newest")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "because the files graded changed (--only, --track, --pick)" in " ".join(again.stderr.split())
    eve = json.loads((tmp_path / "class.results" / "eve.json").read_text())["report"]
    assert full_marks(eve) and eve["not_graded"] == ["v1/: not graded, an older draft than v2/"]
    changed = again.stdout[again.stdout.index("Scores changed since they were last graded (1):") :]
    assert changed.splitlines()[1].strip() == f"eve: not gradable → {eve['max_score']:g}"


@pytest.mark.parametrize("shards", [1, 2])
def test_clashes_are_refused_alike_in_every_shard(tmp_path, shards):
    # "Bea" and "bea" hash to different shards of 2: each shard would have graded one, and the
    # merge would have put Bea.json beside bea.json.
    classroom = tmp_path / "class"
    for name in ("Bea", "bea", "kim", "alice.", "alice"):
        put(classroom / name / "softmax.py")
    runs = [
        attnlab(
            "grade",
            classroom,
            *ONLY,
            "--results",
            tmp_path / f"shard{k}",
            *(["--shard", f"{k}/{shards}"] if shards > 1 else []),
        )
        for k in range(1, shards + 1)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
        for name in ("Bea", "bea", "alice.", "alice"):
            assert f"\n  {name}: not graded: " in run.stdout, (name, run.stdout)
    graded = sorted(p.stem for k in range(1, shards + 1) for p in (tmp_path / f"shard{k}").glob("*.json"))
    assert graded == ["kim"]


def zipped(path: Path, members: dict[str, tuple[str, tuple]]) -> Path:
    with zipfile.ZipFile(path, "w") as bundle:
        for name, (text, when) in members.items():
            bundle.writestr(zipfile.ZipInfo(name, when), text)
    return path


def test_one_submission_with_drafts_is_refused_in_one_line_or_its_newest_graded(tmp_path):
    upload = zipped(
        tmp_path / "eve.zip",
        {"v1/softmax.py": (BUGGY, (2024, 1, 1, 0, 0, 0)), "v2/softmax.py": (SOFTMAX, (2024, 3, 1, 0, 0, 0))},
    )
    refused = attnlab("grade", upload, *ONLY)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "eve.zip: v1/ and v2/ each hold exercise files (drafts?)" in refused.stderr
    assert "grade the newest of them with --pick newest, or ask the student to hand in one" in refused.stderr
    picked = attnlab("grade", upload, *ONLY, "--pick", "newest")
    assert picked.returncode == 0, picked.stderr
    out = " ".join(picked.stdout.split())
    assert (
        "100%" in out
        and "graded v2/, the newest of the drafts v1/ and v2/ (the one saved last)" in out
        and "v1/: not graded, an older draft than v2/" in out
    )
    assert "--pick" not in out  # the student reads these notes: an instructor's option means nothing to them


def test_one_misnamed_submission_is_graded_and_told(tmp_path):
    put(tmp_path / "ada" / "Softmax.py")
    graded = attnlab("grade", tmp_path / "ada", *ONLY)
    assert graded.returncode == 0, graded.stderr
    out = " ".join(graded.stdout.split())
    assert "100%" in out and "About what you handed in: · Softmax.py was graded as softmax.py" in out


def test_a_class_holding_a_folder_a_thousand_deep_is_graded_and_its_entries_told(tmp_path):
    """A folder 1,200 deep in one entry stopped the class with a RecursionError's traceback,
    nobody graded, on every rerun. Each student is now graded as alone: bob's newest upload
    holds it beside the work, and dee's file lies past any depth looked into, which is said."""
    classroom = tmp_path / "class"
    put(classroom / "ada" / "softmax.py")
    put(classroom / "bob" / "softmax.py", BUGGY, OLD)
    put(classroom / "bob (1)" / "softmax.py", SOFTMAX, NEW)
    (classroom / "dee").mkdir()
    with chains_of_folders({classroom / "bob (1)": None, classroom / "dee": "softmax.py"}):
        runs = [attnlab("grade", classroom, *ONLY, "--jobs", "1") for _ in range(2)]
    for run in runs:
        assert run.returncode == 0 and "Traceback" not in run.stdout + run.stderr, run.stderr[-3000:]
    assert "3 graded now" in runs[0].stdout and "0 graded now, 3 unchanged" in runs[1].stdout
    results = {p.stem: json.loads(p.read_text()) for p in (tmp_path / "class.results").glob("*.json")}
    assert full_marks(results["ada"]["report"]) and full_marks(results["bob"]["report"])
    assert results["dee"]["report"] is None
    assert results["dee"]["error"].startswith("dee: no exercise file found (looked for softmax.py, ")
    assert results["dee"]["error"].endswith("(folders more than 32 deep: not looked into)")
    assert "\n  not gradable: dee: dee: no exercise file found" in runs[0].stdout


def test_a_gradescope_export_whose_folders_and_metadata_disagree_is_graded_or_told(tmp_path):
    """A submission its metadata names with no folder was passed over, and a folder it does not
    name never looked at, in silence ("3 of 3 graded"): now each is graded or named, in a line
    of its own that says why."""
    export = tmp_path / "export"
    for key, text in (("submission_101", SOFTMAX), ("submission_102", BUGGY), ("submission_104", SOFTMAX)):
        put(export / key / "softmax.py", text)
    put(export / "grading notes.txt", "to do")
    put(
        export / "submission_metadata.yml",
        "submission_101:\n  :submitters:\n  - :sid: '1'\n"
        "submission_102:\n  :submitters:\n  - :sid: '2'\n  - :sid: '22'\n"
        "submission_103:\n  :submitters:\n  - :sid: '3'\n",
    )
    run = attnlab("grade", export, *ONLY, "--jobs", "1", "--csv", tmp_path / "grades.csv")
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Found and not graded (2):" in run.stdout
    assert (
        "\n  submission_103: not graded: submission_metadata.yml names this submission, of student 3, but the export holds no folder submission_103\n"
        in run.stdout
    )
    assert (
        "\n  grading notes.txt: not graded: a file, not a submission's folder of the Gradescope export\n" in run.stdout
    )
    with open(tmp_path / "grades.csv", newline="") as sheet:
        totals = {row["student"]: float(row["total"]) for row in csv.DictReader(sheet)}
    assert totals.keys() == {"1", "2", "22", "submission_104"}
    assert totals["1"] == totals["submission_104"] > totals["2"] == totals["22"]
    unnamed = json.loads((tmp_path / "export.results" / "submission_104.json").read_text())["report"]
    assert unnamed["notes"] == [
        "submission_metadata.yml does not name this submission's submitters: graded under its folder's name"
    ]
