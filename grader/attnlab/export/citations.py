"""Which files a text cites, and which of them are missing where it is read.

A citation is a path to a file (``docs/contract.md``, ``solutions/warmup_torch.py``, or one that
climbs out with ``..``) or a document named in capitals (``README.md``). A template is no
citation: a path with a placeholder in capitals (``solutions/NAME.py``, ``OUT/ID/feedback.md``,
``QUIZ-YOUR-ID.answers.yaml``), an ``<``, a ``{`` or a ``*``. A citation is found when it names a
file inside ``root``, relative to the citing file's folder or one of its parents up to ``root``,
or relative to one of ``bases``; one that leads out of ``root`` never is.
"""

from __future__ import annotations

import re
from pathlib import Path

_EXTENSIONS = "md|py|toml|yaml|yml|json|ipynb|txt|ini|cfg"
_PATH = re.compile(rf"(?<![\w.\-/<{{*])((?:\.\./)*(?:[\w.\-]+/)+[\w.\-]+\.(?:{_EXTENSIONS}))(?![\w/*])")
_DOCUMENT = re.compile(r"(?<![\w.\-/])([A-Z][A-Z0-9_\-]*\.md)(?![\w/])")
_PLACEHOLDER = re.compile(r"(?<![a-z])[A-Z]{2,}(?![a-z])")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".yaml", ".yml", ".json", ".ipynb", ".txt", ".ini", ".cfg"}


def _is_template(path: str) -> bool:
    *folders, name = path.split("/")
    if any(_PLACEHOLDER.search(folder) for folder in folders if folder != ".."):
        return True
    stem = name.split(".")[0]
    # A stem all in capitals is a document (README.md); a placeholder only in any other file name.
    return not (name.endswith(".md") and _PLACEHOLDER.fullmatch(stem)) and bool(_PLACEHOLDER.search(stem))


def citations(text: str) -> list[str]:
    """The files ``text`` cites, in order, each once."""
    found = [m.group(1) for m in _PATH.finditer(text) if not _is_template(m.group(1))]
    found += [m.group(1) for m in _DOCUMENT.finditer(text)]
    return list(dict.fromkeys(found))


def resolves(citation: str, citing: Path, root: Path, bases: tuple[Path, ...] = ()) -> bool:
    """Whether ``citation`` in the file ``citing`` names a file inside ``root``."""
    root = root.resolve()
    folders = [folder for folder in (citing.resolve().parent, *citing.resolve().parents) if folder.is_relative_to(root)]
    for folder in (*folders, *(base.resolve() for base in bases)):
        target = (folder / citation).resolve()
        if target.is_relative_to(root) and target.is_file():
            return True
    return False


def missing(files: list[Path], root: Path, bases: tuple[Path, ...] = ()) -> list[str]:
    """``FILE: cites CITATION, which is not there`` for each citation of ``files`` not found, in
    the words of the paths relative to ``root``."""
    problems = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for citation in citations(text):
            if not resolves(citation, path, root, bases):
                problems.append(f"{path.relative_to(root)}: cites {citation}, which is not there")
    return problems
