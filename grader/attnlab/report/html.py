"""A per-submission HTML report an instructor can open or hand back: summary, feedback, heatmaps.

One self-contained file, no scripts and no external resources: every heatmap
is inline SVG (expected next to got, leaked masked cells outlined in red).
"""

from __future__ import annotations

import html
import math

from attnlab.outcomes import Outcome
from attnlab.results import ABOUT_HEADING, NOT_GRADED_HEADING, GradeReport, TestResult
from attnlab.wording import count, points, score

CELL = 34

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 2em; }
table.summary { border-collapse: collapse; } table.summary td, table.summary th { padding: .2em .8em; border-bottom: 1px solid #ddd; text-align: left; }
td.num { text-align: right; } .passed { color: #1a7f37; } .failed, .error { color: #c62828; } .other { color: #8e24aa; }
.test { border-left: 4px solid #c62828; padding: .2em 1em; margin: 1em 0; background: #fafafa; }
pre { white-space: pre-wrap; font-size: .9em; }
.pictures { display: flex; gap: 2em; flex-wrap: wrap; } figure { margin: 0; } figcaption { font-size: .85em; color: #555; }
"""


def _colour(value: float) -> str:
    """White (0) to blue (1) for weights; grey for nan."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "#bbbbbb"
    t = max(0.0, min(1.0, abs(value)))
    r, g, b = (int(255 - t * (255 - c)) for c in (21, 101, 192))
    return f"rgb({r},{g},{b})"


def heatmap_svg(matrix: list[list[float]], leaked: list[list[bool]] | None = None) -> str:
    rows, columns = len(matrix), len(matrix[0])
    cells = []
    for i, row in enumerate(matrix):
        for j, value in enumerate(row):
            x, y = j * CELL, i * CELL
            stroke = ' stroke="#c62828" stroke-width="3"' if leaked and leaked[i][j] else ' stroke="#ffffff"'
            text = "nan" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.2f}"
            ink = "#ffffff" if text != "nan" and abs(value) > 0.6 else "#222222"
            cells.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{_colour(value)}"{stroke}/>')
            cells.append(
                f'<text x="{x + CELL / 2}" y="{y + CELL / 2 + 4}" font-size="10" text-anchor="middle" fill="{ink}">{text}</text>'
            )
    width, height = columns * CELL, rows * CELL
    return f'<svg xmlns="http://www.w3.org/2000/svg" class="heatmap" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">{"".join(cells)}</svg>'


def _pictures(test: TestResult) -> str:
    picture = test.picture
    if not picture:
        return ""
    figures = []
    if picture.get("expected") is not None:
        figures.append(f"<figure>{heatmap_svg(picture['expected'])}<figcaption>expected</figcaption></figure>")
    caption = "got" + (" (red: masked cells that leaked weight)" if picture.get("leaked") else "")
    figures.append(
        f"<figure>{heatmap_svg(picture['got'], picture.get('leaked'))}<figcaption>{html.escape(caption)}</figcaption></figure>"
    )
    return f'<p>{html.escape(picture.get("title", ""))} (first slice, up to 8 × 8):</p><div class="pictures">{"".join(figures)}</div>'


def page(title: str, body: str) -> str:
    """One self-contained page: its style inline, no script, no outside resource. ``title`` and
    ``body`` are HTML already escaped."""
    return f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title><style>{STYLE}</style></head><body>{body}</body></html>\n'


def render_not_graded_html(name: str, error: str) -> str:
    """The page of a submission that could not be graded: why, and no points."""
    title = f"attnlab report · {html.escape(name)}"
    return page(
        title,
        f"<h1>{title}</h1><p><strong>Not graded: 0 points.</strong> Your submission could not be graded:</p><pre>{html.escape(error)}</pre>",
    )


def render_html(report: GradeReport, name: str | None = None) -> str:
    """The report of one graded submission, titled with ``name`` (default: the submission as
    handed in; a student's copy names the student, not the instructor's folders). How the sandbox
    ran is not on it: that is the instructor's (the terminal, the class page)."""
    functions: dict[str, list[TestResult]] = {}
    for test in report.tests:
        functions.setdefault(test.function, []).append(test)
    rows = []
    for function, tests in functions.items():
        passed = sum(t.outcome is Outcome.PASSED for t in tests)
        css = "passed" if passed == len(tests) else "failed"
        rows.append(
            f'<tr><td>{html.escape(tests[0].module)}.py</td><td>{html.escape(function)}</td><td class="num">{passed}/{len(tests)}</td>'
            f'<td class="num">{score(sum(t.score for t in tests), sum(t.max_score for t in tests))}</td><td class="{css}">{"all passed" if css == "passed" else "see below"}</td></tr>'
        )
    failing = []
    missing = report.files_not_imported()
    for module, tests in missing.items():  # once a file: every one of its tests says the same
        failing.append(
            f'<section class="test"><h3>{html.escape(module)}.py <span class="error">({count(len(tests), "test")}, '
            f"{score(0, sum(t.max_score for t in tests))})</span></h3><pre>{html.escape(tests[0].feedback)}</pre></section>"
        )
    unimported = {id(t) for tests in missing.values() for t in tests}
    for test in (t for t in report.tests if t.outcome is not Outcome.PASSED and id(t) not in unimported):
        css = {Outcome.FAILED: "failed", Outcome.ERROR: "error"}.get(test.outcome, "other")
        printed = f"<p>Your code printed:</p><pre>{html.escape(test.output)}</pre>" if test.output else ""
        failing.append(
            f'<section class="test"><h3>{html.escape(test.name)} <span class="{css}">({html.escape(test.outcome.value)}, '
            f"{score(test.score, test.max_score)})</span></h3><pre>{html.escape(test.feedback)}</pre>{_pictures(test)}{printed}</section>"
        )
    percent = 100 * report.score / report.max_score if report.max_score else 0
    title = f"attnlab report · {html.escape(report.submission if name is None else name)}"
    return page(
        title,
        f"<h1>{title}</h1>"
        f"<p><strong>{points(report.score)} / {points(report.max_score)}</strong> ({percent:.0f}%) · graded in {report.duration:.1f} s</p>"
        + (f'<p class="check-only">{html.escape(report.check_only_line())}</p>' if report.check_only_line() else "")
        + "".join(
            f'<h2>{heading}</h2><ul class="{css}">{"".join(f"<li>{html.escape(line)}</li>" for line in lines)}</ul>'
            for heading, css, lines in (
                (ABOUT_HEADING, "notes", report.notes),
                (NOT_GRADED_HEADING, "not-graded", report.not_graded),
            )
            if lines
        )
        + '<table class="summary"><tr><th>file</th><th>function</th><th>tests</th><th>points</th><th>status</th></tr>'
        + "".join(rows)
        + "</table>"
        + (f"<h2>What went wrong</h2>{''.join(failing)}" if failing else "<h2>Every hidden test passed.</h2>"),
    )
