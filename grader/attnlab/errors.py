"""The errors a command reports in one line: what the user can fix, and what the grader could not do.

Their own module, so that the command groups registered on the main command (``quiz.commands``)
raise them without importing ``cli`` back. ``user_errors`` turns the library's own errors (each a
one-line message) into them at the edge, once per command; ``writing`` does it for a file a
command writes.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from pathlib import Path

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


def user_errors(*kinds: type[Exception]) -> Callable:
    """Decorate a command: an error of ``kinds`` it raises (a library error, whose message says in
    one line what the user can fix) is shown as a ``UserError``."""

    def decorate(command: Callable) -> Callable:
        @functools.wraps(command)
        def mapped(*args, **kwargs):
            try:
                return command(*args, **kwargs)
            except kinds as error:
                raise UserError(str(error)) from None

        return mapped

    return decorate


@contextlib.contextmanager
def writing(path: Path) -> Iterator[None]:
    """An ``OSError`` inside (a full disk, a folder not allowed) is a ``UserError`` naming ``path``."""
    try:
        yield
    except OSError as error:
        raise UserError(f"cannot write {path}: {error.strerror}") from None
