"""A class split over machines: which students a shard grades, and shard results merged back.

``attnlab grade CLASS --shard K/N`` grades the students whose id hashes to shard K of N
(``in_shard``): a hash of the id, not its position, so a student added later lands in one shard
and moves no one else. Each shard's results folder says which shard it holds (``shard.txt``).
``merge`` puts the shards' results into one results folder and rebuilds its gradebook, after
checking that they are the N shards of one class graded by one grader, each given once.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from attnlab import inert
from attnlab.atomic import write_text_atomically
from attnlab.classroom.gradebook import CLASS_NAME, GRADEBOOK_NAME, ResultStore, build_gradebook
from attnlab.intake.roster import RosterError

SHARD_NAME = "shard.txt"
_SPEC = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count``, counted from 1 (``2/4``: the second of four)."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, student: str) -> bool:
        return in_shard(student, self)

    @property
    def folder_name(self) -> str:
        return f"shard-{self.index}-of-{self.count}"


def parse_shard(text: str) -> Shard:
    """``K/N`` with 1 <= K <= N, else a ``ValueError`` whose message says what is expected."""
    match = _SPEC.fullmatch(text or "")
    if not match:
        raise ValueError(f"{text!r} is not a shard: give K/N, for example 2/4 (the second of four shards)")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ValueError(f"{text!r} is not a shard: K/N needs 1 <= K <= N (shards are counted from 1)")
    return Shard(index, count)


def in_shard(student: str, shard: Shard) -> bool:
    """Whether ``student`` is graded by ``shard``: a hash of the id, so stable under added students."""
    digest = hashlib.sha256(student.encode("utf-8", "surrogateescape")).digest()
    return int.from_bytes(digest[:8], "big") % shard.count == shard.index - 1


def mark_shard(folder: Path, shard: Shard) -> None:
    """Record in a results folder the shard it holds; a folder of another shard is refused."""
    marker = Path(folder) / SHARD_NAME
    if marker.is_file():
        named = marker.read_text(encoding="utf-8").strip()
        if named != str(shard):
            raise RosterError(
                f"{folder} holds the results of shard {inert.terminal_text(named)}, not {shard}: give each shard a results folder of its own"
            )
        return
    if any(Path(folder).glob("*.json")):
        raise RosterError(
            f"{folder} holds the results of a whole class, not of shard {shard}: give each shard a results folder of its own"
        )
    marker.write_text(f"{shard}\n", encoding="utf-8")


class MergeRefused(Exception):
    """The results folders are not the shards of one class graded by one grader; one line."""


@dataclass(frozen=True)
class Merged:
    folder: Path
    students: int
    shards: int


def merge(folders: list[Path], output: Path) -> Merged:
    """Merge the shards' results folders into ``output`` (a new folder, or one of the same
    class) and rebuild its gradebook; refuse (``MergeRefused``) anything that is not the N
    shards of one class graded by one grader."""
    classes, shards, results = {}, [], {}
    for folder in map(Path, folders):
        if not (folder / CLASS_NAME).is_file():
            raise MergeRefused(f"{folder}: not a results folder (no {CLASS_NAME} in it)")
        classes[folder] = (folder / CLASS_NAME).read_text(encoding="utf-8").strip()
        marker = folder / SHARD_NAME
        if not marker.is_file():
            raise MergeRefused(
                f"{folder}: the results of a whole class, not of a shard (no {SHARD_NAME}): there is nothing to merge it with"
            )
        try:
            shards.append((folder, parse_shard(marker.read_text(encoding="utf-8").strip())))
        except ValueError as error:
            raise MergeRefused(f"{marker}: {error}") from None
    if len(set(classes.values())) > 1:
        named = ", ".join(sorted(set(classes.values())))
        raise MergeRefused(
            f"the folders hold results of different classes ({inert.terminal_text(named)}): merge the shards of one class"
        )
    counts = {s.count for _, s in shards}
    if len(counts) > 1:
        raise MergeRefused(
            f"the folders are shards of different splits ({', '.join(str(s) for _, s in shards)}): merge the K/N shards of one N"
        )
    count = counts.pop()
    seen: dict[int, Path] = {}
    for folder, shard in shards:
        if shard.index in seen:
            raise MergeRefused(f"shard {shard} is given twice: {seen[shard.index]} and {folder}")
        seen[shard.index] = folder
    missing = [f"{k}/{count}" for k in range(1, count + 1) if k not in seen]
    if missing:
        raise MergeRefused(
            f"shard {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing: merge all {count} shards (a shard that failed: run it again)"
        )
    graders: dict[str, Path] = {}
    for folder, shard in shards:
        for stored in ResultStore(folder).all():
            if not shard.holds(stored.student):
                raise MergeRefused(
                    f"{folder} holds {inert.terminal_text(stored.student)!r}, who is not in shard {shard}: the folder is not that shard's"
                )
            if stored.student in results:
                raise MergeRefused(f"student {inert.terminal_text(stored.student)!r} is in two shards")
            graders.setdefault(stored.grader, folder)
            results[stored.student] = (folder, stored)
    if len(graders) > 1:
        raise MergeRefused(
            f"the shards were graded by different graders (hidden tests, reference, limits, engine or graded files differ): {', '.join(str(f) for f in graders.values())}"
        )
    class_folder = next(iter(classes.values()))
    output = Path(output)
    target = ResultStore(output)
    named = (output / CLASS_NAME).read_text(encoding="utf-8").strip() if (output / CLASS_NAME).is_file() else None
    if named is not None and named != class_folder:
        raise MergeRefused(
            f"{output} holds the results of the class in {inert.terminal_text(named)}, not of {inert.terminal_text(class_folder)}: merge into a folder of its own"
        )
    if (output / SHARD_NAME).is_file():
        raise MergeRefused(f"{output} is a shard's results folder: merge into another folder")
    output.mkdir(parents=True, exist_ok=True)
    (output / CLASS_NAME).write_text(f"{class_folder}\n", encoding="utf-8")
    for student, (folder, stored) in sorted(results.items()):
        source = folder / f"{student}.json"
        if source.resolve() != target.path(student).resolve():
            write_text_atomically(target.path(student), source.read_text(encoding="utf-8"))
    build_gradebook(target.all(sorted(results)), output / GRADEBOOK_NAME)
    return Merged(output, len(results), count)
