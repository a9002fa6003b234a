"""The sandbox mode is one object that knows what it mounts, cleans and reports; and a class is
graded through the one procedure a submission alone is."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from attnlab.sandbox.environment import SandboxEnvironment
from attnlab.sandbox.mode import BUBBLEWRAP, CONTAINER, IMPORTS_FOLDER, NONE, PRIVATE_USER, SandboxMode

ENGINE = Path(__file__).resolve().parents[1] / "grader" / "attnlab"
MODES = {
    BUBBLEWRAP: SandboxMode(1_900_000_001, "/usr/bin/bwrap", True),
    PRIVATE_USER: SandboxMode(1_900_000_001, None, True),
    CONTAINER: SandboxMode(1_900_000_001, None, False),
    NONE: SandboxMode(None, None, False),
}


@pytest.mark.parametrize("kind", MODES)
def test_each_mode_says_what_it_is_and_what_it_guarantees(kind):
    mode = MODES[kind]
    assert mode.kind == kind
    words = mode.describe(groups=False)
    assert ("bubblewrap sandbox" in words) == (kind == BUBBLEWRAP)
    assert ("NOT isolated" in words) == (kind == NONE)
    assert ("no CAP_SYS_ADMIN" in words) == (kind == CONTAINER)
    assert ("memory folder of its own" in words) == (kind in (BUBBLEWRAP, PRIVATE_USER))
    if kind != NONE:
        assert "private user (uid 1900000001)" in words
        assert "a private user per grading process" in mode.describe(False, "a private user per grading process")
        assert ("control groups" in mode.describe(groups=True)) and "no control groups" not in mode.describe(
            groups=True
        )


@pytest.mark.parametrize("kind", MODES)
def test_only_bubblewrap_mounts_and_only_the_others_link_what_it_would_mount(kind, tmp_path):
    mode = MODES[kind]
    environment = SandboxEnvironment.for_libraries()
    mode.prepare(tmp_path, environment)
    command = mode.fork_server_command(tmp_path, environment, "{}", 7)
    if kind == BUBBLEWRAP:
        assert not (tmp_path / IMPORTS_FOLDER).exists()
        assert command[0] == "/usr/bin/bwrap" and "--unshare-net" in command and "--unshare-pid" in command
        assert command[command.index("--bind") + 1] == str(tmp_path)  # the work folder, and no other writable path
        assert command.count("--bind") == 1
    else:
        assert (tmp_path / IMPORTS_FOLDER / "engine" / "attnlab" / "wire.py").is_symlink()
        assert (
            "--unshare-net" not in command
            and str(tmp_path / IMPORTS_FOLDER / "engine") in command[command.index("-c") + 1]
        )
    assert command[-2:] == ["7", "{}"]


def test_a_full_memory_folder_is_explained_only_where_the_worker_has_one():
    full = "OSError: [Errno 28] No space left on device"
    assert "MiB of files" in MODES[PRIVATE_USER].explain_problem(full)
    assert MODES[CONTAINER].explain_problem(full) == full


def test_a_class_grades_through_the_one_procedure():
    """No second grader: the class's grading process calls ``grading.suite.grade`` as one
    submission alone does, and nothing in the engine runs a student's code another way."""
    session = (ENGINE / "classroom" / "session.py").read_text(encoding="utf-8")
    assert "from attnlab.grading.suite import grade" in session
    for path in sorted(ENGINE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        found = re.findall(r"watching|watch_batch|call_batch|decide=", text)
        assert not found, f"{path.relative_to(ENGINE)} mentions {sorted(set(found))}"


def test_no_module_of_the_sandbox_works_out_the_mode_for_itself():
    """One object decides the mode: the rest asks it, not bubblewrap's path or the user id."""
    for path in sorted((ENGINE / "sandbox").glob("*.py")):
        if path.name == "mode.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\bbwrap_path\(\)|\bprivate_uid\(\)|private_mounts_possible\(\)", text), path.name
