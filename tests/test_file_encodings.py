"""How a student's editor saved the files changes no score, in every sandbox mode: a UTF-8
byte-order mark (Notepad), Windows line endings, a coding line. A correct submission saved with a
BOM once got 276 of 280 in plain mode (Gradescope's): each test that expects a ValueError read
"crashed the worker: it exited with status 0", as the worker's private user could not load the
codec its traceback's source lines needed."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import COURSE, REPO

from attnlab.sandbox.mode import bwrap_path

BOM = b"\xef\xbb\xbf"
# softmax.py's bug: a name it never defined, raised from the student's own line.
BUGGY_SOFTMAX = (
    "def softmax(x, axis=-1):\n    weights = np.exp(x - x.max(axis=axis, keepdims=True))\n    return weights / total\n"
)


def saved_by_editors(folder: Path) -> Path:
    """The reference, each file saved as some editor saves it: two files with tests that expect a
    ValueError (whose message the worker reads back) with Windows line endings, one with a BOM
    too; masks.py with a Windows-1252 coding line and a byte of it; and a softmax.py saved with a
    BOM that raises."""
    folder.mkdir()
    for module, how in {"positions": "bom crlf", "heads": "crlf", "masks": "cp1252 crlf"}.items():
        text = (COURSE.solutions_dir / f"{module}.py").read_bytes()
        if "cp1252" in how:
            text = b"# -*- coding: cp1252 -*-\n" + text + b'\nCREDITS = "written in Zo\xeb\'s caf\xe9 \x80"\n'
        if "crlf" in how:
            text = text.replace(b"\n", b"\r\n")
        if "bom" in how:
            text = BOM + text
        (folder / f"{module}.py").write_bytes(text)
    reference = (COURSE.solutions_dir / "softmax.py").read_text()
    (folder / "softmax.py").write_bytes(BOM + (reference + "\n\n" + BUGGY_SOFTMAX).encode())
    return folder


def test_a_source_line_that_cannot_be_read_never_hides_the_students_error(tmp_path):
    """The worker reads the student's lines for the frames it reports after their code raised: a
    line it cannot read (a codec its user cannot load, a loader that fails) leaves its frame
    without the code, and the student's error is still told, never "crashed the worker"."""
    from attnlab.sandbox.inside.worker import _describe_exception

    class Loader:
        def get_source(self, name):
            raise LookupError("unknown encoding: utf-8-sig")  # what the codec's lookup raised

    namespace = {"__name__": "softmax", "__loader__": Loader()}  # no file on disk: lines come from the loader
    exec(compile("def softmax(x):\n    return x / total\n", str(tmp_path / "softmax.py"), "exec"), namespace)
    with pytest.raises(NameError) as raised:
        namespace["softmax"](1.0)
    described = _describe_exception(raised.value, str(tmp_path), "softmax")
    assert (described["type"], described["message"]) == ("NameError", "name 'total' is not defined")
    assert described["frames"] == ["softmax.py:2 in softmax: "]


@pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)
@pytest.mark.skipif(os.geteuid() != 0, reason="the modes differ only when the grader runs as root")
@pytest.mark.parametrize("mode", ["bwrap", "plain"])
def test_how_a_file_was_saved_changes_no_score_and_hides_no_error_in_any_mode(tmp_path, mode):
    if mode == "bwrap" and bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    submission = saved_by_editors(tmp_path / "student")
    environment = {**os.environ, "ATTNLAB_SANDBOX": "plain"} if mode == "plain" else os.environ
    only = [arg for module in ("positions", "heads", "masks", "softmax") for arg in ("--only", module)]
    result = subprocess.run(
        [sys.executable, "-m", "attnlab.cli", "grade", submission, *only, "--json", tmp_path / "results.json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env=environment,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert ("bubblewrap sandbox" in result.stdout) == (mode == "bwrap"), result.stdout[-1500:]
    tests = json.loads((tmp_path / "results.json").read_text())["tests"]
    lost = [
        f"{t['name']}: {t['output'][:300]}" for t in tests if t["score"] < t["max_score"] and "softmax" not in t["tags"]
    ]
    assert not lost, "\n".join(lost)
    assert {"positions", "heads", "masks"} <= {tag for t in tests for tag in t["tags"]}
    softmax = [" ".join(t["output"].split()) for t in tests if "softmax" in t["tags"] and "error" in t["tags"]]
    assert softmax, [t["name"] for t in tests if "softmax" in t["tags"]]
    for output in softmax:  # the student's own error, and the line of theirs that raised it
        assert "NameError: name 'total' is not defined" in output, output
        assert "softmax.py:" in output and "in softmax: return weights / total" in output, output
