"""Run pytest quietly inside the grader, and say in one line why it could not run."""

from __future__ import annotations

import contextlib
import io

import pytest

COMPLETED = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)


def run_captured(args: list[str], plugins: list) -> tuple[int, str]:
    """``pytest.main`` with its output captured: (exit code, what it printed)."""
    output = io.StringIO()
    with contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
        exit_code = pytest.main(args, plugins=plugins)
    return exit_code, output.getvalue()


def first_error_line(output: str, exit_code: int) -> str:
    """The line of pytest's output that says what went wrong, else its last line, else the exit code."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if "Error" in line or line.startswith("ERROR") or line.startswith("E ")]
    return (errors or lines[-1:] or [f"pytest exit code {exit_code}"])[0]
