"""A student's folder walked breadth first within bounds, without recursion and without following a link.

Python's own walks (``os.walk``, ``Path.rglob``) recurse once per folder, so a folder a thousand
levels deep in one student's entry raised ``RecursionError`` and stopped the whole class. Here a
level of folders is a list: ``levels`` gives the top, then the folders one below it, and so on, at
most ``MAX_DEPTH`` below the top, each opened from the top one name at a time without following a
link, and refuses (``TooManyEntries``) a walk that lists more than its bound of entries. A level
is listed only when the next one is asked for: a reader that stops at a level lists nothing below it.

``uploads`` finds a submission's exercise files with it, and ``class_folder`` when an entry was saved.
"""

from __future__ import annotations

import os
from typing import Callable, Iterator

MAX_DEPTH = 32
"""Folders below the top at most that a walk looks into."""
MAX_LISTED = 10_000
"""Entries (files and folders) a walk lists at most."""

Folder = tuple[str, ...]
"""A folder below the walk's top, as the names on the way to it (the top itself: ``()``)."""


class TooManyEntries(Exception):
    """The walk listed more entries than its bound (``listed``)."""

    def __init__(self, listed: int):
        super().__init__(f"more than {listed} files and folders")
        self.listed = listed


def open_folder(name: str, dir_fd: int | None = None) -> int:
    """The folder ``name`` (below ``dir_fd`` when given) opened for listing, not through a link.
    Raises ``OSError`` (``ELOOP`` for a link, ``ENOTDIR`` for a file)."""
    return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)


def open_below(top: int, folder: Folder) -> int:
    """``folder`` below the open folder ``top``, each step opened without following a link."""
    fd = os.dup(top)
    for name in folder:
        try:
            child = open_folder(name, fd)
        finally:
            os.close(fd)
        fd = child
    return fd


def levels(
    top: int,
    descend: Callable[[Folder, os.DirEntry, int], bool],
    *,
    depth: int = MAX_DEPTH,
    listed: int = MAX_LISTED,
    opener: Callable[[int, Folder], int] = open_below,
) -> Iterator[list[Folder]]:
    """The folders below the open folder ``top``, a level at a time, each level sorted: ``[()]``
    first, then those one below, to ``depth`` below the top.

    Asked for the next level, each folder of the last one is opened (``opener``) and listed, and
    ``descend(folder, entry, folder_fd)`` is told each entry: True walks into it (it must be a
    folder; a link is the caller's to refuse or pass by). Raises ``TooManyEntries`` once more
    than ``listed`` entries were listed in all, and what ``opener`` or ``descend`` raise."""
    level: list[Folder] = [()]
    seen = 0
    for below_top in range(depth + 1):
        yield level
        if below_top == depth:
            return
        deeper: list[Folder] = []
        for folder in level:
            fd = opener(top, folder)
            try:
                with os.scandir(fd) as entries:
                    for entry in entries:
                        seen += 1
                        if seen > listed:
                            raise TooManyEntries(listed)
                        if descend(folder, entry, fd):
                            deeper.append((*folder, entry.name))
            finally:
                os.close(fd)
        if not deeper:
            return
        level = sorted(deeper)
