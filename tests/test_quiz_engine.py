"""The quiz engine: safe arithmetic, answer parsing, schema errors, keys, marking and the student copy."""

import json
import math
import re

import pytest
from conftest import COURSE, REPO

from attnlab.quiz import marking, student_copy
from attnlab.quiz.arith import ExpressionError, evaluate
from attnlab.quiz.errors import QuizError
from attnlab.quiz.items import NOT_CHECKED_IN_PRACTICE, open_quiz
from attnlab.quiz.kinds import KINDS, AnswerFormatError
from attnlab.quiz.runner import Progress, run
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.items import reference_factory_for
from attnlab.quiz import params as drawing
from attnlab.quiz.variant import keyed_question, keyed_quiz

QUIZ_DIR = REPO / "quizzes"
FACTORY = reference_factory_for(lambda: COURSE)
CHEAP = {"n": 2**8, "r": 8, "p": 1}
"""A cheap scrypt for tests of behaviour (the cost does not change what is checked)."""


@pytest.mark.parametrize(
    "text, value",
    [
        ("1/2", 0.5),
        ("e/(2e + 1)", math.e / (2 * math.e + 1)),
        ("e/(2*e+1)", math.e / (2 * math.e + 1)),
        ("2e+1", 20.0),
        ("1.2e-1", 0.12),
        ("1.2E-1", 0.12),
        ("1e5", 1e5),
        ("2pi", 2 * math.pi),
        ("3(1+e)", 3 * (1 + math.e)),
        ("2^10", 1024),
        ("sqrt(16)", 4.0),
        ("-3", -3),
    ],
)
def test_arithmetic_students_type(text, value):
    """Scientific notation is always a number (``2e+1`` is 20); Euler's e multiplies only where no exponent can be read."""
    assert evaluate(text) == pytest.approx(value)


@pytest.mark.parametrize(
    "text, shown", [("e/(2e+1)", "`2e+1` reads two ways here"), ("2e-1 * e", "`2e-1` reads two ways here")]
)
def test_a_text_that_reads_two_ways_is_refused_with_both(text, shown):
    """Once ``1.2e-1`` was read as 1.2·e − 1 in silence; next to Euler's e, ``2e+1`` could be either."""
    with pytest.raises(ExpressionError, match=re.escape(shown)) as error:
        evaluate(text)
    assert "2E" in str(error.value) and "2*e" in str(error.value)


@pytest.mark.parametrize(
    "text", ['__import__("os")', "x.y", "2**99999", "1/0", "open", "lambda: 1", "9" * 600, "[].append", "().__class__"]
)
def test_arithmetic_refuses_everything_else(text):
    with pytest.raises(ExpressionError):
        evaluate(text)


@pytest.mark.parametrize(
    "kind, text, value, expressions",
    [
        ("integer", "4*4", 16, True),
        ("integer", "1.6e1", 16, False),
        ("number", "e/(2*e+1)", math.e / (2 * math.e + 1), True),
        ("number", "−0.5", -0.5, False),
        ("number", ".5,", 0.5, False),
        ("number", " 1 / 3 ", 1 / 3, False),
        ("vector", "0.43, 0.57", [0.43, 0.57], False),
        ("vector", "[0.43, 0.57]", [0.43, 0.57], False),
        ("vector", "4.3e-1 5.7E-1", [0.43, 0.57], False),
        ("vector", "0.43; 0.57;", [0.43, 0.57], False),
        ("matrix", "1 0; 0.43 0.57", [[1.0, 0.0], [0.43, 0.57]], False),
        ("matrix", "[[1, 0], [0.43, 0.57]]", [[1.0, 0.0], [0.43, 0.57]], False),
        ("matrix", "1, 0\n0.43, 0.57", [[1.0, 0.0], [0.43, 0.57]], False),
        ("shape", "(2, 3, 4)", (2, 3, 4), False),
        ("shape", "2x3x4", (2, 3, 4), False),
        ("shape", "2 3 4", (2, 3, 4), False),
        ("multiple", "a, c", ["a", "c"], False),
        ("single", "(B)", "b", False),
        ("truefalse", "yes", True, False),
    ],
)
def test_answer_forms(kind, text, value, expressions):
    assert KINDS[kind].parse(text, 4, expressions) == value


@pytest.mark.parametrize(
    "kind, text, reason",
    [
        ("number", "e/3", "this question takes a number"),
        ("integer", "4*4", "this question takes a number"),
        ("number", "0,05", "comma inside a number"),
        ("vector", "0,05; 0,95", "comma inside a number"),
    ],
)
def test_arithmetic_is_read_only_where_the_question_allows_it(kind, text, reason):
    with pytest.raises(AnswerFormatError, match=reason):
        KINDS[kind].parse(text, 0, False)


@pytest.mark.parametrize(
    "kind, text",
    [
        ("integer", "1.5"),
        ("shape", "(2.5, 3)"),
        ("single", "z"),
        ("matrix", "1 2; 3"),
        ("truefalse", "maybe"),
        ("vector", "abc"),
    ],
)
def test_unreadable_answers_say_what_is_expected(kind, text):
    with pytest.raises(AnswerFormatError):
        KINDS[kind].parse(text, 3)


def test_schema_errors_name_file_line_and_field(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(
        "id: bad\ntitle: t\nquestions:\n  - id: q1\n    type: integer\n    prompt: 'How many {T}?'\n    answer: {expr: 'T**2'}\n"
        "    hint: h\n    explanation: e\n    concepts: [x]\n  - id: q2\n    type: number\n    prompt: p\n    answer: {call: softmax, selct: [1]}\n"
        "    points: -1\n    hint: h\n    explanation: e\n    concepts: [x]\n"
    )
    with pytest.raises(QuizError) as error:
        load_quiz(path)
    lines = str(error.value).splitlines()
    assert f"{path}:4: questions.0: prompt uses {{T}}, which is not a parameter" in lines
    assert f"{path}:14: questions.1.answer.call.selct: Extra inputs are not permitted" in lines
    assert f"{path}:15: questions.1.points: Input should be greater than 0" in lines


def test_the_answer_cannot_leak_into_the_prompt(tmp_path):
    path = tmp_path / "leak.yaml"
    path.write_text(
        "id: leak\ntitle: t\nquestions:\n  - id: q\n    type: integer\n    prompt: 'It is {answer}'\n    answer: 1\n    hint: h\n    explanation: e\n    concepts: [x]\n"
    )
    with pytest.raises(QuizError, match="the answer may appear in the explanation only"):
        load_quiz(path)


def test_yaml_syntax_errors_have_a_line(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("id: x\ntitle: [unclosed\n")
    with pytest.raises(QuizError, match=r"broken.yaml:\d+: \(yaml\)"):
        load_quiz(path)


@pytest.mark.parametrize("quiz_id", ["shapes", "softmax", "masks", "positions"])
@pytest.mark.parametrize("student", ["alice", "bob", "s1234567"])
def test_key_answers_score_full_marks(quiz_id, student):
    quiz = load_quiz(QUIZ_DIR / f"{quiz_id}.yaml")
    answers = {k.asked.id: k.asked.kind.to_text(k.key) for k in keyed_quiz(quiz, student, FACTORY)}
    opened = open_quiz(QUIZ_DIR / f"{quiz_id}.yaml", FACTORY)
    result = marking.mark(quiz_id, student, opened.items_for(student, "exam"), answers)
    assert result.score == result.max_score, [m for m in result.marks if m.status != "right"]


def test_wrong_answers_score_what_they_should():
    opened = open_quiz(QUIZ_DIR / "shapes.yaml", FACTORY)
    keyed = {k.asked.id: k for k in keyed_quiz(load_quiz(QUIZ_DIR / "shapes.yaml"), "alice", FACTORY)}
    answers = {qid: k.asked.kind.to_text(k.key) for qid, k in keyed.items()}
    answers["qkt-entries"] = str(keyed["qkt-entries"].key + 1)  # wrong
    answers["weights-shape"] = "(1, 2"  # unreadable
    answers["doubling-cost"] = None  # skipped
    memory = keyed["score-memory"]
    step = 2 * memory.tolerance
    centre = math.floor(memory.key / step + 0.5) * step
    answers["score-memory"] = str(
        centre + 0.9 * memory.tolerance
    )  # on the key's grid point (within a tolerance of its centre): right
    result = marking.mark("shapes", "alice", opened.items_for("alice", "exam"), answers)
    status = {m.id: m.status for m in result.marks}
    assert (
        status["qkt-entries"] == "wrong"
        and status["weights-shape"] == "unreadable"
        and status["doubling-cost"] == "skipped"
    )
    assert status["score-memory"] == "right"
    assert result.score == result.max_score - 3


@pytest.mark.slow
def test_practice_copy_holds_no_answer(tmp_path):
    for path in sorted(QUIZ_DIR.glob("*.yaml")):
        quiz = load_quiz(path)
        copy = student_copy.build(quiz, "practice", FACTORY, cost=CHEAP)
        text = json.dumps(copy, ensure_ascii=False)
        assert not re.search(r'"(answer|call|select)"', text), (
            "no answer field (parameter specs may hold expr: derived parameters are shown in the prompt)"
        )
        authored = path.read_text()  # numbers the author wrote in prompts and parameters may appear
        for question, entry in zip(quiz.questions, copy["questions"]):
            fields = {
                "id",
                "type",
                "prompt",
                "options",
                "points",
                "hint",
                "concepts",
                "expressions",
                "params",
                "where",
                "variants",
            }
            assert set(entry) == fields | ({"items"} if question.pool else set())
            expected = (
                len(question.pool.practice)
                if question.pool
                else drawing.PRACTICE_VARIANTS
                if question.params
                else 1
                if question.checked_in_practice
                else 0
            )
            assert len(entry["variants"]) == expected
            entry_text = json.dumps(entry, ensure_ascii=False)
            # A bare parameter name (answer: L_src) is in the prompt by design: the question is which number it is.
            if hasattr(question.answer, "expr") and not question.answer.expr.isidentifier():
                assert question.answer.expr not in text, f"{question.id}: the expression is in the copy"
            for variant in entry["variants"]:
                assert set(variant) == {"tolerance", "layout", "salt", "locks", "explanation", "mistakes"} | (
                    {"close"} if question.type == "number" else set()
                )
                secret = json.dumps(
                    [
                        variant["salt"],
                        variant["locks"],
                        variant["explanation"],
                        variant["mistakes"],
                        variant.get("close"),
                    ]
                )
                assert not re.search(r"\d", secret), (
                    f"{question.id}: hashes and ciphertexts hold no digits, so no number can hide in them"
                )
            for student in ("alice", "bob", "carol"):
                key = keyed_question(quiz, question, student, FACTORY, "practice")
                for form in {key.asked.kind.format(key.key), key.asked.kind.to_text(key.key)}:
                    if len(form) >= 2 and form not in authored:
                        assert form not in entry_text, f"{question.id}: the key {form!r} is in the copy"
                assert key.explanation not in text, f"{question.id}: the explanation is readable"
                for mistake in key.mistakes:
                    assert mistake.explanation not in text, f"{question.id}: a mistake is readable"


def test_practice_copy_checks_practice_answers():
    quiz = load_quiz(QUIZ_DIR / "masks.yaml")
    copy = student_copy.build(quiz, "practice", FACTORY, cost=CHEAP)
    for student in ("alice", "zed"):  # anyone may practise: no roster
        keyed = {k.asked.id: k for k in keyed_quiz(quiz, student, FACTORY, "practice")}
        for asked, check in student_copy.questions_for(copy, student):
            key = keyed[asked.id]
            assert asked.prompt == key.asked.prompt
            verdict = check.check(asked.kind.parse(asked.kind.to_text(key.key), len(asked.options)))
            if quiz.question(asked.id).checked_in_practice:
                assert verdict.right is True and verdict.text == key.explanation and verdict.mistake is None
            else:  # the exam's own question: recorded, never checked
                assert verdict == (None, NOT_CHECKED_IN_PRACTICE, None, False)


def test_practice_loop_over_an_iterator():
    quiz = load_quiz(QUIZ_DIR / "softmax.yaml")
    opened = open_quiz(QUIZ_DIR / "softmax.yaml", FACTORY)
    items = opened.items_for("alice", "practice")[:3]  # the-cat-sat, softmax-row, row-sum: all checked
    keys = {k.asked.id: k for k in keyed_quiz(quiz, "alice", FACTORY, "practice")}
    cat, row, total = (keys[q].asked.kind.to_text(keys[q].key) for q in ("the-cat-sat", "softmax-row", "row-sum"))
    inputs = iter(["hint", "(1, 2", "0.1, 0.2", cat, "9, 9, 9", "skip", "back", row, "7", total])
    said, saves = [], []
    progress = Progress("softmax", "alice", "practice")

    def ask(prompt):
        return next(inputs)

    assert run(items, progress, ask, said.append, lambda p: saves.append(dict(p.answers)))
    text = "\n".join(said)
    assert "Hint: exp each score" in text
    assert "Could not read that" in text and "Answer like this: 0.43, 0.57" in text
    assert "Could not take that (3 numbers are expected, not 2)" in text, "a wrong size is refused, not marked"
    assert NOT_CHECKED_IN_PRACTICE not in text, "practice checks every question of the bank"
    assert text.count("✗ Not right") == 2 and text.count("✓ Right.") == 3
    assert "Skipped." in text
    assert progress.finished and progress.answers["row-sum"] == total and progress.attempts["the-cat-sat"] == 1
    assert len(saves) >= 4


def test_exam_loop_records_and_resumes(tmp_path, monkeypatch):
    opened = open_quiz(QUIZ_DIR / "shapes.yaml", FACTORY)
    items = opened.items_for("bob", "exam")
    progress = Progress("shapes", "bob", "exam")
    first = iter(["7", "(2, 3)"])

    def ask_then_stop(prompt):
        try:
            return next(first)
        except StopIteration:
            raise EOFError from None

    with pytest.raises(EOFError):
        run(items, progress, ask_then_stop, lambda text: None, lambda p: None)
    assert progress.position == 2 and not progress.finished
    said = []
    rest = iter(["skip"] * 9 + ["hand in", "yes"])
    run(items, progress, lambda prompt: next(rest), said.append, lambda p: None)
    assert said[0].startswith("Resuming at question 3 of 11")
    assert progress.finished and progress.answers["qkt-entries"] == "7"


def test_relative_tolerance_for_large_answers(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text(
        "id: big\ntitle: t\nquestions:\n  - id: bytes\n    type: number\n    prompt: How many?\n    answer: 2048\n"
        "    tolerance: 0.5\n    relative: 0.01\n    practice: check\n    hint: h\n    explanation: e\n    concepts: [c]\n"
    )
    keyed_items = open_quiz(path, FACTORY).items_for("alice", "practice")
    copy_path = tmp_path / "big.json"
    copy_path.write_text(json.dumps(student_copy.build(load_quiz(path), "practice", FACTORY, cost=CHEAP)))
    copy_items = open_quiz(copy_path, FACTORY).items_for("alice", "practice")
    for items in (keyed_items, copy_items):
        check = items[0].check
        assert check(2059.0)[0] is True  # 0.5 % off, on the key's grid point (2040 ± 20)
        assert check(2110.0)[0] is False  # 3 % off
    assert '"tolerance": 20' in copy_path.read_text(), "the step is rounded to 2 × 10^1, not 20.48"


def test_a_yaml_error_found_at_the_end_points_where_it_begins(tmp_path):
    """An unclosed quote on line 5 of a 6-line quiz was reported at line 7, past the end."""
    path = tmp_path / "open.yaml"
    path.write_text("id: open\ntitle: t\nquestions:\n  - id: q\n    prompt: \"never closed\n    type: number\n")
    assert len(path.read_text().splitlines()) == 6
    with pytest.raises(QuizError, match=r"open.yaml:5: \(yaml\): a quoted text that is never closed"):
        load_quiz(path)


def test_numbers_in_prompts_and_keys_are_shown_as_they_are():
    """A matrix showed "-0"; scale-saturation said the weight "would be 1" for 0.99999989."""
    assert drawing.format_value(-0.0) == "0" and "-0" not in drawing.format_value([[-0.0, 1.5], [2.0, -1.0]])
    assert KINDS["matrix"].format([[-0.0, 1.0], [0.5, -0.5]]).split()[0] == "0"
    assert drawing.format_value(1 / (1 + math.exp(-16))) == "0.999999887465"
    quiz = load_quiz(QUIZ_DIR / "softmax.yaml")
    question = quiz.question("scale-saturation")
    for student in [f"s{i}" for i in range(40)]:
        prompt = asked_question_text(quiz, question, student)
        assert "would be 1)" not in prompt, prompt


def asked_question_text(quiz, question, student):
    from attnlab.quiz.variant import asked_question

    return asked_question(quiz, question, student).prompt
