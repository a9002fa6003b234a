"""Canvas's and Moodle's downloads of a class, graded as they come: each student once, under the
roster's id, on the file they meant (the latest resubmission, a zip they uploaded), what fits
no layout named once, and no student's files graded as another's however the names are crafted."""

import csv
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import COURSE, REPO

from attnlab.intake.class_folder import survey
from attnlab.intake.class_list import read_roster
from attnlab.intake.lms_downloads import canvas_file
from attnlab.intake.roster import RosterError, stage

ATTNLAB = [sys.executable, "-m", "attnlab.cli"]
SOFTMAX = (COURSE.solutions_dir / "softmax.py").read_text()
BUGGY = SOFTMAX.replace("axis=-1", "axis=0")  # the softmax over the wrong axis
assert BUGGY != SOFTMAX
# Canvas's gradebook export: its ID is the user id in the download's names, the SIS User ID the school's.
CANVAS_ROSTER = (
    "Student,ID,SIS User ID,SIS Login ID,Section\n"
    "    Points Possible,,,,\n"
    '"Smith, John",101,s101,jsmith,A\n'
    '"Doe, Jane",102,s102,jdoe,A\n'
    '"Lee, Ann",103,s103,alee,A\n'
    '"Kim, Bo",104,s104,bkim,A\n'
    '"Mallory, Eve",105,s105,emallory,A\n'
)
# Moodle's grading worksheet: its Identifier is the participant id in the download's folder names.
MOODLE_ROSTER = (
    "Identifier,Full name,ID number,Email address,Status\n"
    "Participant 555,Ada Lovelace,u1,ada@uni.edu,Submitted\n"
    "Participant 556,Bob Builder,u2,bob@uni.edu,Submitted\n"
    "Participant 557,Cy Young,u3,cy@uni.edu,Submitted\n"
)


def put(path: Path, text: str = SOFTMAX) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def zipped(path: Path, members: dict[str, str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as bundle:
        for name, text in members.items():
            bundle.writestr(name, text)
    return path


def make_canvas(folder: Path, strays: int = 0) -> Path:
    """A Canvas "Download Submissions", unzipped: loose files named as Canvas's ContentZipper names them."""
    put(folder / "smithjohn_101_5001_softmax.py")
    put(folder / "smithjohn_101_5002_notes.txt", "how I did it")
    put(folder / "doejane_LATE_102_5010_softmax.py", BUGGY)  # marked late by Canvas
    put(folder / "leeann_103_5020_softmax.py", BUGGY)  # the first upload, with a bug
    put(folder / "leeann_103_5031_softmax-1.py")  # uploaded again: Canvas renamed it softmax-1.py
    zipped(folder / "kimbo_104_5040_work.zip", {"work/softmax.py": SOFTMAX})  # a zip of the work
    put(folder / "kimbo_104_5041_readme.txt", "run it")  # beside it
    put(folder / "kimbo_104_text.html", "<p>see my zip</p>")
    # Mallory names her file as John's would be named: it stays hers, behind her own user id.
    put(folder / "mallory_105_5050_smithjohn_101_9999_softmax.py", BUGGY)
    for n in range(strays):
        put(folder / f"stray-{n}.txt", "not a submission")
    return folder


def make_moodle(folder: Path) -> Path:
    """A Moodle "Download all submissions" (in folders), unzipped."""
    put(folder / "Ada Lovelace_555_assignsubmission_file_" / "softmax.py")
    put(folder / "Ada Lovelace_555_assignsubmission_onlinetext_" / "onlinetext.html", "<p>hi</p>")
    zipped(folder / "Bob Builder_556_assignsubmission_file_" / "mywork.zip", {"hw/softmax.py": SOFTMAX})
    # Cy's zip reaches for Ada's folder: refused, Ada's grade untouched.
    zipped(
        folder / "Cy Young_557_assignsubmission_file_" / "evil.zip",
        {"../Ada Lovelace_555_assignsubmission_file_/softmax.py": BUGGY},
    )
    put(folder / "readme.txt", "downloaded on Monday")
    return folder


# Fast: how a download is read.


def test_canvas_names_are_read_as_its_content_zipper_writes_them():
    plain = canvas_file("smithjohn_101_5001_softmax.py")
    assert (plain.name, plain.user, plain.file_id, plain.handed_in, plain.late) == (
        "smithjohn",
        "101",
        5001,
        "softmax.py",
        False,
    )
    late = canvas_file("doejane_LATE_102_5010_softmax.py")
    assert (late.user, late.late) == ("102", True) and canvas_file("doejane_late_102_5010_x.py").late
    assert canvas_file("leeann_103_5031_softmax-2.py").handed_in == "softmax.py"  # Canvas's rename of an upload again
    assert canvas_file("mary_ann_107_5060_a_1_2_b.py").user == "107"  # a name may hold "_", never "_<digits>_"
    anonymous = canvas_file("LATE_anon_x7k2p_5070_softmax.py")
    assert (anonymous.user, anonymous.late, anonymous.name) == ("anon_x7k2p", True, "")
    assert canvas_file("softmax.py") is None and canvas_file("notes_1.txt") is None


def test_a_canvas_download_is_one_entry_per_student_under_the_rosters_id(tmp_path):
    found = survey(make_canvas(tmp_path / "canvas"), COURSE, roster=read_roster(put(tmp_path / "r.csv", CANVAS_ROSTER)))
    entries = {e.student: e for e in found.entries}
    assert set(entries) == {"s101", "s102", "s103", "s104", "s105"}
    assert dict(entries["s101"].files) == {
        "softmax.py": "smithjohn_101_5001_softmax.py",
        "notes.txt": "smithjohn_101_5002_notes.txt",
    }
    assert dict(entries["s103"].files) == {"softmax.py": "leeann_103_5031_softmax-1.py"}
    assert entries["s104"].source.name == "kimbo_104_5040_work.zip" and not entries["s104"].files
    assert entries["s102"].notes == ("Canvas marked this submission late",)
    assert entries["s104"].notes == ("graded the zip you uploaded, 'work.zip'",)
    assert sorted(line.split(":")[0] for line in found.not_graded) == [
        "kimbo_104_5041_readme.txt",
        "kimbo_104_text.html",
        "leeann_103_5020_softmax.py",
    ]
    staged = stage(entries["s103"], COURSE, tmp_path / "staged")
    assert (staged / "softmax.py").read_text() == SOFTMAX  # the resubmission, not the buggy first upload


def test_without_a_roster_a_download_is_graded_under_the_lms_ids(tmp_path):
    assert {e.student for e in survey(make_canvas(tmp_path / "c"), COURSE).entries} == {
        "101",
        "102",
        "103",
        "104",
        "105",
    }
    assert {e.student for e in survey(make_moodle(tmp_path / "m"), COURSE).entries} == {"555", "556", "557"}


def test_a_moodle_download_is_one_entry_per_student_and_a_zip_alone_in_a_folder_is_the_upload(tmp_path):
    found = survey(make_moodle(tmp_path / "moodle"), COURSE, roster=read_roster(put(tmp_path / "r.csv", MOODLE_ROSTER)))
    entries = {e.student: e for e in found.entries}
    assert set(entries) == {"u1", "u2", "u3"}
    assert entries["u1"].source.name == "Ada Lovelace_555_assignsubmission_file_"
    assert entries["u2"].source.name == "mywork.zip" and entries["u2"].notes == (
        "graded the zip you uploaded, 'mywork.zip'",
    )
    assert (stage(entries["u2"], COURSE, tmp_path / "bob") / "softmax.py").read_text() == SOFTMAX
    with pytest.raises(RosterError, match="a path that leaves the zip"):
        stage(entries["u3"], COURSE, tmp_path / "cy")
    assert sorted(line.split(":")[0] for line in found.not_graded) == [
        "Ada Lovelace_555_assignsubmission_onlinetext_",
        "readme.txt",
    ]


def test_moodle_loose_files_are_one_entry_per_participant(tmp_path):
    put(tmp_path / "Ada Lovelace_555_assignsubmission_file_softmax.py")
    put(tmp_path / "Ada Lovelace_555_assignsubmission_file_notes.txt", "notes")
    [entry] = survey(tmp_path, COURSE).entries
    assert (
        entry.student == "555"
        and dict(entry.files)["softmax.py"] == "Ada Lovelace_555_assignsubmission_file_softmax.py"
    )


def test_names_crafted_to_make_two_students_one_are_refused_not_merged(tmp_path):
    # Two names behind one user id (or one participant id): which files are whose cannot be told.
    put(tmp_path / "canvas" / "smithjane_106_5080_softmax.py", BUGGY)
    put(tmp_path / "canvas" / "smithjohn_106_5081_softmax.py")
    put(tmp_path / "canvas" / "doejane_102_5010_softmax.py")
    found = survey(tmp_path / "canvas", COURSE)
    assert [e.student for e in found.entries] == ["102"]
    assert sum("carry two names" in line for line in found.not_graded) == 2
    put(tmp_path / "moodle" / "Ada Lovelace_555_assignsubmission_file_" / "softmax.py")
    put(tmp_path / "moodle" / "Eve Impostor_555_assignsubmission_file_" / "softmax.py", BUGGY)
    put(tmp_path / "moodle" / "Bob Builder_556_assignsubmission_file_" / "softmax.py")
    found = survey(tmp_path / "moodle", COURSE)
    assert [e.student for e in found.entries] == ["556"]
    assert sum("more than one submission here" in line for line in found.not_graded) == 2
    # Anonymous ids that differ in case alone would share a results file: both refused, neither kept.
    put(tmp_path / "anon" / "anon_AbC12_5090_softmax.py", BUGGY)
    put(tmp_path / "anon" / "anon_abc12_5091_softmax.py")
    found = survey(tmp_path / "anon", COURSE)
    assert found.entries == [] and sum("would both be student" in line for line in found.not_graded) == 2


def test_a_mixed_folder_is_read_as_folders_and_layout_names_the_one_meant(tmp_path):
    put(tmp_path / "ada" / "softmax.py")
    put(tmp_path / "smithjohn_101_5001_softmax.py")
    found = survey(tmp_path, COURSE)
    assert [e.student for e in found.entries] == ["ada"]
    assert found.not_graded == [
        "smithjohn_101_5001_softmax.py: not graded: a file of a Canvas download beside students' folders: --layout canvas grades those files"
    ]
    assert [e.student for e in survey(tmp_path, COURSE, layout="canvas").entries] == ["101"]


def grade_alone(path: Path):
    from attnlab.cli import main

    return CliRunner().invoke(main, ["grade", str(path), "--course", str(REPO)])


def test_a_canvas_file_or_download_zip_graded_alone_says_what_to_grade(tmp_path):
    one = put(tmp_path / "smithjohn_101_5001_softmax.py")
    result = grade_alone(one)
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "is one file of a Canvas download: grade the folder that holds the download" in result.output
    download = zipped(
        tmp_path / "submissions.zip",
        {"smithjohn_101_5001_softmax.py": SOFTMAX, "doejane_102_5010_softmax.py": SOFTMAX},
    )
    result = grade_alone(download)
    assert result.exit_code != 0 and "is a Canvas download of a whole class: unzip it" in result.output
    moodle = zipped(tmp_path / "moodle.zip", {"Ada Lovelace_555_assignsubmission_file_/softmax.py": SOFTMAX})
    assert "is a Moodle download of a whole class: unzip it" in grade_alone(moodle).output


def test_a_download_without_exercise_files_or_given_one_submissions_options_says_it_is_a_download(tmp_path):
    from attnlab.cli import main

    put(tmp_path / "canvas" / "smithjohn_101_5001_report.pdf", "%PDF")
    result = CliRunner().invoke(main, ["grade", str(tmp_path / "canvas"), "--course", str(REPO)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "a Canvas download of 1 student, none of whose files is one of softmax.py" in " ".join(result.output.split())
    put(tmp_path / "canvas" / "smithjohn_101_5002_softmax.py")
    result = CliRunner().invoke(
        main, ["grade", str(tmp_path / "canvas"), "--json", str(tmp_path / "r.json"), "--course", str(REPO)]
    )
    assert result.exit_code != 0 and "Canvas's download: each student's files are graded together" in " ".join(
        result.output.split()
    )


# Slow: graded through the command line, as an instructor does.


def attnlab(*args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*ATTNLAB, *map(str, args), "--course", REPO],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "200"},
    )


def graded(root: Path, download: Path, roster: str, *args) -> dict:
    put(root / "roster.csv", roster)
    run = attnlab("grade", download, "--only", "softmax", "--jobs", "2", "--roster", root / "roster.csv", *args)
    assert run.returncode == 0 and "Traceback" not in run.stdout + run.stderr, run.stderr[-3000:]
    results = {p.stem: json.loads(p.read_text()) for p in download.with_name(download.name + ".results").glob("*.json")}
    return {"run": run, "results": results}


def full_marks(data: dict) -> bool:
    return data["report"] is not None and data["report"]["score"] == data["report"]["max_score"] > 0


@pytest.fixture(scope="module")
def canvas(tmp_path_factory):
    root = tmp_path_factory.mktemp("canvas")
    return graded(
        root,
        make_canvas(root / "download", strays=12),
        CANVAS_ROSTER,
        "--csv",
        root / "sheet.csv",
        "--format",
        "canvas",
    ) | {"root": root}


@pytest.mark.slow
def test_each_canvas_student_is_graded_once_under_the_rosters_id_on_the_file_meant(canvas):
    results = canvas["results"]
    assert set(results) == {"s101", "s102", "s103", "s104", "s105"}
    assert full_marks(results["s101"]) and full_marks(results["s104"])  # John's file; Kim's zip
    assert full_marks(results["s103"])  # the resubmission, not the buggy first upload
    assert any("leeann_103_5031_softmax-1.py" in note for note in results["s103"]["report"]["notes"])
    assert not full_marks(results["s102"]) and "late" in " ".join(results["s102"]["report"]["notes"])
    # Mallory's file named as John's stays hers: no exercise file of hers, John's grade his own.
    assert results["s105"]["report"] is None and "no exercise file found" in results["s105"]["error"]
    sheet = {row[2]: row for row in csv.reader(io.StringIO((canvas["root"] / "sheet.csv").read_text()))}
    assert sheet["s101"][4] == sheet["s103"][4] == f"{results['s101']['report']['max_score']:g}"


@pytest.mark.slow
def test_stray_files_fold_into_one_line_and_never_hide_a_students_problem(canvas):
    out = canvas["run"].stdout
    tail = out[out.index("Found and not graded (") :]
    assert "not gradable: s105:" in tail  # the student's problem is shown, first
    assert tail.index("not gradable: s105:") < tail.index("files and folders of the class folder are no student's")
    assert "stray-11.txt" not in tail and len(tail.splitlines()) < 12
    listed = (canvas["root"] / "download.results" / "not-graded.txt").read_text()
    assert "stray-11.txt" in listed and "leeann_103_5020_softmax.py: not graded: an earlier upload" in listed


@pytest.mark.slow
def test_each_moodle_student_is_graded_once_and_a_zip_reaching_out_takes_nobodys_grade(tmp_path):
    moodle = graded(tmp_path, make_moodle(tmp_path / "download"), MOODLE_ROSTER)
    results = moodle["results"]
    assert set(results) == {"u1", "u2", "u3"}
    assert full_marks(results["u1"]) and full_marks(results["u2"])  # Ada's folder; Bob's zip inside his folder
    assert results["u3"]["report"] is None and "a path that leaves the zip" in results["u3"]["error"]


@pytest.mark.slow
def test_feedback_finds_a_downloads_students_under_the_rosters_ids(canvas):
    run = attnlab("feedback", canvas["root"] / "download")
    assert run.returncode == 0, run.stderr[-2000:]
    assert "no result saved yet" not in run.stderr and "changed since graded" not in run.stderr
    assert (canvas["root"] / "download.feedback" / "s103" / "feedback.md").is_file()


def test_a_link_named_as_a_students_file_or_folder_is_refused_not_followed(tmp_path):
    # Mallory's "file" is a link to John's, and her Moodle "folder" a link to Ada's: hers are refused.
    canvas = tmp_path / "canvas"
    put(canvas / "smithjohn_101_5001_softmax.py")
    (canvas / "mallory_105_5050_softmax.py").symlink_to("smithjohn_101_5001_softmax.py")
    entries = {e.student: e for e in survey(canvas, COURSE).entries}
    with pytest.raises(RosterError, match="is a symbolic link"):
        stage(entries["105"], COURSE, tmp_path / "mallory")
    assert (stage(entries["101"], COURSE, tmp_path / "john") / "softmax.py").read_text() == SOFTMAX
    moodle = tmp_path / "moodle"
    put(moodle / "Ada Lovelace_555_assignsubmission_file_" / "softmax.py")
    (moodle / "Eve Mallory_558_assignsubmission_file_").symlink_to("Ada Lovelace_555_assignsubmission_file_")
    entries = {e.student: e for e in survey(moodle, COURSE).entries}
    with pytest.raises(RosterError, match="is a symbolic link"):
        stage(entries["558"], COURSE, tmp_path / "eve")
