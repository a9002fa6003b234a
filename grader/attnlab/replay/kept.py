"""The reference's recorded run, kept in a class's results folder for the next run.

Recording (``recording.record_script``) runs the hidden suite against the reference:
about 2.5 s for the numpy track and 5 s more for torch, paid by every class run
that grades anything, a one-student regrade included. The recording depends only
on the course (hidden tests, reference), the engine and the libraries that
computed it, so a run keeps it beside the results and the next run with the same
key loads it instead.

The file is a pickle, written by the grader into the instructor's results
folder, which no student code can reach (the sandbox sees only its submission).
Its key is checked before anything is unpickled; a file that does not load is
recorded again.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import pickle
import sys
from pathlib import Path

import attnlab
from attnlab.atomic import write_bytes_atomically
from attnlab.replay.script import Script

CACHE_NAME = ".reference-script.pickle"
# The libraries whose numbers are in the recording.
_LIBRARIES = ("numpy", "torch", "hypothesis", "pytest")


def script_key(grader_fingerprint: str) -> bytes:
    """What a recording depends on: the grader's fingerprint (course, engine version, files
    graded), the engine's source, the libraries' versions and Python's."""
    digest = hashlib.sha256(f"{grader_fingerprint}\n{sys.version}\n".encode())
    for name in _LIBRARIES:
        try:
            digest.update(f"{name}=={importlib.metadata.version(name)}\n".encode())
        except importlib.metadata.PackageNotFoundError:
            digest.update(f"{name} absent\n".encode())
    engine = Path(attnlab.__file__).parent
    for path in sorted(engine.rglob("*.py")):
        digest.update(str(path.relative_to(engine)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest().encode()


def load_script(folder: Path, key: bytes) -> Script | None:
    """The recording kept in ``folder`` under ``key``, or None (absent, another key, unreadable)."""
    try:
        with open(Path(folder) / CACHE_NAME, "rb") as stream:
            if stream.readline().rstrip(b"\n") != key:
                return None
            script = pickle.load(stream)
    except Exception:  # noqa: BLE001 - a cache: whatever is wrong with it, record again
        return None
    return script if isinstance(script, Script) else None


def save_script(folder: Path, key: bytes, script: Script) -> None:
    """Keep ``script`` in ``folder`` for the next run (silently not, when it cannot be written)."""
    try:
        write_bytes_atomically(
            Path(folder) / CACHE_NAME, key + b"\n" + pickle.dumps(script, protocol=pickle.HIGHEST_PROTOCOL)
        )
    except (OSError, pickle.PicklingError):
        pass
