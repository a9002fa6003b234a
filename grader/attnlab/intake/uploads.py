"""Read a student's upload (a folder, or a .zip) without trusting anything in it.

Only the exercise files are read, and read the way an attacker cannot redirect: every path is
opened component by component with ``O_NOFOLLOW`` (a symbolic link is refused, never followed,
and no check-then-open leaves a gap), a file must be a regular one, and every byte is counted as
it is read or decompressed, whatever a zip's headers claim. A zip is refused before it is parsed
when its central directory is too large, and for any member that is a link, is encrypted, leaves
the archive (an absolute path, ``..``) or lies deeper than ``MAX_DEPTH`` folders; a folder is
looked through breadth first (``walk``), no deeper than ``MAX_DEPTH`` and refused past
``MAX_MEMBERS`` entries listed. Each refusal is an ``UploadRefused`` whose message is one line
naming the entry.
"""

from __future__ import annotations

import copy
import errno
import lzma
import os
import stat
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from attnlab.intake.misnamed import AmbiguousUpload, Candidate, Choice, choose, meant_name
from attnlab.intake.walk import MAX_DEPTH, TooManyEntries, levels

MAX_FILE_BYTES = 8 << 20
"""One exercise file (a script or a notebook) at most, as unpacked."""
MAX_UNPACKED_BYTES = 20 << 20
"""All the exercise files of one upload at most, as unpacked."""
MAX_ARCHIVE_BYTES = 50 << 20
"""A zip at most, as uploaded."""
MAX_MEMBERS = 10_000
"""Files and folders in a zip, or entries looked through in a folder, at most."""
MAX_DIRECTORY_BYTES = 4 << 20
"""A zip's central directory (its list of members) at most: parsed before anything is counted."""
_CHUNK = 1 << 16
_SKIPPED = ("__MACOSX",)
# Everything the zip module and its decompressors raise on a damaged or hostile archive.
_UNREADABLE = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    EOFError,
    OSError,
    ValueError,
    NotImplementedError,
    RuntimeError,
    zlib.error,
    lzma.LZMAError,
    struct.error,
)


class UploadRefused(Exception):
    """The upload cannot be graded as it is; the message is one line naming the entry."""


def shown(name: str | Path) -> str:
    """A name as one line of text a terminal, a JSON file and SQLite all take: bytes that are not
    UTF-8 as U+FFFD, and control characters (a name is the uploader's to choose) escaped."""
    text = os.fsencode(name).decode("utf-8", "replace")
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)


def _link_refusal(name: str, target: str | None = None) -> UploadRefused:
    to = f" (to {shown(target)})" if target else ""
    return UploadRefused(f"{name} is a symbolic link{to}, which is not followed: hand in the files themselves")


def _open(name: str | Path, shown_as: str, *, dir_fd: int | None = None) -> int:
    """``name`` opened for reading without following a link (below ``dir_fd`` when given)."""
    try:
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError as error:
        if error.errno == errno.ELOOP:
            try:
                target = os.readlink(name, dir_fd=dir_fd)
            except OSError:
                target = "?"
            raise _link_refusal(shown_as, target) from None
        raise UploadRefused(f"{shown_as}: cannot be read ({error.strerror})") from None


def _read_regular(fd: int, shown_as: str, limit: int) -> bytes:
    """The contents of the regular file open as ``fd``, refused past ``limit`` bytes (counted as read)."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise UploadRefused(f"{shown_as} is not a regular file")
    os.set_blocking(fd, True)
    chunks, size = [], 0
    while chunk := os.read(fd, _CHUNK):
        size += len(chunk)
        if size > limit:
            raise UploadRefused(f"{shown_as} is larger than {limit >> 20} MiB")
        chunks.append(chunk)
    return b"".join(chunks)


def read_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """One file's bytes: refused if it is a link, not a regular file, or larger than ``limit``."""
    fd = _open(path, shown(path.name))
    try:
        return _read_regular(fd, shown(path.name), limit)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class Found:
    """The exercise files of an upload, and what was said about finding them."""

    files: dict[str, bytes]
    """Exercise file name (``softmax.py``) -> its bytes (empty with ``read=False``)."""
    notes: tuple[str, ...] = ()
    """How they were found (``Attention.py`` graded as ``attention.py``), one line each."""
    not_graded: tuple[str, ...] = ()
    """What was found and not graded, and why, one line each."""


def exercise_files(source: Path, names: set[str], *, read: bool = True, pick: str | None = None) -> Found:
    """The exercise files (``names``, such as ``softmax.py``) of an upload: those of the folder
    itself or of the shallowest folder below it that holds any (in a zip alike), found by the names
    meant (``misnamed``: ``Attention.py``, ``attention (1).py``). Several folders at that depth
    holding the same files are drafts: refused unless ``pick`` is ``"newest"``. Empty when there
    are none; with ``read=False``, their contents are left empty (names only).

    Raises ``UploadRefused``."""
    label = shown(source.name)
    fd = _open(source, label)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            return _folder_files(fd, label, names, read, pick)
        if stat.S_ISREG(mode):
            with os.fdopen(os.dup(fd), "rb") as archive:
                return _zip_files(archive, label, names, read, pick)
        raise UploadRefused(f"{label} is neither a folder nor a zip")
    finally:
        os.close(fd)


def listed_files(folder: Path, listed: dict[str, str], names: set[str], *, read: bool = True) -> Found:
    """The exercise files among the files ``listed`` of ``folder`` (the name handed in -> its name
    in the folder: a Canvas download names a student's ``softmax.py`` ``smithjohn_123_456_softmax.py``),
    found by the names meant (``misnamed``) and read as a folder's are (no link followed, every
    byte counted). A listed file that is no exercise file is named in ``not_graded``.

    Raises ``UploadRefused``."""
    label = shown(folder.name)
    found: dict[str, list[str]] = {}
    not_graded = []
    for handed_in, stored in sorted(listed.items()):
        if "/" in stored or stored in ("", ".", ".."):  # a name of the folder's own listing: never a path
            raise UploadRefused(f"{label}: {shown(stored)} is not a file's name")
        meant = meant_name(handed_in, names)
        if meant is None:
            not_graded.append(f"{shown(handed_in)}: not graded, not an exercise file")
        else:
            found.setdefault(meant, []).append(handed_in)
    if not found:
        return Found({}, not_graded=tuple(not_graded))
    choice = _choose([Candidate("", found, 0.0)], label, None)
    top = _open(folder, label)
    try:
        files = {
            expected: _read_below(top, listed[handed_in], label, "", read)
            for expected, (_, handed_in) in sorted(choice.chosen.items())
        }
    finally:
        os.close(top)
    if sum(map(len, files.values())) > MAX_UNPACKED_BYTES:
        raise UploadRefused(f"{label}: its exercise files are larger than {MAX_UNPACKED_BYTES >> 20} MiB together")
    return Found(files, choice.notes, (*choice.not_graded, *not_graded))


def zip_holds(path: Path, name: str, depth: int = 2) -> bool:
    """Does the zip at ``path`` hold a member called ``name`` at most ``depth`` folders deep? Read
    within the bounds every zip is read within (its size and its list of members checked before
    the list is parsed); a zip that cannot be read, or is refused, holds nothing."""
    return any(
        PurePosixPath(member).name == name and len(PurePosixPath(member).parts) <= depth for member in zip_members(path)
    )


def zip_members(path: Path) -> list[str]:
    """The names of the members of the zip at ``path``, read within the bounds every zip is read
    within (its size and its list of members checked before the list is parsed); none for a zip
    that cannot be read, or is refused."""
    try:
        fd = _open(path, shown(path.name))
        with os.fdopen(fd, "rb") as archive:
            size = os.fstat(archive.fileno()).st_size
            if size > MAX_ARCHIVE_BYTES or not stat.S_ISREG(os.fstat(archive.fileno()).st_mode):
                return []
            _check_directory(archive, size, shown(path.name))
            with zipfile.ZipFile(archive) as bundle:
                return bundle.namelist()
    except (UploadRefused, *_UNREADABLE):
        return []


def _choose(candidates: list[Candidate], label: str, pick: str | None) -> Choice:
    try:
        return choose(candidates, pick, shown)
    except AmbiguousUpload as ambiguous:
        raise UploadRefused(f"{label}: {ambiguous}") from None


LISTED_PER_FOLDER = 1000
"""Names of one folder looked through for misnamed exercise files at most: past it (a data set),
only the exact names are sought there."""


def _found_in(fd: int, names: set[str], budget: list[int]) -> dict[str, list[str]]:
    """The exercise files in the folder open as ``fd``: each exact name that exists, then the
    misnamed ones a bounded listing finds (``budget``: names the whole search may still list)."""
    found = {name: [name] for name in sorted(names) if _lexists(name, fd)}
    listed: list[str] = []
    with os.scandir(fd) as entries:
        for looked, entry in enumerate(entries, start=1):
            if looked > min(LISTED_PER_FOLDER, budget[0]):
                budget[0] -= looked - 1
                return found  # too many to look through: the exact names only
            if not entry.name.startswith(".") and entry.name not in names and not entry.is_dir(follow_symlinks=False):
                listed.append(entry.name)
    budget[0] -= len(listed)
    for name in sorted(listed):
        meant = meant_name(name, names)
        if meant is not None:
            found.setdefault(meant, []).append(name)
    return found


def _newest(fd: int, found: dict[str, list[str]]) -> float:
    times = []
    for name in (n for handed_in in found.values() for n in handed_in):
        try:
            times.append(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mtime)
        except OSError:
            pass
    return max(times, default=0.0)


def _folder_files(top: int, label: str, names: set[str], read: bool, pick: str | None) -> Found:
    # Breadth first (``walk``): the shallowest folder holding an exercise file is the submission's,
    # and no folder is listed whole (a data set beside the work may hold thousands of files)
    # before it is sought.
    def descend(parts: tuple[str, ...], entry: os.DirEntry, folder: int) -> bool:
        if entry.name.startswith(".") or entry.name in _SKIPPED:
            return False
        if entry.is_symlink() and entry.is_dir():  # it may hold the exercise files: refused, not followed
            raise _link_refusal(_inside(label, "/".join((*parts, entry.name))), os.readlink(entry.name, dir_fd=folder))
        return entry.is_dir(follow_symlinks=False)

    budget = [MAX_MEMBERS]
    walk = levels(
        top, descend, depth=MAX_DEPTH, listed=MAX_MEMBERS, opener=lambda t, parts: _open_below(t, parts, label)
    )
    deepest: tuple[str, ...] = ()
    try:
        for level in walk:
            deepest = level[0]
            candidates = []
            for parts in level:
                fd = _open_below(top, parts, label)
                try:
                    found = _found_in(fd, names, budget)
                    if found:
                        candidates.append(Candidate("/".join(parts), found, _newest(fd, found)))
                finally:
                    os.close(fd)
            if candidates:
                return _read_chosen(top, label, _choose(candidates, label, pick), read)
    except TooManyEntries:
        raise UploadRefused(
            f"{label}: more than {MAX_MEMBERS} files to look through for the exercise files; hand in those alone"
        ) from None
    if len(deepest) == MAX_DEPTH:  # folders were left unlooked at: say so, or a student's search ends in silence
        return Found({}, not_graded=(f"folders more than {MAX_DEPTH} deep: not looked into",))
    return Found({})


def _read_chosen(top: int, label: str, choice: Choice, read: bool) -> Found:
    files = {}
    for expected, (where, name) in sorted(choice.chosen.items()):
        fd = _open_below(top, tuple(where.split("/")) if where else (), label)
        try:
            files[expected] = _read_below(fd, name, label, where, read)
        finally:
            os.close(fd)
    if sum(map(len, files.values())) > MAX_UNPACKED_BYTES:
        raise UploadRefused(f"{label}: its exercise files are larger than {MAX_UNPACKED_BYTES >> 20} MiB together")
    return Found(files, choice.notes, choice.not_graded)


def _inside(label: str, where: str) -> str:
    return f"{label}: {shown(where)}"


def _lexists(name: str, dir_fd: int) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        return True
    except OSError:
        return False


def _open_below(top: int, parts: tuple[str, ...], label: str) -> int:
    """The folder ``parts`` below ``top``, each step opened without following a link."""
    fd = os.dup(top)
    for depth, part in enumerate(parts):
        try:
            child = _open(part, _inside(label, "/".join(parts[: depth + 1])), dir_fd=fd)
        finally:
            os.close(fd)
        fd = child
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            os.close(fd)
            raise UploadRefused(f"{_inside(label, '/'.join(parts))}: changed while it was read")
    return fd


def _read_below(folder: int, name: str, label: str, where: str, read: bool) -> bytes:
    shown_as = _inside(label, f"{where}/{name}" if where else name)
    fd = _open(name, shown_as, dir_fd=folder)
    try:
        if not read:
            return b""
        return _read_regular(fd, shown_as, MAX_FILE_BYTES)
    finally:
        os.close(fd)


def _zip_files(archive, label: str, names: set[str], read: bool, pick: str | None) -> Found:
    size = os.fstat(archive.fileno()).st_size
    if size > MAX_ARCHIVE_BYTES:
        raise UploadRefused(
            f"{label}: a zip larger than {MAX_ARCHIVE_BYTES >> 20} MiB; hand in the exercise files alone"
        )
    _check_directory(archive, size, label)
    try:
        with zipfile.ZipFile(archive) as bundle:
            members = bundle.infolist()
            if len(members) > MAX_MEMBERS:
                raise UploadRefused(
                    f"{label}: a zip of more than {MAX_MEMBERS} files; hand in the exercise files alone"
                )
            by_path, choice = _choose_members(members, label, names, pick)
            files, total = {}, 0
            for name, (where, handed_in) in sorted(choice.chosen.items()):
                member = by_path[(where, handed_in)]
                shown_as = f"{label}: {shown(member.filename)}"
                if member.flag_bits & 0x1:
                    raise UploadRefused(f"{shown_as} is encrypted: zip it again without a password")
                files[name] = _unpack(bundle, member, shown_as) if read else b""
                total += len(files[name])
                if total > MAX_UNPACKED_BYTES:
                    raise UploadRefused(
                        f"{label}: its exercise files unpack to more than {MAX_UNPACKED_BYTES >> 20} MiB"
                    )
            return Found(files, choice.notes, choice.not_graded)
    except _UNREADABLE as error:
        raise UploadRefused(f"{label}: not a readable zip ({shown(str(error))})") from None


def _check_directory(archive, size: int, label: str) -> None:
    """Refuse a zip whose end record announces more members, or a longer list of them, than we
    read: the zip module holds the whole list in memory before anything can be counted. The
    records are found as the zip module finds them (the end record at the very end, else the
    last one within a comment's reach; a ZIP64 end record just before its locator)."""
    end_size, locator_size, end64_size = 22, 20, 56
    start = max(0, size - end_size - 0xFFFF)
    archive.seek(start)
    tail = archive.read()
    at = (
        len(tail) - end_size
        if tail[-end_size : -end_size + 4] == b"PK\x05\x06" and tail[-2:] == b"\0\0"
        else tail.rfind(b"PK\x05\x06")
    )
    if at < 0 or len(tail) - at < end_size:
        raise UploadRefused(f"{label}: not a readable zip (it has no end record)")
    *_, entries, directory_size, _, _ = struct.unpack("<4s4H2LH", tail[at : at + end_size])
    if start + at >= locator_size + end64_size:
        archive.seek(start + at - locator_size - end64_size)
        end64, locator = archive.read(end64_size), archive.read(locator_size)
        if locator[:4] == b"PK\x06\x07" and end64[:4] == b"PK\x06\x06":
            *_, entries, directory_size, _ = struct.unpack("<4sQ2H2L4Q", end64)
    if entries > MAX_MEMBERS or directory_size > MAX_DIRECTORY_BYTES:
        raise UploadRefused(f"{label}: a zip of more than {MAX_MEMBERS} files; hand in the exercise files alone")


def _zip_time(member: zipfile.ZipInfo) -> float:
    """A member's time as a number that orders times (its fields may be anything a zip says)."""
    return float(sum(value * 100**place for value, place in zip(member.date_time, range(5, -1, -1))))


def _choose_members(
    members: list[zipfile.ZipInfo], label: str, names: set[str], pick: str | None
) -> tuple[dict, Choice]:
    """The exercise members of the shallowest folder of the zip that holds any (``choose``);
    refuse the zip for a member that is a link, leaves the zip, lies too deep, or comes twice."""
    by_folder: dict[PurePosixPath, dict[str, list[str]]] = {}
    by_path: dict[tuple[str, str], zipfile.ZipInfo] = {}
    for member in members:
        path = PurePosixPath(member.filename)
        where = f"{label}: {shown(member.filename)}"
        if path.is_absolute() or ".." in path.parts:
            raise UploadRefused(f"{where}: a path that leaves the zip")
        if len(path.parts) > MAX_DEPTH:
            raise UploadRefused(f"{label}: a member more than {MAX_DEPTH} folders deep")
        if any(p.startswith(".") or p in _SKIPPED for p in path.parts[:-1]):
            continue
        if stat.S_ISLNK(member.external_attr >> 16):
            raise _link_refusal(where)
        meant = None if member.is_dir() or path.name.startswith(".") else meant_name(path.name, names)
        if meant is None:
            continue
        folder = "" if path.parent == PurePosixPath(".") else str(path.parent)
        if (folder, path.name) in by_path:
            raise UploadRefused(f"{where} is in the zip twice")
        by_path[(folder, path.name)] = member
        by_folder.setdefault(path.parent, {}).setdefault(meant, []).append(path.name)
    if not by_folder:
        return by_path, Choice({}, (), ())
    shallowest = min(len(folder.parts) for folder in by_folder)
    candidates = [
        Candidate(
            "" if folder == PurePosixPath(".") else str(folder),
            found,
            max(
                _zip_time(by_path[("" if folder == PurePosixPath(".") else str(folder), n)])
                for handed_in in found.values()
                for n in handed_in
            ),
        )
        for folder, found in sorted(by_folder.items(), key=lambda item: str(item[0]))
        if len(folder.parts) == shallowest
    ]
    return by_path, _choose(candidates, label, pick)


def _unpack(bundle: zipfile.ZipFile, member: zipfile.ZipInfo, where: str) -> bytes:
    """A member's bytes, counted as they are decompressed and refused past ``MAX_FILE_BYTES``, or
    when they are not as many as its header says."""
    if member.file_size > MAX_FILE_BYTES:
        raise UploadRefused(f"{where} unpacks to more than {MAX_FILE_BYTES >> 20} MiB")
    # The zip module stops at the size the header gives and checks the CRC of what it read:
    # told neither, it reads what the member really holds, and both are checked here.
    unbounded = copy.copy(member)
    unbounded.file_size, unbounded.CRC = MAX_FILE_BYTES + 1, None
    chunks, size, crc = [], 0, 0
    with bundle.open(unbounded) as data:
        while chunk := data.read(_CHUNK):
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                raise UploadRefused(f"{where} unpacks to more than {MAX_FILE_BYTES >> 20} MiB")
            chunks.append(chunk)
            crc = zlib.crc32(chunk, crc)
    if size != member.file_size:
        raise UploadRefused(f"{where}: not a readable zip (its header says {member.file_size} bytes, it holds {size})")
    if crc != member.CRC:
        raise UploadRefused(f"{where}: not a readable zip (its checksum does not match: damaged in transit?)")
    return b"".join(chunks)
