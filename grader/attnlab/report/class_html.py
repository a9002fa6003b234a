"""A class's summary as one self-contained page: the score chart (inline SVG), the files students
could not hand in importable, the tests most students answered wrong and why, and each student's
score with a link to their feedback page (``feedback.html`` in their folder, beside this page).

Every student's word on it (ids, errors, the first lines of feedback) is escaped.
"""

from __future__ import annotations

import html
from urllib.parse import quote

from attnlab.misconceptions import Misconception
from attnlab.report.class_figures import (
    files_not_importable,
    most_failed,
    names_of,
    not_graded_lines,
    percentages,
    score_histogram,
)
from attnlab.intake.misnamed import for_instructor
from attnlab.report.html import page
from attnlab.wording import count, points
from attnlab.report.sandbox_line import without_uids

BAR_WIDTH, BAR_GAP, CHART_HEIGHT = 44, 8, 160


def score_chart_svg(scores: list[float]) -> str:
    """The score distribution as bars, one per tenth of the maximum and one for full marks,
    each labelled with its range and its number of students."""
    rows = score_histogram(scores)
    top = max((students for _, students, _ in rows), default=0) or 1
    step = BAR_WIDTH + BAR_GAP
    shapes = []
    for index, (label, students, _) in enumerate(rows):
        x = index * step
        height = round((CHART_HEIGHT - 20) * students / top)
        y = CHART_HEIGHT - height
        shapes.append(
            f'<rect class="bar" x="{x}" y="{y}" width="{BAR_WIDTH}" height="{height}" fill="#1565c0"><title>{html.escape(label.replace(" ", ""))}: {count(students, "student")}</title></rect>'
        )
        if students:
            shapes.append(
                f'<text x="{x + BAR_WIDTH / 2}" y="{y - 4}" font-size="12" text-anchor="middle">{students}</text>'
            )
        shapes.append(
            f'<text x="{x + BAR_WIDTH / 2}" y="{CHART_HEIGHT + 16}" font-size="10" text-anchor="middle">{html.escape(label.replace(" ", ""))}</text>'
        )
    width, height = len(rows) * step, CHART_HEIGHT + 24
    return f'<svg xmlns="http://www.w3.org/2000/svg" class="score-chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" aria-label="score distribution">{"".join(shapes)}</svg>'


def _student_rows(results: list[dict], maximum: float, linked: set[str]) -> str:
    rows = []
    for data in results:
        student = str(data.get("student", "?"))
        shown = html.escape(student)
        cell = f'<a href="{html.escape(quote(student))}/feedback.html">{shown}</a>' if student in linked else shown
        report = data.get("report")
        if report is None:
            rows.append(
                f'<tr><td>{cell}</td><td class="num">0</td><td class="error">not graded: {html.escape(for_instructor(str(data.get("error") or "no result")))}</td></tr>'
            )
        else:
            percent = 100 * (report.get("score") or 0) / maximum if maximum else 0
            rows.append(
                f'<tr><td>{cell}</td><td class="num">{points(report.get("score", 0))}</td><td>{percent:.0f}%</td></tr>'
            )
    return "".join(rows)


def render_class_html(
    class_name: str, results: list[dict], catalogue: list[Misconception], linked: set[str] = frozenset()
) -> str:
    """The class page of ``results`` (stored results' data); students in ``linked`` have a
    feedback page to link to."""
    scores = percentages(results)
    maximum = max(((d.get("report") or {}).get("max_score") or 0 for d in results), default=0)
    title = f"attnlab class summary · {html.escape(class_name)}"
    parts = [f"<h1>{title}</h1>"]
    if scores:
        mean = sum(scores) / len(scores)
        full = sum(p >= 100 for p in scores)
        not_graded = sum(d.get("report") is None for d in results)
        parts.append(
            f"<p>{count(len(results), 'submission')} · mean score {mean:.1f}% of {count(maximum, 'point')} · full marks {full} of {len(scores)} · not graded {not_graded}</p>"
        )
        parts.append(f"<h2>Score distribution</h2>{score_chart_svg(scores)}")
    files = files_not_importable(results)
    if files:
        listed = "".join(
            f"<li>{html.escape(name)}: {count(len(students), 'student')} ({html.escape(names_of(students))})</li>"
            for name, students in files
        )
        parts.append(f'<h2>File missing / not importable</h2><ul class="not-importable">{listed}</ul>')
    missed = most_failed(results, catalogue)
    if missed:
        rows = "".join(
            f'<tr><td>{html.escape(row.name)}</td><td class="num">{row.students}</td><td>{html.escape(row.reason)}'
            f'{f" ({row.reason_students})" if row.reason_students < row.students else ""}</td></tr>'
            for row in missed
        )
        parts.append(
            f'<h2>Tests most students answer wrong (the file imported)</h2><table class="summary most-missed"><tr><th>test</th><th>students</th><th>most common reason</th></tr>{rows}</table>'
        )
    parts.append(
        f'<h2>Students</h2><table class="summary students"><tr><th>student</th><th>points</th><th>score</th></tr>{_student_rows(results, maximum, set(linked))}</table>'
    )
    found = not_graded_lines(results, [])
    if found:
        parts.append(
            f'<h2>Found and not graded</h2><ul class="not-graded">{"".join(f"<li>{html.escape(line)}</li>" for line in found)}</ul>'
        )
    # Once per guarantee: each grading process has a private user of its own, named by its number.
    sandboxes = sorted({without_uids(str((d.get("report") or {}).get("sandbox"))) for d in results if d.get("report")})
    if sandboxes:  # the instructor's business, not on the students' pages
        parts.append(f'<h2>Sandbox</h2>{"".join(f"<p>{html.escape(mode)}</p>" for mode in sandboxes)}')
    return page(title, "".join(parts))
