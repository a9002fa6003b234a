"""A submission's feedback as Markdown, for the comment box of an LMS (Moodle, Canvas, Gradescope).

Only the grader's words render: the student's id and the tests' titles are escaped
(``inert.markdown_words``), and everything the student's code said (messages, printed output)
is a code block it cannot leave (``results.markdown_feedback``).
"""

from __future__ import annotations

from attnlab.inert import markdown_literal, markdown_words
from attnlab.outcomes import Outcome
from attnlab.results import ABOUT_HEADING, NOT_GRADED_HEADING, GradeReport, markdown_feedback
from attnlab.wording import count, points, score


def _percent(score: float, maximum: float) -> str:
    return f"{100 * score / maximum:.0f}%" if maximum else "0%"


def render_markdown(report: GradeReport, student: str) -> str:
    """The whole feedback of one graded submission: points, a line per function, what went wrong."""
    lines = [
        f"# attnlab feedback · {markdown_words(student)}",
        "",
        f"**{points(report.score)} of {count(report.max_score, 'point')}** ({_percent(report.score, report.max_score)})",
        "",
    ]
    check_only = report.check_only_line()
    if check_only:  # the test names are the grader's own words, but escaped all the same
        lines += [markdown_words(check_only), ""]
    functions: dict[tuple[str, str], list] = {}
    for test in report.tests:
        functions.setdefault((test.module, test.function), []).append(test)
    for (module, function), tests in functions.items():
        passed = sum(t.outcome is Outcome.PASSED for t in tests)
        earned = f"{score(sum(t.score for t in tests), sum(t.max_score for t in tests))} points"
        lines.append(
            f"- {markdown_words(f'{module}.py')} · {markdown_words(function)}: {passed} of {count(len(tests), 'test')} passed, {earned}"
        )
    for heading, said in ((ABOUT_HEADING, report.notes), (NOT_GRADED_HEADING, report.not_graded)):
        if said:  # the names of the student's files, and a notebook's code: never Markdown
            lines += ["", f"**{heading}:**", "", markdown_literal("\n".join(said))]
    missing = report.files_not_imported()
    unimported = {id(t) for tests in missing.values() for t in tests}
    failing = [t for t in report.tests if t.outcome is not Outcome.PASSED and id(t) not in unimported]
    lines += ["", "## What went wrong" if failing or missing else "Every hidden test passed."]
    for module, tests in missing.items():  # once a file: every one of its tests says the same
        lines += [
            "",
            f"### {markdown_words(f'{module}.py')}: {count(len(tests), 'test')}, {score(0, sum(t.max_score for t in tests))}",
            "",
            markdown_literal(tests[0].feedback),
        ]
    for test in failing:
        lines += [
            "",
            f"### {markdown_words(test.name)}",
            "",
            f"*{markdown_words(test.outcome.value)}, {score(test.score, test.max_score)}*",
            "",
            markdown_feedback(test),
        ]
    return "\n".join(lines) + "\n"


def render_not_graded_markdown(student: str, error: str) -> str:
    """The feedback of a submission that could not be graded: why, and no points."""
    return f"# attnlab feedback · {markdown_words(student)}\n\n**Not graded: 0 points.** Your submission could not be graded:\n\n{markdown_literal(error)}\n"
