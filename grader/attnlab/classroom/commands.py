"""``attnlab gradebook``: a class's results folders after grading (merging the shards of one class)."""

from __future__ import annotations

from pathlib import Path

import click

from attnlab.errors import UserError


@click.group()
def gradebook() -> None:
    """A class's gradebook: merge the results of a class graded in shards (attnlab grade --shard K/N)."""


@gradebook.command()
@click.argument(
    "results", metavar="RESULTS...", nargs=-1, required=True, type=click.Path(path_type=Path, file_okay=False)
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="The results folder to merge into (for example CLASS.results/): its gradebook.sqlite is rebuilt from the shards' results.",
)
def merge(results, output) -> None:
    """Merge the results folders of the N shards of one class into one results folder and gradebook.

    Each shard (attnlab grade CLASS --shard K/N) writes its own results folder. Merging refuses,
    in one line, folders of different classes or splits, shards graded by different graders
    (hidden tests, reference, limits, engine), a shard given twice and a shard missing. Grading
    the class again with --results OUTPUT grades nothing that is current and writes the CSV.
    """
    from attnlab import console
    from attnlab.classroom.gradebook import ResultsNotSaved
    from attnlab.classroom.shards import MergeRefused, merge as merge_shards
    from attnlab.wording import count

    try:
        merged = merge_shards(list(results), output)
    except (MergeRefused, ResultsNotSaved) as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot merge into {output}: {error.strerror or error}") from None
    console.err.print(
        f"Merged {count(merged.shards, 'shard')}: {count(merged.students, 'student')} in {merged.folder / 'gradebook.sqlite'}"
    )
