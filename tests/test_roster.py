"""Finding a class's submissions in the layouts instructors have: folders and zips, nbgrader's
submitted/<student>/<assignment>/, a Gradescope export; naming students as they are named; and
reading back what a class run stored for them."""

import json
import os
import unicodedata
import zipfile
from pathlib import Path

import pytest
from conftest import COURSE, chains_of_folders

from attnlab.classroom.gradebook import ResultStore
from attnlab.classroom.grading import plan_class
from attnlab.intake.class_folder import find_entries
from attnlab.intake.roster import MAX_ID_BYTES, RosterError, safe_id, stage
from attnlab.sandbox.host import Limits

SOFTMAX = (COURSE.solutions_dir / "softmax.py").read_text()


def hand_in(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "softmax.py").write_text(SOFTMAX)
    return folder


def students(entries) -> dict[str, str]:
    return {e.student: e.source.name for e in entries}


def test_a_folder_or_zip_per_student_names_them_by_it(tmp_path):
    hand_in(tmp_path / "ada")
    with zipfile.ZipFile(tmp_path / "bob.zip", "w") as bundle:
        bundle.writestr("bob/softmax.py", SOFTMAX)
    hand_in(tmp_path / ".ipynb_checkpoints")
    (tmp_path / "notes.txt").write_text("not a student")
    assert students(find_entries(tmp_path, COURSE)) == {"ada": "ada", "bob": "bob.zip"}


def test_names_in_any_script_stay_distinct_students(tmp_path):
    # Each of these once became "student" or lost its accents: two of them stopped the whole class.
    names = ["李雷", "王芳", "José García", "Zoë", "Łukasz"]
    for name in names:
        hand_in(tmp_path / name)
    assert sorted(students(find_entries(tmp_path, COURSE))) == sorted(["李雷", "王芳", "José_García", "Zoë", "Łukasz"])


def test_an_id_is_a_file_name_and_its_own_id():
    for name in [
        "李雷",
        "José García",
        "../../etc/passwd",
        "a/b\\c",
        "tab\there",
        "雷" * 200,
        "x" * 400,
        "!!!",
        "???",
        ".hidden",
        "e\udcff",
    ]:
        student = safe_id(name)
        assert student == safe_id(student)
        assert student and "/" not in student and "\\" not in student and not student.startswith(".")
        assert len(student.encode()) <= MAX_ID_BYTES
    assert safe_id("!!!") != safe_id("???")  # no letter to keep: still two students
    # macOS hands out names decomposed (e + combining accent): the same student as typed.
    assert safe_id(unicodedata.normalize("NFD", "José")) == safe_id("José") == "José"


def test_two_submissions_of_one_student_are_each_refused_in_one_line_and_the_rest_found(tmp_path):
    # Once the whole class stopped (exit 2, nobody graded) for one such pair.
    from attnlab.intake.class_folder import survey

    hand_in(tmp_path / "ada")
    hand_in(tmp_path / "bob")
    with zipfile.ZipFile(tmp_path / "ada.zip", "w") as bundle:
        bundle.writestr("softmax.py", SOFTMAX)
    found = survey(tmp_path, COURSE)
    assert students(found.entries) == {"bob": "bob"}
    assert [line.split(":")[0] for line in found.not_graded] == ["ada", "ada.zip"]
    assert all("would both be student 'ada'" in line and "\n" not in line for line in found.not_graded)


def test_nbgrader_layout_takes_each_students_newest_assignment_or_the_one_named(tmp_path):
    submitted = tmp_path / "submitted"
    old, new = hand_in(submitted / "ada" / "week1"), hand_in(submitted / "ada" / "week2")
    os.utime(old, (1_000_000, 1_000_000))
    os.utime(new, (2_000_000, 2_000_000))
    hand_in(submitted / "bob" / "week1")
    assert {e.student: e.source for e in find_entries(tmp_path, COURSE)} == {
        "ada": new,
        "bob": submitted / "bob" / "week1",
    }
    assert {e.student: e.source for e in find_entries(submitted, COURSE)} == {
        "ada": new,
        "bob": submitted / "bob" / "week1",
    }
    assert {e.student: e.source for e in find_entries(tmp_path, COURSE, assignment="week1")} == {
        "ada": old,
        "bob": submitted / "bob" / "week1",
    }
    assert {e.student for e in find_entries(tmp_path, COURSE, assignment="week2")} == {"ada"}


def test_a_gradescope_export_names_each_submission_by_its_first_submitters_id(tmp_path):
    for key in ("submission_101", "submission_102", "submission_103"):
        hand_in(tmp_path / key)
    (tmp_path / "submission_metadata.yml").write_text(
        "submission_101:\n  :submitters:\n  - :name: Ada Lovelace\n    :sid: '4711'\n    :email: ada@example.org\n"
        "submission_102:\n  :submitters:\n  - :name: Bob\n    :email: bob@example.org\n"
        "submission_103: {}\n"
        "submission_999:\n  :submitters:\n  - :sid: '1'\n"  # listed, but not in the export: skipped
    )
    assert students(find_entries(tmp_path, COURSE)) == {
        "4711": "submission_101",
        "bob@example.org": "submission_102",
        "submission_103": "submission_103",
    }


def test_a_gradescope_export_whose_folders_and_metadata_disagree_says_so_for_each(tmp_path):
    """Each folder and each submission the metadata names ends graded or in a line of its own
    (they were passed over in silence: "3 of 3 graded")."""
    from attnlab.intake.class_folder import survey

    for key in ("submission_101", "submission_104"):
        hand_in(tmp_path / "export" / key)
    (tmp_path / "export" / "notes.txt").write_text("mine")
    (tmp_path / "export" / "submission_metadata.yml").write_text(
        "submission_101:\n  :submitters:\n  - :sid: '1'\n"
        "submission_103:\n  :submitters:\n  - :sid: '3'\n  - :email: cy@example.org\n"
        "../elsewhere:\n  :submitters:\n  - :sid: '9'\n"
    )
    found = survey(tmp_path / "export", COURSE)
    assert students(found.entries) == {"1": "submission_101", "submission_104": "submission_104"}
    unnamed = next(e for e in found.entries if e.student == "submission_104")
    assert unnamed.notes == (
        "submission_metadata.yml does not name this submission's submitters: graded under its folder's name",
    )
    assert found.not_graded == [
        "../elsewhere: not graded: submission_metadata.yml names it, but it is no folder's name",
        "submission_103: not graded: submission_metadata.yml names this submission, of students 3, cy@example.org, but the export holds no folder submission_103",
        "notes.txt: not graded: a file, not a submission's folder of the Gradescope export",
    ]
    # Dropped into a class folder, the lines say where.
    hand_in(tmp_path / "class" / "ada")
    (tmp_path / "export").rename(tmp_path / "class" / "export")
    assert [line.split(": ")[0] for line in survey(tmp_path / "class", COURSE).not_graded] == [
        "export/../elsewhere",
        "export/submission_103",
        "export/notes.txt",
    ]


def test_a_gradescope_group_submission_is_every_members(tmp_path):
    hand_in(tmp_path / "submission_7")
    (tmp_path / "submission_metadata.yml").write_text(
        "submission_7:\n  :submitters:\n  - :sid: '11'\n  - :email: cy@example.org\n  - :name: no id at all\n  - :sid: '11'\n"
    )
    entries = find_entries(tmp_path, COURSE)
    assert students(entries) == {"11": "submission_7", "cy@example.org": "submission_7"}


@pytest.mark.parametrize(
    "text, message",
    [("submission_1: [unclosed\n", "not valid YAML"), ("- a\n- b\n", "not a Gradescope export's metadata")],
)
def test_a_broken_gradescope_metadata_file_is_one_line(tmp_path, text, message):
    hand_in(tmp_path / "submission_1")
    (tmp_path / "submission_metadata.yml").write_text(text)
    with pytest.raises(RosterError, match=f"submission_metadata.yml: {message}"):
        find_entries(tmp_path, COURSE)


def test_odd_gradescope_metadata_values_fall_back_to_the_folder_name(tmp_path):
    for key in ("submission_1", "submission_2", "submission_3"):
        hand_in(tmp_path / key)
    hand_in(tmp_path / "submission_4")
    (tmp_path / "submission_metadata.yml").write_text(
        "submission_1: [1, 2]\nsubmission_2:\n  :submitters: [5, null]\nsubmission_3:\n  :submitters:\n  - :sid: ''\nsubmission_4:\n  :submitters: 7\n"
    )
    assert sorted(students(find_entries(tmp_path, COURSE))) == [
        "submission_1",
        "submission_2",
        "submission_3",
        "submission_4",
    ]


@pytest.mark.parametrize(
    "member, reason",
    [
        ("../../escaped.py", "eve.zip: ../../escaped.py: a path that leaves the zip"),
        ("/abs.py", "eve.zip: /abs.py: a path that leaves the zip"),
        ("scores.py", "eve.zip: scores.py is a symbolic link"),
    ],
)
def test_a_zip_with_an_escape_or_a_link_is_refused_and_nothing_unpacked(tmp_path, member, reason):
    with zipfile.ZipFile(tmp_path / "eve.zip", "w") as bundle:
        bundle.writestr("eve/softmax.py", SOFTMAX)
        info = zipfile.ZipInfo(member)
        if member == "scores.py":
            info.external_attr = 0o120777 << 16
        bundle.writestr(info, "/etc/shadow")
    [entry] = find_entries(tmp_path, COURSE)
    with pytest.raises(RosterError, match=f"^{reason}"):
        stage(entry, COURSE, tmp_path / "staging")
    assert not (tmp_path.parent / "escaped.py").exists() and not (tmp_path / "staging").exists()


def test_a_zip_stages_only_the_exercise_files_of_its_shallowest_folder(tmp_path):
    with zipfile.ZipFile(tmp_path / "ada.zip", "w") as bundle:
        bundle.writestr("ada/softmax.py", SOFTMAX)
        bundle.writestr("ada/old/masks.py", "old")
        bundle.writestr("ada/notes.txt", "notes")
        bundle.writestr("__MACOSX/._softmax.py", "resource fork")
        bundle.writestr(".git/masks.py", "a hidden copy")
    [entry] = find_entries(tmp_path, COURSE)
    staged = stage(entry, COURSE, tmp_path / "staging")
    assert sorted(p.name for p in staged.iterdir()) == ["softmax.py"]
    assert (staged / "softmax.py").read_text() == SOFTMAX


def test_a_student_is_regraded_by_the_name_on_the_folder_or_by_the_id_shown(tmp_path):
    hand_in(tmp_path / "class" / "José García")
    hand_in(tmp_path / "class" / "ada")
    for given in ("José García", "José_García", unicodedata.normalize("NFD", "José García")):
        plan = plan_class(COURSE, tmp_path / "class", ResultStore(tmp_path / "results"), Limits(), students=[given])
        assert [e.student for e in plan.to_grade] == ["José_García"]
    with pytest.raises(RosterError, match="no submission for student nobody"):
        plan_class(COURSE, tmp_path / "class", ResultStore(tmp_path / "results"), Limits(), students=["nobody"])


def test_names_that_are_not_utf8_are_read_kept_apart_and_stored(tmp_path):
    # Unpacked from zips made on Windows: Latin-1 bytes in a folder's and a file's name. They
    # once crashed the class's fingerprints, and its SQLite gradebook with every result in it.
    from attnlab.classroom.gradebook import build_gradebook
    from attnlab.intake.roster import shown

    root = os.fsencode(tmp_path / "class")
    for name in (b"Jos\xe9", b"Jos\xe8"):
        folder = hand_in(Path(os.fsdecode(root + b"/" + name)))
        (folder / os.fsdecode(b"caf\xe9.txt")).write_text("notes")
    entries = find_entries(tmp_path / "class", COURSE)
    assert [e.student for e in entries] == ["Josè", "José"]
    store = ResultStore(tmp_path / "results")
    for entry in entries:
        store.save(
            entry.student,
            source=shown(entry.source),
            fingerprint=entry.fingerprint(COURSE),
            grader="g",
            report=None,
            error=None,
        )
    build_gradebook(store.all(), tmp_path / "results" / "gradebook.sqlite")
    assert [r.data["source"].rsplit("/", 1)[1] for r in store.all()] == ["Jos\ufffd", "Jos\ufffd"]


def test_an_unreadable_exercise_file_is_fingerprinted_not_fatal(tmp_path, monkeypatch):
    folder = hand_in(tmp_path / "ada")
    [entry] = find_entries(tmp_path, COURSE)
    before = entry.fingerprint(COURSE)
    opened = os.open

    def refuse(path, *args, **kwargs):
        if os.fsdecode(path).endswith("softmax.py"):
            raise PermissionError(13, "Permission denied")
        return opened(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    assert entry.fingerprint(COURSE) != before  # and no exception: its grading says what it can read
    with pytest.raises(RosterError, match="softmax.py: cannot be read [(]Permission denied[)]"):
        stage(entry, COURSE, folder.parent / "staging")


@pytest.mark.parametrize(
    "document, problem",
    [
        ("not json", "Expecting value"),
        ('{"cells": {"a": 1}}', "it has no list of cells"),
        ("[1, 2]", "it has no list of cells"),
        ('{"cells": [null]}', "cell 1 is not a cell"),
        (
            '{"cells": [{"cell_type": "markdown", "source": "x"}, {"cell_type": "code", "source": [1, 2]}]}',
            "cell 2's source is not text",
        ),
        ('{"cells": [{"cell_type": "code", "source": null}]}', "cell 1's source is not text"),
    ],
)
def test_a_malformed_notebook_is_that_students_one_line_error(tmp_path, document, problem):
    # These once ended as the grader's own failure (AttributeError, TypeError), retried every run.
    (tmp_path / "eve").mkdir()
    (tmp_path / "eve" / "softmax.ipynb").write_text(document)
    [entry] = find_entries(tmp_path, COURSE)
    with pytest.raises(RosterError, match=f"softmax.ipynb: not a readable notebook \\(.*{problem}"):
        stage(entry, COURSE, tmp_path / "staging")


def test_a_notebooks_code_cells_become_its_file(tmp_path):
    cells = [
        {"cell_type": "markdown", "source": "# Softmax"},
        {"cell_type": "code", "source": ["import numpy as np\n", "%matplotlib inline\n"]},
        {"cell_type": "code", "source": SOFTMAX.split("import numpy as np", 1)[1]},
    ]
    (tmp_path / "ada").mkdir()
    (tmp_path / "ada" / "softmax.ipynb").write_text(json.dumps({"cells": cells}))
    [entry] = find_entries(tmp_path, COURSE)
    code = (stage(entry, COURSE, tmp_path / "staging") / "softmax.py").read_text()
    assert "%matplotlib" not in code and "import numpy as np" in code and "def softmax" in code
    compile(code, "softmax.py", "exec")


def test_a_results_folder_inside_the_class_folder_is_not_a_student(tmp_path):
    hand_in(tmp_path / "class" / "ada")
    store = ResultStore(tmp_path / "class" / "results")
    store.save("ada", source="ada", fingerprint="f", grader="g", report=None, error=None)
    plan = plan_class(COURSE, tmp_path / "class", store, Limits())
    assert [e.student for e in plan.entries] == ["ada"]


def test_a_stored_result_that_is_not_a_report_is_graded_again_not_trusted(tmp_path):
    # A hand-edited results file whose report was a string crashed the summary and the gradebook.
    from attnlab.classroom.gradebook import build_gradebook

    store = ResultStore(tmp_path)
    store.save("ada", source="ada", fingerprint="f", grader="g", report={"tests": []}, error=None)
    store.save("bob", source="bob", fingerprint="f", grader="g", report="x", error=None)
    store.save("cy", source="cy", fingerprint="f", grader="g", report={"tests": "x"}, error=None)
    assert (
        store.is_current("ada", "f", "g")
        and not store.is_current("bob", "f", "g")
        and not store.is_current("cy", "f", "g")
    )
    build_gradebook(store.all(), tmp_path / "gradebook.sqlite")


def test_what_archivers_leave_beside_the_entries_is_no_student(tmp_path):
    hand_in(tmp_path / "class" / "ada")
    for litter in ("__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini"):
        target = tmp_path / "class" / litter
        hand_in(target) if litter == "__MACOSX" else target.write_text("litter")
    hand_in(tmp_path / "class" / "__MACOSX" / "ada")
    assert students(find_entries(tmp_path / "class", COURSE)) == {"ada": "ada"}
    hand_in(tmp_path / "course" / "submitted" / "bob" / "ps1")
    hand_in(tmp_path / "course" / "submitted" / "__MACOSX" / "ps1")
    assert students(find_entries(tmp_path / "course", COURSE)) == {"bob": "ps1"}


def test_a_results_folder_belongs_to_one_class(tmp_path):
    from attnlab.classroom.gradebook import ResultsOfAnotherClass, default_results_folder

    first, second = hand_in(tmp_path / "class" / "ada").parent, hand_in(tmp_path / "stray" / "ada").parent
    assert default_results_folder(first) == tmp_path / "class.results" != default_results_folder(second)
    store = ResultStore(tmp_path / "shared")
    store.claim(first)
    store.save("ada", source="class/ada", fingerprint="f", grader="g", report=None, error=None)
    store.claim(tmp_path / "class" / ".." / "class")  # the same class, however it is written
    with pytest.raises(ResultsOfAnotherClass, match=r"holds the results of the class in .*class, not of .*stray"):
        store.claim(second)
    assert store.load("ada").data["source"] == "class/ada"
    # A folder of an earlier version names no class: the first class graded into it takes it.
    old = ResultStore(tmp_path / "old")
    old.save("ada", source="stray/ada", fingerprint="f", grader="g", report=None, error=None)
    old.claim(second)
    with pytest.raises(ResultsOfAnotherClass):
        old.claim(first)
    # A class's results folder inside a folder graded as a class is not a student.
    ResultStore(tmp_path / "class" / "ps1.results").claim(tmp_path / "elsewhere")
    plan = plan_class(COURSE, tmp_path / "class", ResultStore(tmp_path / "class.results"), Limits())
    assert [e.student for e in plan.entries] == ["ada"]


def test_nbgrader_students_that_would_share_an_id_are_each_refused_by_their_own_folder(tmp_path):
    from attnlab.intake.class_folder import survey

    for student in ("Alice", "alice", "bob"):
        hand_in(tmp_path / "submitted" / student / "ps1")
    found = survey(tmp_path, COURSE)
    assert students(found.entries) == {"bob": "ps1"}
    assert sorted(line.split(": not graded")[0] for line in found.not_graded) == [
        "submitted/Alice/ps1",
        "submitted/alice/ps1",
    ]


@pytest.fixture
def deep_class(tmp_path):
    """A class whose entries hold a folder 1,200 deep: beside the work (``bob (1)``, bob's second
    upload, whose saving time is looked for), and holding it (dee's file, at the bottom)."""
    classroom = tmp_path / "class"
    for student in ("ada", "bob", "bob (1)"):
        hand_in(classroom / student)
    (classroom / "dee").mkdir()
    with chains_of_folders({classroom / "bob (1)": None, classroom / "dee": "softmax.py"}):
        yield classroom


def test_a_folder_a_thousand_deep_in_an_entry_costs_no_one_their_grade(deep_class, tmp_path):
    """Python 3.11's os.walk and Path.rglob recurse: an entry holding a folder 1,200 deep stopped
    the planning of its class with a RecursionError, nobody graded, on every rerun. An entry is
    read within bounds that do not recurse: each is graded as it is graded alone."""
    plan = plan_class(COURSE, deep_class, ResultStore(tmp_path / "results"), Limits())
    assert sorted(e.student for e in plan.to_grade) == ["ada", "bob", "dee"]
    entries = {e.student: e for e in plan.entries}
    assert entries["bob"].source.name == "bob (1)"  # saved last
    staged = stage(entries["bob"], COURSE, tmp_path / "staging-bob")
    assert [p.name for p in staged.iterdir()] == ["softmax.py"]
    # What grading reads of bob is what it reads of ada: the folder beside the work is not read.
    assert plan.fingerprints["bob"] == plan.fingerprints["ada"]
    with pytest.raises(RosterError, match=r"^dee: no exercise file found .*folders more than 32 deep: not looked into"):
        stage(entries["dee"], COURSE, tmp_path / "staging-dee")


def test_a_changed_submission_is_graded_again_whatever_its_files_hold(tmp_path):
    """A submission's files were hashed as name NUL content NUL, one after another: ``scores.py``
    and ``softmax.py`` ran together into the same bytes as one ``scores.py`` holding both, and
    a submission changed from one to the other kept its stale grade."""
    scores = (COURSE.solutions_dir / "scores.py").read_bytes()
    ada = hand_in(tmp_path / "class" / "ada")
    (ada / "scores.py").write_bytes(scores)
    store = ResultStore(tmp_path / "results")
    plan = plan_class(COURSE, tmp_path / "class", store, Limits())

    def graded(fingerprint: str) -> None:
        store.save(
            "ada",
            source=str(ada),
            fingerprint=fingerprint,
            grader=plan.grader,
            report=None,
            error=None,
            grader_parts=plan.grader_parts,
        )

    graded("9" * 64)  # as an earlier attnlab hashed it: graded once more, and told why
    before = plan_class(COURSE, tmp_path / "class", store, Limits())
    assert before.why == {"ada": "attnlab changed how it reads a submission since it was graded (a regrade once)"}
    graded(plan.fingerprints["ada"])
    assert plan_class(COURSE, tmp_path / "class", store, Limits()).to_grade == []
    (ada / "softmax.py").unlink()
    (ada / "scores.py").write_bytes(scores + b"\0softmax.py\0" + SOFTMAX.encode())
    again = plan_class(COURSE, tmp_path / "class", store, Limits())
    assert [e.student for e in again.to_grade] == ["ada"]
    assert again.why["ada"] == "the submission changed since it was graded"
