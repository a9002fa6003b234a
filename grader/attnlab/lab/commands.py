"""``attnlab lab``: the capstone labs, run on the student's own code. ``induction`` is the first."""

from __future__ import annotations

from pathlib import Path

import click

from attnlab.course import CourseError, find_course
from attnlab.errors import user_errors, writing
from attnlab.lab.student import LabError
from attnlab.lab.settings import Settings
from attnlab.options import COURSE_OPTION

library_errors = user_errors(CourseError, LabError)


@click.group()
def lab() -> None:
    """Capstone labs: train a small model built from your own exercises and watch what it learns.

    \b
    attnlab lab induction   a two-layer model of your MultiHeadSelfAttention forms an induction head
    """


@lab.command()
@click.argument("folder", type=click.Path(path_type=Path), required=False)
@click.option("--steps", type=click.IntRange(min=1), default=None, help=f"Training steps (default: {Settings.steps}).")
@click.option("--seed", type=int, default=0, show_default=True, help="The seed of the model's weights and of the data.")
@click.option(
    "--out",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("lab-induction"),
    show_default=True,
    help="Folder for induction.png, induction.html and induction.json.",
)
@COURSE_OPTION
@library_errors
def induction(folder: Path | None, steps: int | None, seed: int, out: Path, course_dir: Path | None) -> None:
    """Watch induction heads form in a model built from your own attention.

    A two-layer, attention-only model of your MultiHeadSelfAttention (torch_attention.py in
    FOLDER, default: the course's exercises/) learns to predict sequences made of a random half
    and the same half again. The second half can only be predicted by looking back: find the
    earlier copy of the current token, and predict what came after it. Two heads working
    together do it: a previous-token head in layer 1, and an induction head in layer 2 that
    reads what it wrote. Each head is scored with your own heads.py (previous_token_score and
    induction_score): write them before the lab.

    Under a minute on one CPU core. Writes induction.png, induction.html and
    induction.json into --out.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.text import Text

    from attnlab import console
    from attnlab.lab import report, student
    from attnlab.lab.training import train

    course = find_course(course_dir)
    folder = folder or course.exercises_dir
    settings = Settings(seed=seed) if steps is None else Settings(seed=seed, steps=steps)
    code = student.load(course, folder)
    student.ready_class(code, settings.d_model, settings.n_heads)
    scorers = student.scorers(code)
    pieces = student.pieces(code)
    notes: list[str] = []
    progress = Progress(
        TextColumn("training"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[losses]}"),
        TimeElapsedColumn(),
        console=console.err,
        transient=True,
    )
    with progress:
        task = progress.add_task("training", total=settings.steps, losses="")

        def on_record(record) -> None:
            best = max(record.induction[-1])
            progress.update(
                task,
                losses=f"loss: first half {record.loss_first:.2f}, repeated {record.loss_repeated:.2f} · best induction {best:.2f}",
            )

        try:
            run = train(
                code.attention_class,
                settings,
                scorers,
                on_record=on_record,
                on_step=lambda step: progress.update(task, completed=step),
                pieces=pieces,
            )
        except LabError:
            raise
        except Exception as error:  # noqa: BLE001 - the student's code (a module or a scorer) during training
            function, where = student.where_raised(error, code.folder)
            raise LabError(f"training stopped: your code raised {student.first_line(error)}{where}") from None
    if not run.patterns_are_its_own:
        line = (
            "the patterns drawn are recomputed with the lesson's head split and 1/√d_head scale, and they do not rebuild "
            "your MultiHeadSelfAttention's output: your module attends another way, so they are not its own "
            "(attnlab check --track torch says what differs)"
        )
        notes.append(line)
        console.err.print(Text(f"· {line}", style="yellow"))
    checked, forward_ok = report.forward_line(run)
    if checked and not forward_ok:
        notes.append(checked)
        console.err.print(Text(f"· {checked}", style="yellow"))
    with writing(out):
        written, missing = report.write_outputs(run, out, notes)
    if missing:
        console.err.print(Text(f"· {missing}", style="yellow"))
    found = report.summary(run)
    console.out.print(Text(f"attnlab lab induction · {folder}", style="bold"))
    for line in report.summary_lines(found):
        console.out.print(Text(f" {line}"))
    if checked and forward_ok:
        console.out.print(Text(f" {checked}"))
    console.out.print(Text(f" wrote {', '.join(str(p) for p in written)}", style="dim"))
