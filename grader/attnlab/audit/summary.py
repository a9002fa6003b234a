"""An audit for people: a table of scores and the survivors' diffs, in the terminal and in Markdown."""

from __future__ import annotations

from rich import box
from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from attnlab.audit.run import Audit
from attnlab.audit.verdicts import EQUIVALENT, SURVIVED, FunctionScore, overall, scores
from attnlab.wording import count


def percent(score: float | None) -> str:
    """A score as people read it: ``97.9%``; ``n/a`` when every mutant is equivalent."""
    return "n/a" if score is None else f"{100 * score:.1f}%"


def below(audit: Audit, threshold: float) -> list[FunctionScore]:
    """The functions whose score is under ``threshold`` (a fraction)."""
    return [s for s in scores(list(audit.verdicts)) if s.score is not None and s.score < threshold]


def headline(audit: Audit) -> str:
    total = overall(scores(list(audit.verdicts)))
    return (
        f"{count(total.mutants, 'mutant')} of {', '.join(f'{m}.py' for m in audit.modules)}: "
        f"{total.killed} killed, {total.timed_out} timed out, {total.survived} survived, {total.equivalent} equivalent; "
        f"score {percent(total.score)}, in {audit.seconds:.0f} s with {count(audit.jobs, 'grading process', 'grading processes')}"
    )


def _rows(audit: Audit) -> list[tuple[str, ...]]:
    function_scores = scores(list(audit.verdicts))
    rows = [
        (
            f"{s.module}.py",
            s.function,
            str(s.mutants),
            str(s.killed),
            str(s.timed_out),
            str(s.survived),
            str(s.equivalent),
            percent(s.score),
        )
        for s in function_scores
    ]
    total = overall(function_scores)
    rows.append(
        (
            "all",
            "",
            str(total.mutants),
            str(total.killed),
            str(total.timed_out),
            str(total.survived),
            str(total.equivalent),
            percent(total.score),
        )
    )
    return rows


_COLUMNS = ("file", "function", "mutants", "killed", "timed out", "survived", "equivalent", "score")


def render_terminal(audit: Audit, console: Console, threshold: float | None = None) -> None:
    """The score table, then each survivor with its diff, then what is wrong with the list."""
    table = Table(
        title="Mutation score of the hidden tests",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
    )
    rows = _rows(audit)
    table.add_column("function", overflow="fold")  # a name too long for the terminal folds, never loses its end
    for column in _COLUMNS[2:]:
        table.add_column(
            "equiv." if column == "equivalent" else column, justify="right", no_wrap=column != "timed out", min_width=5
        )
    for row in rows:
        short = (
            threshold is not None
            and row[-1] != "n/a"
            and row[0] != "all"
            and float(row[-1].rstrip("%")) < 100 * threshold
        )
        table.add_row(row[1] or row[0], *row[2:], style="red" if short else ("bold" if row[0] == "all" else None))
    console.print(table)
    survivors = [v for v in audit.verdicts if v.status == SURVIVED]
    if survivors:
        console.print(
            Text(f"\nSurvivors ({len(survivors)}): no hidden test tells these from the reference", style="bold")
        )
        for verdict in survivors:
            mutant = verdict.mutant
            diff = Text()
            for line in mutant.diff.splitlines():
                diff.append(
                    line + "\n",
                    style="red"
                    if line.startswith("-") and not line.startswith("---")
                    else "green"
                    if line.startswith("+") and not line.startswith("+++")
                    else "dim",
                )
            console.print(Group(Text(f"{mutant.id} ({mutant.module}.py line {mutant.line})", style="yellow"), diff))
    for verdict in audit.verdicts:
        if verdict.listed_wrongly:
            console.print(
                Text(
                    f"Listed as equivalent, but {verdict.status} by {verdict.caught_by[0]}: {verdict.mutant.id} ({verdict.mutant.before!r} -> {verdict.mutant.after!r}); remove it from the list",
                    style="red",
                )
            )
    for entry in audit.stale:
        console.print(
            Text(
                f"Stale entry in the equivalent list: {entry.file}.{entry.function} {entry.before!r} -> {entry.after!r} matches no mutant any more",
                style="yellow",
            )
        )
    console.print(Text(headline(audit), style="bold"))


def _fence(text: str) -> str:
    """A Markdown code fence longer than any run of backticks in ``text``."""
    longest = max((len(run) for run in text.replace("\n", " ").split(" ") if set(run) == {"`"}), default=0)
    return "`" * max(3, longest + 1)


def render_markdown(audit: Audit, sandbox: str) -> str:
    """The audit as a Markdown page: scores, survivors with diffs, the equivalent mutants left out."""
    lines = ["# Mutation audit of the hidden tests", "", headline(audit) + ".", "", f"Sandbox: {sandbox}.", ""]
    lines.append("| " + " | ".join(_COLUMNS) + " |")
    lines.append("|" + "|".join(":--" if c in ("file", "function") else "--:" for c in _COLUMNS) + "|")
    for row in _rows(audit):
        cells = [f"**{cell}**" if row[0] == "all" and cell else cell for cell in row]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    survivors = [v for v in audit.verdicts if v.status == SURVIVED]
    lines += ["", f"## Survivors ({len(survivors)})", ""]
    if not survivors:
        lines.append("None: every non-equivalent mutant is caught by a hidden test.")
    for verdict in survivors:
        mutant = verdict.mutant
        fence = _fence(mutant.diff)
        lines += [
            f"### `{mutant.function}` ({mutant.id}), {mutant.module}.py line {mutant.line}",
            "",
            f"{fence}diff",
            mutant.diff.rstrip("\n"),
            fence,
            "",
        ]
    wrong = [v for v in audit.verdicts if v.listed_wrongly]
    if wrong:
        lines += ["", "## Listed as equivalent, but caught", ""]
        lines += [
            f"- `{v.mutant.id}`: `{v.mutant.before}` → `{v.mutant.after}`, caught by {v.caught_by[0]}" for v in wrong
        ]
    if audit.stale:
        lines += ["", "## Stale entries of the equivalent list", ""]
        lines += [f"- `{e.file}.{e.function}`: `{e.before}` → `{e.after}` matches no mutant" for e in audit.stale]
    equivalent = [v for v in audit.verdicts if v.status == EQUIVALENT]
    lines += ["", f"## Equivalent mutants, left out of the score ({len(equivalent)})", ""]
    lines += [
        f"- `{v.mutant.id}`: `{v.mutant.before}` → `{v.mutant.after}`: {v.equivalence.reason}" for v in equivalent
    ]
    return "\n".join(lines).rstrip("\n") + "\n"
