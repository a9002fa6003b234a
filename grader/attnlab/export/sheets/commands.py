"""The command-line side of LMS CSVs, shared by ``attnlab grade`` and ``attnlab quiz grade``
(their options are ``options.LMS_OPTIONS`` here): the file written, with what it could not place."""

from __future__ import annotations

from pathlib import Path

from attnlab.errors import UserError, writing
from attnlab.export.sheets.grades import Score, score_sheet, sheet_csv
from attnlab.wording import count, points


def wants_sheet(roster_path, lms_format, lms_column) -> bool:
    """Whether the LMS options ask for a score sheet rather than the detailed CSV."""
    return roster_path is not None or lms_format is not None or lms_column is not None


def load_roster(path: Path | None):
    """The roster at ``path`` (None: none), read before any grading: a bad one is a one-line error."""
    from attnlab.intake.class_list import read_roster
    from attnlab.intake.roster import RosterError

    try:
        return read_roster(path) if path is not None else None
    except RosterError as error:
        raise UserError(str(error)) from None


def write_sheet(path: Path, scores: list[Score], roster, lms_format, column: str, say, excel: bool = False) -> None:
    """Write the score sheet to ``path`` and ``say`` (a line printer) what it could not place;
    ``excel``: with UTF-8's byte order mark (an LMS's import takes the sheet as it is saved by
    Excel, with one; not every one takes a sheet with one it did not ask for, so it is asked for)."""
    from attnlab.atomic import write_text_atomically

    sheet = score_sheet(lms_format or "csv", scores, roster, column)
    with writing(path):
        write_text_atomically(path, sheet_csv(sheet, bom=excel))
    if lms_format == "moodle" and sheet.possible:
        say(
            f"Moodle reads no maximum from a CSV: set the grade item's maximum grade to {points(sheet.possible)} before the import (a new grade item's is 100, and one grade above the maximum stops the import)"
        )
    if sheet.not_on_roster:
        say(
            f"{count(len(sheet.not_on_roster), 'student')} graded but not on the roster, written at the end without a name: {', '.join(sheet.not_on_roster)}"
        )
    for roster_id, ids in sheet.scored_twice.items():
        say(f"{' and '.join(ids)} are both roster student {roster_id} (by id and by email): their cell is left empty")
    if sheet.without_score and roster is not None:
        say(
            f"{count(len(sheet.without_score), 'student')} on the roster without a score (an empty cell, which the LMS leaves as it was): {', '.join(sheet.without_score)}"
        )


def refuse_without(target, roster_path, lms_format, lms_column, flag: str = "--csv") -> None:
    """LMS options without the CSV they shape are a one-line error."""
    if target is None and wants_sheet(roster_path, lms_format, lms_column):
        raise UserError(f"--roster, --format and --column shape the CSV: give {flag} FILE too")
