"""What grading produces: one result per hidden test, and a report per submission."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from attnlab.inert import markdown_literal, terminal_text
from attnlab.outcomes import Outcome
from attnlab.wording import count, points

ABOUT_HEADING = "About what you handed in"
NOT_GRADED_HEADING = "Found and not graded"
_MISTAKE = "Known mistake: "
_HINT = "\nHint: "


def not_importable(outcome: str, feedback: str, module: str) -> bool:
    """Did a test end because its exercise file is missing or could not be imported? The sentence
    is the grader's own, first in the feedback, where no student text can come first."""
    return outcome == Outcome.ERROR.value and feedback.startswith(f"{module}.py could not be imported")


def first_line(text: str) -> str:
    return text.split("\n", 1)[0]


def writable_text(text: str) -> str:
    """``text`` as valid Unicode: a student's message or output may hold lone surrogates (a str
    in Python, but no terminal, UTF-8 file or SQLite column takes one); they become U+FFFD."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def named_feedback(name: str, explanation: str, hint: str, feedback: str) -> str:
    """A failure's feedback with the catalogued mistake that explains it put first."""
    return f"{_MISTAKE}{name}.\n{explanation}{_HINT}{hint}\n\n{feedback}"


def _gradescope_markdown(test: "TestResult") -> str:
    """A test's feedback as Markdown: the grader's words render, and everything that may carry
    the student's words (their messages, what they printed) is a code block it cannot leave."""
    parts = []
    feedback = test.feedback
    if test.misconception and feedback.startswith(_MISTAKE) and _HINT in feedback:
        # Only the catalogue's words come before the first blank line after the hint (named_feedback).
        named, _, hint_and_rest = feedback[len(_MISTAKE) :].partition(_HINT)
        hint, _, feedback = hint_and_rest.partition("\n\n")
        name, _, explanation = named.partition("\n")
        parts += [f"**Known mistake:** {name}", explanation, f"**Hint:** {hint}"]
    if feedback:
        parts.append(markdown_literal(feedback))
    elif not parts:
        parts.append("Passed.")
    if test.output:
        parts += ["Your code printed:", markdown_literal(test.output)]
    return "\n\n".join(part for part in parts if part)


def markdown_feedback(test: "TestResult") -> str:
    """A test's feedback as Markdown, as Gradescope shows it: the catalogue's words render, the
    student's (their messages, what they printed) are code blocks."""
    return _gradescope_markdown(test)


@dataclass(frozen=True)
class TestResult:
    """One hidden test's verdict on one submission."""

    __test__ = False  # not a pytest test class, whatever its name

    name: str
    """What it checks, in the student's words: ``softmax: rows sum to 1 along the axis``."""
    function: str
    """The contract function it grades."""
    module: str
    """The exercise file that function lives in."""
    outcome: Outcome
    score: float
    max_score: float
    feedback: str
    """Why it did not pass (empty when it passed); plain text, with the student's words in it."""
    misconception: str | None
    """The catalogued mistake that explains the failure, if one does (its id)."""
    picture: dict | None
    """Expected vs got as small 2-D lists (``expect.picture``), when the failure has one."""
    output: str
    """What the student's code printed during the test, cut to a bounded size."""
    duration: float
    """Seconds the test took."""
    test: str = ""
    """The hidden test's node id (``test_softmax.py::test_values[1]``): what ``points.toml`` pays it,
    so that a change of points alone rescores a stored result without running the code again."""

    def __post_init__(self):
        # What the student's code said (its exceptions' messages, what it printed) is told to
        # terminals, JSON, SQLite and HTML from here on: made writable and inert once, here.
        object.__setattr__(self, "feedback", terminal_text(writable_text(self.feedback)))
        object.__setattr__(self, "output", terminal_text(writable_text(self.output)))


@dataclass(frozen=True)
class GradeReport:
    """All the hidden tests' verdicts on one submission."""

    submission: str
    tests: tuple[TestResult, ...]
    sandbox: str
    """How the student's code was run, in words."""
    duration: float
    notes: tuple[str, ...] = ()
    """How the submission as handed in was read (a misnamed file graded as the exercise file, a
    notebook's plots and prints not run), one line each; it may quote their code."""
    not_graded: tuple[str, ...] = ()
    """What was found in the submission and not graded, and why (a second copy of a file, an older
    draft, an earlier upload), one line each."""

    def __post_init__(self):
        object.__setattr__(
            self, "submission", terminal_text(writable_text(self.submission))
        )  # a folder's name need not be UTF-8
        for name in ("notes", "not_graded"):
            object.__setattr__(self, name, tuple(terminal_text(writable_text(note)) for note in getattr(self, name)))

    def files_not_imported(self) -> dict[str, list[TestResult]]:
        """Each exercise file that was missing or could not be imported, and the tests it cost:
        one reason, told once rather than once a test."""
        found: dict[str, list[TestResult]] = {}
        for test in self.tests:
            if not_importable(test.outcome.value, test.feedback, test.module):
                found.setdefault(test.module, []).append(test)
        return found

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests), 6)

    @property
    def max_score(self) -> float:
        return round(sum(t.max_score for t in self.tests), 6)

    def to_gradescope(self, visibility: str = "visible") -> dict:
        """Gradescope's results.json: ``score``, ``tests`` with name, score, max_score, output;
        ``visibility`` (Gradescope's: visible, after_due_date, hidden, ...) for the tests and the total."""
        tests = []
        for number, test in enumerate(self.tests, start=1):
            tests.append(
                {
                    "name": test.name,
                    "number": str(number),
                    "score": test.score,
                    "max_score": test.max_score,
                    "status": "passed" if test.outcome is Outcome.PASSED else "failed",
                    "output": _gradescope_markdown(test),
                    "output_format": "md",
                    "tags": [
                        test.module,
                        test.function,
                        test.outcome.value,
                        *([test.misconception] if test.misconception else []),
                    ],
                    "visibility": visibility,
                }
            )
        # Only the fields Gradescope documents at the top level; the rest goes in extra_data.
        return {
            "score": self.score,
            "execution_time": round(self.duration, 3),
            # Shown as text (no top-level output_format): the notes may quote the student's code.
            "output": "\n".join(self.summary_lines()),
            "visibility": visibility,
            "extra_data": {"max_score": self.max_score, "sandbox": self.sandbox},
            "tests": tests,
        }

    def check_only_failures(self) -> list[TestResult]:
        """The failing tests worth no points: lessons the grader cannot check from what it receives
        (a module run on the meta device returns no value), shown, never scored."""
        return [t for t in self.tests if t.max_score == 0 and t.outcome is not Outcome.PASSED]

    def check_only_line(self) -> str | None:
        """One line on the failing check-only tests, so that full marks never hide them; None when none failed."""
        failing = self.check_only_failures()
        if not failing:
            return None
        scored = "Full marks on the scored tests, but " if self.score == self.max_score else ""
        names = "; ".join(dict.fromkeys(first_line(t.name) for t in failing))
        return (
            f"{scored}{count(len(failing), 'check-only test')} failed, not scored: {names}. The grader cannot check "
            "this from what your code sends back; `attnlab check` runs it on your machine (docs/students.md)."
        )

    def summary_lines(self) -> list[str]:
        """What a student reads first, one line each: the score, the check-only tests that failed,
        the files that could not be imported (once each), how the upload was read and what of it
        was not graded. (How the sandbox ran is the instructor's: not here.)"""
        lines = [
            f"Graded {count(len(self.tests), 'hidden test')}: {points(self.score)} of {count(self.max_score, 'point')}."
        ]
        check_only = self.check_only_line()
        if check_only:
            lines.append(check_only)
        for module, tests in self.files_not_imported().items():
            lines.append(
                f"{first_line(tests[0].feedback)} ({count(len(tests), 'test')}, {count(sum(t.max_score for t in tests), 'point')})"
            )
        lines += [f"{ABOUT_HEADING}: {note}" for note in self.notes]
        lines += [f"{NOT_GRADED_HEADING}: {line}" for line in self.not_graded]
        return lines

    @classmethod
    def from_dict(cls, data: dict) -> "GradeReport":
        """The report ``to_dict`` gave (a stored result's); ``ValueError`` when ``data`` is not one."""
        try:
            tests = tuple(TestResult(**{**test, "outcome": Outcome(test["outcome"])}) for test in data["tests"])
            notes = tuple(str(note) for note in data.get("notes", ()))  # results stored before notes had none
            not_graded = tuple(str(line) for line in data.get("not_graded", ()))
            return cls(str(data["submission"]), tests, str(data["sandbox"]), float(data["duration"]), notes, not_graded)
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a report attnlab wrote ({type(error).__name__}: {error})") from None

    def to_dict(self) -> dict:
        return {
            "submission": self.submission,
            "sandbox": self.sandbox,
            "duration": self.duration,
            "score": self.score,
            "max_score": self.max_score,
            "notes": list(self.notes),
            "not_graded": list(self.not_graded),
            "tests": [{**asdict(t), "outcome": t.outcome.value} for t in self.tests],
        }
