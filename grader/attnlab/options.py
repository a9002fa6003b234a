"""The option every command group shares (``cli``, ``quiz.commands``, ``export.commands``), declared once."""

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
