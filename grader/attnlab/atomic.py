"""Write files so that a reader (or a crash) never sees half of one."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def write_json_atomically(path: Path, data: dict) -> None:
    """Write ``data`` as JSON so that a reader never sees half a file, even if we are killed midway."""
    write_text_atomically(path, json.dumps(data, indent=2))


def write_text_atomically(path: Path, text: str) -> None:
    """Write ``text`` through a temporary file and a rename: the old file or the new, never half."""
    write_bytes_atomically(path, text.encode("utf-8"))


def write_bytes_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` through a temporary file and a rename: the old file or the new, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)  # as an ordinary write would: mkstemp's 0600 is for secrets
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
