"""The options of a grade sheet that ``attnlab grade`` and ``attnlab quiz grade`` share, declared once."""

from __future__ import annotations

from pathlib import Path

import click

LMS_FORMATS = ("canvas", "moodle", "csv")
"""The score sheets ``grades`` writes."""


def LMS_OPTIONS(command):
    """``--roster``, ``--format`` and ``--column`` of a gradebook CSV: which students, which LMS, which column."""
    command = click.option(
        "--column",
        "lms_column",
        metavar="NAME",
        default=None,
        help="The assignment (Canvas) or grade item (Moodle) the scores go to: the score column's name (default: the course's or the quiz's name).",
    )(command)
    command = click.option(
        "--format",
        "lms_format",
        type=click.Choice(LMS_FORMATS),
        default=None,
        help="The CSV's columns: canvas (Canvas's gradebook import), moodle (Moodle's grade import), csv (the roster's columns and the score). Default: the detailed CSV without --roster, csv with it.",
    )(command)
    command = click.option(
        "--roster",
        "roster_path",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="The class list: a class-list CSV (id, name, email, section: an LMS's or registrar's export) or a plain list of ids, one a line; for the CSV's names, emails and sections (attnlab grade: also whose a Canvas or Moodle download's ids are).",
    )(command)
    return command
