"""Hostile uploads: symbolic links and archives, on every path that reads a submission.

Each upload below is built here, by hand where the zip module would refuse to write it (a header
that lies about its sizes, an encryption flag, a link). Each must end as a one-line reason that
names the entry, never a traceback, and never with a point: graded alone (``attnlab grade X``,
whose exit status is then 2), in a class (the class is graded; the bad entry is "not gradable"
with its reason), and on Gradescope and nbgrader's paths where they read files.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest
from conftest import COURSE, REPO

from attnlab.intake.class_folder import find_entries
from attnlab.intake.roster import RosterError, stage

SOFTMAX = (COURSE.solutions_dir / "softmax.py").read_text()
ATTNLAB = [sys.executable, "-m", "attnlab.cli"]
GIB = 1 << 30
PEAK_MIB = 500
"""What the grader may reach while it refuses a zip bomb (it reached 2 GB)."""


def raw_zip(
    path: Path,
    name: str,
    data: bytes,
    *,
    size: int,
    crc: int,
    method: int = zipfile.ZIP_DEFLATED,
    flags: int = 0,
    mode: int = stat.S_IFREG | 0o644,
) -> Path:
    """A one-member zip written byte by byte: ``data`` as stored (deflated already, for
    ZIP_DEFLATED), with whatever uncompressed ``size``, ``crc`` and ``flags`` its headers claim."""
    encoded = name.encode()
    local = (
        struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, flags, method, 0, 0x21, crc, len(data), size, len(encoded), 0)
        + encoded
    )
    central = (
        struct.pack(
            "<4s6H3L5H2L",
            b"PK\x01\x02",
            3 << 8 | 20,
            20,
            flags,
            method,
            0,
            0x21,
            crc,
            len(data),
            size,
            len(encoded),
            0,
            0,
            0,
            0,
            mode << 16,
            0,
        )
        + encoded
    )
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central), len(local) + len(data), 0)
    path.write_bytes(local + data + central + end)
    return path


def deflated(chunks) -> bytes:
    compressor = zlib.compressobj(1, zlib.DEFLATED, -15)
    return b"".join([*(compressor.compress(chunk) for chunk in chunks), compressor.flush()])


@pytest.fixture(scope="session")
def gigabyte_of_zeros() -> bytes:
    """1 GiB of zeros, deflated (4.5 MB): the bomb's payload, built once."""
    return deflated(bytes(1 << 20) for _ in range(GIB >> 20))


def zip_bomb(path: Path, payload: bytes) -> Path:
    """softmax.py that unpacks to 1 GiB of zeros, with headers that say 1 KB (and the CRC of 1 KB)."""
    return raw_zip(path, "softmax.py", payload, size=1024, crc=zlib.crc32(bytes(1024)))


def lying_zip(path: Path) -> Path:
    """softmax.py, the reference's, whose headers say it is 10 bytes (and give those bytes' CRC)."""
    return raw_zip(path, "softmax.py", deflated([SOFTMAX.encode()]), size=10, crc=zlib.crc32(SOFTMAX.encode()[:10]))


def encrypted_zip(path: Path) -> Path:
    """The reference's softmax.py with the encryption flag set (a password-protected zip)."""
    return raw_zip(
        path,
        "softmax.py",
        deflated([SOFTMAX.encode()]),
        size=len(SOFTMAX.encode()),
        crc=zlib.crc32(SOFTMAX.encode()),
        flags=0x1,
    )


def corrupt_zip(path: Path) -> Path:
    """A zip whose deflate stream is garbage."""
    return raw_zip(path, "softmax.py", b"\xff" * 64, size=1000, crc=0)


def link_zip(path: Path) -> Path:
    """softmax.py as a symbolic link to the instructor's solutions (what ``zip -y`` stores)."""
    target = str(COURSE.solutions_dir / "softmax.py").encode()
    return raw_zip(
        path,
        "softmax.py",
        target,
        size=len(target),
        crc=zlib.crc32(target),
        method=zipfile.ZIP_STORED,
        mode=stat.S_IFLNK | 0o777,
    )


def escaping_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("eve/softmax.py", SOFTMAX)
        bundle.writestr("../../escaped.py", "print('out')")
    return path


def deep_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as bundle:
        bundle.writestr("/".join(["d"] * 100 + ["softmax.py"]), SOFTMAX)
    return path


def crowded_zip(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as bundle:
        for number in range(20_000):
            bundle.writestr(f"junk/{number}", "")
        bundle.writestr("softmax.py", SOFTMAX)
    return path


def notebook(folder: Path, text: str | bytes) -> Path:
    folder.mkdir(parents=True)
    path = folder / "softmax.ipynb"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return folder


def deep_notebook(folder: Path) -> Path:
    """Nested 150,000 deep (within the count of objects a notebook may hold)."""
    depth = 150_000
    return notebook(folder, '{"cells": [' + "[" * depth + "]" * depth + "]}")


def huge_notebook(folder: Path) -> Path:
    """A notebook of 30 MB: one code cell, then 30 MB of outputs."""
    cell = {"cell_type": "code", "source": SOFTMAX, "outputs": [{"output_type": "stream", "text": "x" * (30 << 20)}]}
    return notebook(folder, json.dumps({"cells": [cell]}))


def crowded_notebook(folder: Path) -> Path:
    """4 MB of empty objects, which Python holds in some 200 MB."""
    return notebook(folder, '{"cells": [' + "{}," * ((4 << 20) // 3) + "{}]}")


def linked_folder(folder: Path) -> Path:
    folder.symlink_to(COURSE.solutions_dir, target_is_directory=True)
    return folder


def linked_file(folder: Path) -> Path:
    """A student's own folder whose softmax.py is a link to the solutions' (the rest are real)."""
    folder.mkdir(parents=True)
    (folder / "softmax.py").symlink_to(COURSE.solutions_dir / "softmax.py")
    shutil.copyfile(COURSE.solutions_dir / "masks.py", folder / "masks.py")
    return folder


def linked_misnamed(folder: Path) -> Path:
    """A misnamed exercise file (graded as softmax.py were it a file) that is a link to the solutions'."""
    folder.mkdir(parents=True)
    (folder / "Softmax (1).py").symlink_to(COURSE.solutions_dir / "softmax.py")
    return folder


def linked_notebook(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "softmax.ipynb").symlink_to("/etc/passwd")
    return folder


def linked_subfolder(folder: Path) -> Path:
    """The exercise files are one folder down, and that folder is a link to the solutions."""
    folder.mkdir(parents=True)
    (folder / "work").symlink_to(COURSE.solutions_dir, target_is_directory=True)
    return folder


def fifo(folder: Path) -> Path:
    """softmax.py is a named pipe: reading it would wait forever."""
    folder.mkdir(parents=True)
    os.mkfifo(folder / "softmax.py")
    return folder


# Each bad upload, how to build it at a path, and what its one line must say.
BAD = {
    "bomb.zip": (None, "unpacks to more than"),
    "lying.zip": (lying_zip, "its header says 10 bytes"),
    "encrypted.zip": (encrypted_zip, "encrypted"),
    "corrupt.zip": (corrupt_zip, "not a readable zip"),
    "link.zip": (link_zip, "softmax.py is a symbolic link"),
    "escaping.zip": (escaping_zip, "../../escaped.py: a path that leaves the zip"),
    "deep.zip": (deep_zip, "folders deep"),
    "crowded.zip": (crowded_zip, "more than"),
    "deep-notebook": (deep_notebook, "softmax.ipynb: not a readable notebook (nested too deep)"),
    "huge-notebook": (huge_notebook, "softmax.ipynb is larger than"),
    "crowded-notebook": (crowded_notebook, "softmax.ipynb: not a readable notebook (more than"),
    "not-json-notebook": (
        lambda folder: notebook(folder, "\x00\xff not json"),
        "softmax.ipynb: not a readable notebook",
    ),
    "linked-folder": (linked_folder, "linked-folder is a symbolic link"),
    "linked-file": (linked_file, "softmax.py is a symbolic link"),
    "linked-notebook": (linked_notebook, "softmax.ipynb is a symbolic link"),
    "linked-misnamed": (linked_misnamed, "Softmax (1).py is a symbolic link"),
    "linked-subfolder": (linked_subfolder, "linked-subfolder: work is a symbolic link"),
    "fifo": (fifo, "softmax.py is not a regular file"),
}


def build(name: str, folder: Path, bomb: bytes) -> Path:
    make, _ = BAD[name]
    return zip_bomb(folder / name, bomb) if make is None else make(folder / name)


def grade_cli(*args, timeout=300) -> tuple[subprocess.CompletedProcess, int]:
    """``attnlab grade ARGS`` in a subprocess, and the peak memory (MiB) of its processes, read
    from a fresh interpreter that has no other children."""
    probe = (
        "import resource, subprocess, sys, json\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "print(json.dumps([done.returncode, done.stdout, done.stderr, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))\n"
    )
    command = [sys.executable, "-c", probe, *ATTNLAB, "grade", *map(str, args), "--course", str(REPO)]
    probed = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=True)
    code, out, err, peak_kib = json.loads(probed.stdout)
    return subprocess.CompletedProcess(args, code, out, err), peak_kib >> 10


# Given alone, a folder whose exercise files are one folder down is a class of that one folder.
ALONE = sorted(set(BAD) - {"linked-subfolder"})


@pytest.mark.parametrize("name", ALONE)
def test_a_bad_upload_graded_alone_is_one_line_and_exit_2(tmp_path, name, gigabyte_of_zeros):
    bad = build(name, tmp_path, gigabyte_of_zeros)
    result, peak = grade_cli(bad)
    assert result.returncode == 2, (result.stdout[-2000:], result.stderr[-2000:])
    assert "Traceback" not in result.stderr + result.stdout
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("attnlab: error: ") and BAD[name][1] in line, line
    assert peak < PEAK_MIB, f"the grader reached {peak} MiB refusing {name}"


def test_the_bomb_took_the_old_reader_past_the_bound(tmp_path, gigabyte_of_zeros):
    """The memory bound above can fail: reading the bomb whole, as the grader once did, passes it."""
    bomb = zip_bomb(tmp_path / "bomb.zip", gigabyte_of_zeros)
    probe = "import resource, sys, zipfile\nzipfile.ZipFile(sys.argv[1]).read('softmax.py')\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    peak = (
        int(
            subprocess.run(
                [sys.executable, "-c", probe, str(bomb)], capture_output=True, text=True, check=True, timeout=120
            ).stdout
        )
        >> 10
    )
    assert peak > PEAK_MIB


def test_a_good_zip_and_folder_still_grade_alone(tmp_path):
    with zipfile.ZipFile(tmp_path / "ada.zip", "w") as bundle:
        bundle.writestr("ada/softmax.py", SOFTMAX)
        bundle.writestr("__MACOSX/ada/._softmax.py", "resource fork")
    for submission in (tmp_path / "ada.zip", COURSE.solutions_dir):
        result, _ = grade_cli(submission, "--only", "softmax")
        assert result.returncode == 0 and "100%" in result.stdout, result.stderr[-2000:]


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory, gigabyte_of_zeros):
    root = tmp_path_factory.mktemp("hostile-uploads")
    classroom = root / "class"
    classroom.mkdir()
    (classroom / "ada").mkdir()
    shutil.copyfile(COURSE.solutions_dir / "softmax.py", classroom / "ada" / "softmax.py")
    for name in BAD:
        build(name, classroom, gigabyte_of_zeros)
    result, peak = grade_cli(classroom, "--only", "softmax", "--jobs", "2", timeout=900)
    return root, result, peak


def stored(root: Path, student: str) -> dict:
    return json.loads((root / "class.results" / f"{student}.json").read_text())


def test_a_class_grades_around_its_bad_uploads(graded_class):
    root, result, peak = graded_class
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr + result.stdout
    ada = stored(root, "ada")
    assert (
        ada["error"] is None
        and ada["report"]["tests"]
        and all(t["outcome"] == "passed" for t in ada["report"]["tests"])
    )
    for name, (_, reason) in BAD.items():
        data = stored(root, name.removesuffix(".zip"))
        assert data["report"] is None, name  # no test ran: no point
        assert reason in data["error"] and "\n" not in data["error"], (name, data["error"])
    assert f"not gradable {len(BAD)}" in result.stdout
    listed = " ".join(line.strip() for line in result.stdout.splitlines())  # rich wraps long lines
    for name in BAD:
        assert f"not gradable: {name.removesuffix('.zip')}: " in listed, name
    assert peak < PEAK_MIB, f"a grading process reached {peak} MiB"


def test_a_class_entry_that_links_elsewhere_is_refused_even_when_its_target_is_a_student(tmp_path):
    (tmp_path / "class" / "ada").mkdir(parents=True)
    shutil.copyfile(COURSE.solutions_dir / "softmax.py", tmp_path / "class" / "ada" / "softmax.py")
    (tmp_path / "class" / "eve").symlink_to(tmp_path / "class" / "ada", target_is_directory=True)
    entries = {e.student: e for e in find_entries(tmp_path / "class", COURSE)}
    with pytest.raises(RosterError, match="^eve is a symbolic link"):
        stage(entries["eve"], COURSE, tmp_path / "staging")
    assert entries["eve"].fingerprint(COURSE) != entries["ada"].fingerprint(COURSE)


def test_nbgrader_submitted_folders_refuse_links(tmp_path):
    submitted = tmp_path / "submitted"
    (submitted / "ada" / "week1").mkdir(parents=True)
    shutil.copyfile(COURSE.solutions_dir / "softmax.py", submitted / "ada" / "week1" / "softmax.py")
    (submitted / "eve").mkdir()
    (submitted / "eve" / "week1").symlink_to(COURSE.solutions_dir, target_is_directory=True)
    (submitted / "mal").symlink_to(submitted / "ada", target_is_directory=True)
    entries = {e.student: e for e in find_entries(tmp_path, COURSE)}
    assert sorted(entries) == ["ada", "eve", "mal"]
    stage(entries["ada"], COURSE, tmp_path / "staging-ada")
    for student, reason in (("eve", "week1 is a symbolic link"), ("mal", "mal is a symbolic link")):
        with pytest.raises(RosterError, match=reason):
            stage(entries[student], COURSE, tmp_path / f"staging-{student}")


def test_a_sibling_notebook_that_is_a_link_is_not_imported(tmp_path):
    """nbgrader's kernel imports sibling notebooks by name: a link among them is refused, in one line."""
    folder = linked_notebook(tmp_path / "nb")
    helper = Path(__file__).resolve().parents[1] / "grader" / "attnlab" / "export"
    code = f"import sys\nsys.path.insert(0, {str(helper)!r})\nfrom notebook_imports import import_notebooks\nimport_notebooks(['softmax'], {str(folder)!r})\nimport softmax\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "softmax.ipynb is a symbolic link" in result.stderr.strip().splitlines()[-1]


def test_a_zip_whose_list_of_members_is_huge_is_refused_before_it_is_parsed(tmp_path):
    """Its end record says one member; its central directory lists 300,000 (the zip module would
    hold them all, some 150 MB, before any could be counted)."""
    from attnlab.intake.uploads import UploadRefused, exercise_files

    entries = [
        struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0)
        + f"{n:06}".encode()
        for n in range(300_000)
    ]
    directory = b"".join(entries)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(directory), 0, 0)
    (tmp_path / "listed.zip").write_bytes(directory + end)
    tracemalloc.start()
    try:
        with pytest.raises(UploadRefused, match="^listed.zip: a zip of more than"):
            exercise_files(tmp_path / "listed.zip", {"softmax.py"})
        # Nor when the class folder is looked through (is it a Gradescope export?).
        assert [e.student for e in find_entries(tmp_path, COURSE)] == ["listed"]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 << 20, f"{peak >> 20} MiB to refuse it"


def test_a_folder_beside_a_large_data_set_is_found_without_listing_the_data(tmp_path):
    folder = tmp_path / "ada"
    (folder / "data").mkdir(parents=True)
    for number in range(12_000):
        (folder / "data" / str(number)).touch()
    (folder / "work").mkdir()
    shutil.copyfile(COURSE.solutions_dir / "softmax.py", folder / "work" / "softmax.py")
    [entry] = find_entries(tmp_path, COURSE)
    staged = stage(entry, COURSE, tmp_path / "staging")
    assert [p.name for p in staged.iterdir()] == ["softmax.py"]
    (folder / "work" / "softmax.py").unlink()
    with pytest.raises(RosterError, match="^ada: more than 10000 files to look through"):
        stage(entry, COURSE, tmp_path / "staging-again")


def test_a_link_swapped_in_after_the_look_is_refused_where_it_is_opened(tmp_path, monkeypatch):
    """A check-then-open reader follows a link put in place between the two; ours opens with
    O_NOFOLLOW where it reads, so the swap is refused (made here right after each look: the
    exercise file once found, the folder once listed as a real one)."""
    from attnlab.intake import uploads

    folder = tmp_path / "file" / "ada"
    (folder / "work").mkdir(parents=True)
    shutil.copyfile(COURSE.solutions_dir / "softmax.py", folder / "work" / "softmax.py")
    looked, opened = uploads._lexists, uploads._open_below

    def look_then_swap(name, dir_fd):
        seen = looked(name, dir_fd)
        script = folder / "work" / "softmax.py"
        if seen and not script.is_symlink():
            script.unlink()
            script.symlink_to(COURSE.solutions_dir / "softmax.py")
        return seen

    monkeypatch.setattr(uploads, "_lexists", look_then_swap)
    with pytest.raises(RosterError, match="^ada: work/softmax.py is a symbolic link"):
        stage(find_entries(folder.parent, COURSE)[0], COURSE, tmp_path / "file" / "staging")
    monkeypatch.setattr(uploads, "_lexists", looked)

    folder = tmp_path / "folder" / "ada"
    (folder / "work").mkdir(parents=True)
    shutil.copyfile(COURSE.solutions_dir / "softmax.py", folder / "work" / "softmax.py")

    def swap_then_open(top, parts, label):
        if parts == ("work",) and not (folder / "work").is_symlink():
            shutil.rmtree(folder / "work")
            (folder / "work").symlink_to(COURSE.solutions_dir, target_is_directory=True)
        return opened(top, parts, label)

    monkeypatch.setattr(uploads, "_open_below", swap_then_open)
    with pytest.raises(RosterError, match="^ada: work is a symbolic link"):
        stage(find_entries(folder.parent, COURSE)[0], COURSE, tmp_path / "folder" / "staging")


def test_a_class_folder_reached_through_a_link_is_still_graded(tmp_path):
    """Links are refused inside the class, not on the way to it (that path is the instructor's)."""
    (tmp_path / "real" / "ada").mkdir(parents=True)
    shutil.copyfile(COURSE.solutions_dir / "softmax.py", tmp_path / "real" / "ada" / "softmax.py")
    (tmp_path / "class").symlink_to(tmp_path / "real", target_is_directory=True)
    [entry] = find_entries(tmp_path / "class", COURSE)
    assert (stage(entry, COURSE, tmp_path / "staging") / "softmax.py").read_text() == SOFTMAX


def test_a_member_named_with_escape_sequences_is_named_inertly_on_one_line(tmp_path):
    with zipfile.ZipFile(tmp_path / "eve.zip", "w") as bundle:
        bundle.writestr("../\x1b]52;c;cHduZWQ=\x07\nAll hidden tests passed\r.py", "x")
    [entry] = find_entries(tmp_path, COURSE)
    with pytest.raises(RosterError) as refused:
        stage(entry, COURSE, tmp_path / "staging")
    message = str(refused.value)
    assert message.isprintable() and "\\x1b]52" in message and "\\n" in message, message


def test_a_walk_lists_a_level_only_when_asked_keeps_to_its_bounds_and_follows_no_link(tmp_path):
    from attnlab.intake.walk import TooManyEntries, levels, open_folder

    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "a" / "up").symlink_to(tmp_path, target_is_directory=True)
    for number in range(3):
        (tmp_path / f"f{number}").touch()
    listed = []

    def descend(parts, entry, folder):
        listed.append((*parts, entry.name))
        return entry.is_dir(follow_symlinks=False)

    top = open_folder(tmp_path)
    try:
        assert next(levels(top, descend)) == [()] and listed == []  # nothing listed before it is asked for
        assert list(levels(top, descend)) == [[()], [("a",)], [("a", "b")], [("a", "b", "c")]]
        assert ("a", "up") in listed and not any(path[:2] == ("a", "up") and len(path) > 2 for path in listed)
        assert list(levels(top, descend, depth=1)) == [[()], [("a",)]]
        with pytest.raises(TooManyEntries, match="more than 5 files and folders"):
            list(levels(top, descend, listed=5))
    finally:
        os.close(top)
