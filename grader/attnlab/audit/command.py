"""``attnlab audit``: the hidden suite's mutation score, as a command."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from attnlab.course import CourseError, find_course
from attnlab.errors import GraderError, UserError, user_errors, writing
from attnlab.lifecycle import interrupted_by_termination
from attnlab.options import COURSE_OPTION, limit_options
from attnlab.wording import count

library_errors = user_errors(CourseError)


@click.command()
@click.option(
    "--only", multiple=True, metavar="FILE", help="Audit only this exercise file (e.g. masks); repeat for more."
)
@click.option(
    "--track", "tracks", multiple=True, metavar="NAME", help="Audit only this track's files: numpy, or torch."
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Mutants graded at once (default: the machine's cores, fewer where memory is short).",
)
@click.option(
    "--markdown",
    "markdown_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the summary (scores, survivors' diffs, equivalent mutants) as Markdown to this file.",
)
@click.option(
    "--fail-under",
    type=click.FloatRange(min=0, max=100),
    default=None,
    metavar="PERCENT",
    help="Exit 1 when a function's score is under PERCENT, or the equivalent list is wrong or stale.",
)
@limit_options(
    "Seconds of CPU time one call of a mutant may take (as a student's, in grading).",
    "Seconds of CPU time all of one mutant's calls may take together.",
)
@COURSE_OPTION
@library_errors
def audit(only, tracks, jobs, markdown_path, fail_under, timeout, budget, memory_mib, course_dir) -> None:
    """Would the hidden tests catch a bug? Grade every mutant of the solutions and score the tests.

    \b
    Each mutant is the reference solution file with one small change made by
    mutmut's operators (+ becomes -, < becomes <=, an argument dropped, a
    number plus 1, ...) inside a solution region. All mutants are graded as one
    class, by the grader students are graded by, each on its own file. A mutant
    is killed when a hidden test fails on it, survives when every test passes.

    The score of a function is the share of its mutants killed (or timed out),
    leaving out the reviewed equivalent mutants listed, each with its reason, in
    solutions/equivalent_mutants.toml. Survivors are shown with their diffs.
    """
    from attnlab import console
    from attnlab.atomic import write_text_atomically

    try:
        from attnlab.audit.run import run_audit
    except ImportError as missing:
        if missing.name not in ("mutmut", "libcst") and not (missing.name or "").startswith(("mutmut.", "libcst.")):
            raise
        raise UserError(
            "attnlab audit makes its mutants with mutmut: pip install 'attnlab[audit]' (or mutmut==3.8.1)"
        ) from None
    from attnlab.audit.equivalents import EQUIVALENTS_FILE
    from attnlab.audit.progress import AuditProgress
    from attnlab.audit.summary import below, render_markdown, render_terminal
    from attnlab.outcomes import GraderFailure
    from attnlab.sandbox.host import Limits, describe_mode

    course = find_course(course_dir)
    modules = course.select(only, tracks) or list(course.modules)
    limits = Limits(call_seconds=timeout, memory_bytes=memory_mib << 20, submission_seconds=budget)
    from attnlab.lifecycle import keep_hypothesis_in_scratch

    keep_hypothesis_in_scratch()
    sandbox = describe_mode()
    console.err.print(f"Sandbox: {sandbox}")
    progress = AuditProgress(console.err)

    def mutants_made(total: int, slots: int, memory_note: str | None) -> None:
        if memory_note:
            console.err.print(memory_note, style="yellow", markup=False)
        console.err.print(
            f"{count(total, 'mutant')} of {', '.join(f'{m}.py' for m in modules)}, graded {slots} at a time; recording the reference's run of their hidden tests …"
        )
        progress.expect(total)

    try:
        with interrupted_by_termination():
            result = run_audit(
                course,
                modules,
                limits,
                jobs=jobs,
                on_mutants=mutants_made,
                on_ready=progress.start,
                on_judged=progress.judged,
            )
    except KeyboardInterrupt:
        progress.stop()
        console.err.print("Interrupted: no score was made.")
        sys.exit(130)
    except GraderFailure as failure:
        raise GraderError(f"audit stopped: {failure}; no score was made of it") from None
    finally:
        progress.stop()
    render_terminal(result, console.out, None if fail_under is None else fail_under / 100)
    if markdown_path is not None:
        with writing(markdown_path):
            write_text_atomically(markdown_path, render_markdown(result, sandbox))
        console.err.print(f"Wrote {markdown_path}")
    if fail_under is not None:
        short = below(result, fail_under / 100)
        wrong = [v for v in result.verdicts if v.listed_wrongly]
        problems = (
            [f"{s.function} at {100 * s.score:.1f}%" for s in short]
            + [f"{count(len(wrong), 'mutant')} listed as equivalent but caught"] * bool(wrong)
            + [f"{count(len(result.stale), 'stale entry', 'stale entries')} in {EQUIVALENTS_FILE}"] * bool(result.stale)
        )
        if problems:
            raise GraderError(f"the audit falls short of {fail_under:g}%: {'; '.join(problems)}")
