"""The options command groups share (``cli``, ``audit.command``, ``quiz.commands``, ``export.commands``), declared once."""

from __future__ import annotations

from pathlib import Path

import click

COURSE_OPTION = click.option(
    "--course",
    "course_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="The course folder (default: $ATTNLAB_COURSE, else the nearest folder above with exercises/course.toml).",
)


def limit_options(call_help: str, budget_help: str):
    """``--timeout``, ``--budget`` and ``--memory``: the limits a graded submission (``grade``) or
    mutant (``audit``) runs under, each command saying whose calls they bound."""
    options = (
        click.option("--timeout", type=click.FloatRange(min=0.1), default=2.0, show_default=True, help=call_help),
        click.option("--budget", type=click.FloatRange(min=1.0), default=60.0, show_default=True, help=budget_help),
        click.option(
            "--memory",
            "memory_mib",
            type=click.IntRange(min=64),
            default=1024,
            show_default=True,
            help="MiB of memory all of a submission's processes may hold together.",
        ),
    )

    def apply(command):
        for option in reversed(options):
            command = option(command)
        return command

    return apply
