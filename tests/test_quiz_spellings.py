"""Numbers are numbers: every question of the bank, in many variants, its key retyped in every
spelling a student may use, scores full in practice (from the YAML and from the practice copy)
and in `quiz grade`; and what cannot be read is refused with its reason, never marked.

The spellings: the key in full and rounded as the prompt asks, scientific notation (``4.2e-01``,
``4.2E-1``), a fraction where it is exact (``1/4``, ``32/2``), a leading point (``.42``), the
Unicode minus, a plus sign, extra spaces, a trailing comma, and the other separators of a list or
a matrix; letters in either case and with brackets; true and false in their words.
"""

import csv
import json
import os
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
from conftest import COURSE, REPO
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnlab.quiz import marking, student_copy
from attnlab.quiz.items import open_quiz, reference_factory_for
from attnlab.quiz.kinds import LETTERS
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.variant import keyed_question, keyed_quiz

QUIZ_DIR = REPO / "quizzes"
FACTORY = reference_factory_for(lambda: COURSE)
CHEAP = {"n": 2**4, "r": 1, "p": 1}
QUIZZES = {path.stem: load_quiz(path) for path in sorted(QUIZ_DIR.glob("*.yaml"))}
QUESTIONS = [(quiz_id, index) for quiz_id, quiz in QUIZZES.items() for index in range(len(quiz.questions))]
FROM_YAML = {quiz_id: open_quiz(QUIZ_DIR / f"{quiz_id}.yaml", FACTORY) for quiz_id in QUIZZES}
STUDENT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=10)


def decimals_asked(tolerance: float) -> int:
    return max(0, -Decimal(repr(2 * tolerance)).normalize().as_tuple().exponent)


@st.composite
def number_spelling(draw, x: float, decimals: int, whole: bool = False) -> str:
    """One way of writing the number ``x`` that means it (to the precision asked)."""
    exact = Decimal(repr(float(x)))
    forms = [f"{exact.normalize():f}", f"{exact:e}", f"{exact:E}".replace("E-", "E-0").replace("E+", "E+0")]
    if not whole:
        forms.append(f"{exact.quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP):f}")
    fraction = Fraction(repr(float(x))).limit_denominator(64)
    if float(fraction) == float(x) and fraction.denominator > 1:
        forms.append(f"{fraction.numerator}/{fraction.denominator}")
    if whole and x == int(x):
        forms += [f"{2 * int(x)}/2", f"{int(x)}.0"]
    text = draw(st.sampled_from(forms))
    negative = text.startswith("-")
    text = text.lstrip("-")
    if text.startswith("0.") and draw(st.booleans()):
        text = text[1:]  # .42
    sign = draw(st.sampled_from(["-", "\u2212"])) if negative else draw(st.sampled_from(["", "", "+"]))
    return sign + text


@st.composite
def spelling(draw, kind: str, key, tolerance: float, options: int) -> str:
    """The key of a ``kind`` question, written one of the ways a student may write it."""
    pad = lambda text: draw(st.sampled_from(["", " ", "  "])) + text + draw(st.sampled_from(["", " ", "\t"]))  # noqa: E731
    decimals = decimals_asked(tolerance)
    if kind == "integer":
        return pad(draw(number_spelling(key, 0, whole=True)) + draw(st.sampled_from(["", ","])))
    if kind == "number":
        return pad(draw(number_spelling(key, decimals)) + draw(st.sampled_from(["", ",", " ,"])))
    if kind == "vector":
        numbers = [draw(number_spelling(x, decimals)) for x in key]
        separator = draw(st.sampled_from([", ", ",", " ", "  ", "; ", ";"]))
        text = separator.join(numbers) + draw(st.sampled_from(["", separator.strip() or ""]))
        brackets = draw(st.sampled_from(["", "[]", "()"])) if separator.strip() != ";" else ""
        return pad(brackets[:1] + text + brackets[1:])
    if kind == "matrix":
        rows = [[draw(number_spelling(x, decimals)) for x in row] for row in key]
        style = draw(st.sampled_from(["semicolons", "lines", "brackets"]))
        entries = draw(st.sampled_from([", ", " ", ","]))
        if style == "brackets":
            return pad("[" + ", ".join("[" + ", ".join(row) + "]" for row in rows) + "]")
        joined = [entries.join(row) for row in rows]
        return pad(("; " if style == "semicolons" else "\n").join(joined) + draw(st.sampled_from(["", ";"])))
    if kind == "shape":
        sizes = [str(x) for x in key]
        separator = draw(st.sampled_from([", ", ",", "x", " x ", " × ", "×", " "]))
        text = separator.join(sizes) + (draw(st.sampled_from(["", ","])) if "," in separator else "")
        brackets = draw(st.sampled_from(["", "()", "[]"]))
        return pad(brackets[:1] + text + brackets[1:])
    if kind == "single":
        letter = draw(st.sampled_from([key, key.upper()]))
        return pad(draw(st.sampled_from([letter, f"{letter})", f"({letter})", str(LETTERS.index(key) + 1)])))
    if kind == "multiple":
        letters = draw(st.permutations(key))
        letters = [draw(st.sampled_from([x, x.upper()])) for x in letters]
        return pad(draw(st.sampled_from([", ", ",", " ", "; ", ""])).join(letters))
    word = draw(
        st.sampled_from(
            ["true", "True", "TRUE", "t", "T", "yes", "Yes", "y", "true."]
            if key
            else ["false", "False", "FALSE", "f", "F", "no", "No", "n", "false."]
        )
    )
    return pad(word)


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    folder = tmp_path_factory.mktemp("copies")
    opened = {}
    for quiz_id, quiz in QUIZZES.items():
        path = folder / f"{quiz_id}.json"
        path.write_text(json.dumps(student_copy.build(quiz, "practice", FACTORY, cost=CHEAP)))
        opened[quiz_id] = open_quiz(path, FACTORY)
    return opened


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    question=st.sampled_from(QUESTIONS), student=STUDENT, sitting=st.sampled_from(["exam", "practice"]), data=st.data()
)
def test_every_spelling_of_the_key_scores_full_everywhere(copies, question, student, sitting, data):
    quiz_id, index = question
    quiz = QUIZZES[quiz_id]
    keyed = keyed_question(quiz, quiz.questions[index], student, FACTORY, sitting)
    asked = keyed.asked
    typed = data.draw(spelling(asked.type, keyed.key, keyed.tolerance, len(asked.options)), label="typed")
    from_yaml = FROM_YAML[quiz_id].items_for(student, sitting)[index]
    assert from_yaml.asked.text() == asked.text()
    # `quiz grade` marks answers files exactly so (marking.mark over the YAML's items).
    result = marking.mark(quiz.id, student, [from_yaml], {asked.id: typed})
    assert [m.status for m in result.marks] == ["right"], (typed, result.marks[0].reason, keyed.key)
    if sitting == "practice":
        value = asked.read(typed)
        assert from_yaml.check(value).right is True
        from_copy = copies[quiz_id].items_for(student, "practice")[index]
        assert from_copy.asked.text() == asked.text() and from_copy.refuse(from_copy.asked.read(typed)) is None
        assert from_copy.check(from_copy.asked.read(typed)).right is True, (typed, keyed.key)


@settings(max_examples=200, deadline=None)
@given(question=st.sampled_from(QUESTIONS), student=STUDENT, data=st.data())
def test_what_cannot_be_read_is_refused_with_a_reason_never_marked(question, student, data):
    """Arithmetic where the question takes numbers, a decimal comma, a text that reads two ways: each
    is refused (unreadable, with why), never marked right or wrong."""
    quiz_id, index = question
    item = FROM_YAML[quiz_id].items_for(student, "exam")[index]
    kind = item.asked.type
    if kind not in ("integer", "number", "vector"):
        return
    # "0,5" is two numbers in a list of two (its size says so), and refused where one number is asked.
    commas = ["0,5", "1,25"] if kind != "vector" else ["1,25; 0,75", "0,25 0,75", "0,05, 0,95"]
    texts = (
        commas
        + ([] if item.asked.expressions else ["e/3", "sqrt(4)", "2*3"])
        + (["e/(2e+1)"] if item.asked.expressions else [])
    )
    typed = data.draw(st.sampled_from(texts))
    mark = marking.mark_answer(item, typed)
    assert mark.status == "unreadable" and mark.reason and mark.points == 0, (typed, mark)


def test_quiz_grade_marks_every_spelling_right(tmp_path):
    """The command itself, over answers files in every spelling: full marks for each student."""
    import random

    rng = random.Random(7)
    files = []
    for quiz_id in ("softmax", "masks"):
        quiz = QUIZZES[quiz_id]
        for number in range(3):
            student = f"{quiz_id}-{number}"
            answers = {}
            for keyed in keyed_quiz(quiz, student, FACTORY, "exam"):
                answers[keyed.asked.id] = _spelled(keyed, rng)
            path = tmp_path / f"{student}.yaml"
            marking.write_answers(path, quiz.id, student, answers)
            files.append((quiz_id, path))
    for quiz_id in ("softmax", "masks"):
        paths = [p for q, p in files if q == quiz_id]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "attnlab.cli",
                "quiz",
                "grade",
                quiz_id,
                *map(str, paths),
                "--csv",
                str(tmp_path / f"{quiz_id}.csv"),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "COLUMNS": "200"},
        )
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        rows = list(csv.DictReader((tmp_path / f"{quiz_id}.csv").open()))
        assert [r["score"] for r in rows] == [r["max_score"] for r in rows] == ["13"] * 3, [
            (r["student"], r["unreadable"]) for r in rows
        ]


def _spelled(keyed, rng) -> str:
    """A spelling drawn without hypothesis (for a file a command reads): scientific notation with
    the Unicode minus and a trailing separator for numbers; upper case for letters."""
    kind, key = keyed.asked.type, keyed.key

    def number(x):
        return f"{Decimal(repr(float(x))):E}".replace("-", "\u2212")

    if kind in ("number", "integer"):
        return number(key) + " ,"
    if kind == "vector":
        return rng.choice([" ", "; ", ","]).join(number(x) for x in key) + ";"
    if kind == "matrix":
        return "\n".join(" ".join(number(x) for x in row) for row in key)
    if kind == "shape":
        return " × ".join(map(str, key))
    if kind == "single":
        return f"({key.upper()})"
    if kind == "multiple":
        return " ".join(reversed([x.upper() for x in key]))
    return "Yes" if key else "No"
