"""The errors a command reports in one line: what the user can fix, and what the grader could not do.

Their own module, so that the command groups registered on the main command (``quiz.commands``)
raise them without importing ``cli`` back.
"""

from __future__ import annotations

import click

EXIT_USAGE = 2


class UserError(click.ClickException):
    """A problem the user can fix; printed as one line, exit status 2."""

    exit_code = EXIT_USAGE

    def show(self, file=None) -> None:
        from attnlab.inert import terminal_text  # a message may name a student's file or id

        click.echo(terminal_text(f"attnlab: error: {self.format_message()}"), err=True)


class GraderError(UserError):
    """The grader could not grade (its sandbox, its reference, its results disk): one line,
    exit status 1, and nothing of it saved as a grade."""

    exit_code = 1
