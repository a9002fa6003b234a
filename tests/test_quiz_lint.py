"""quiz lint beyond the schema: every variant's key, and the precision each number question marks."""

import pytest
from conftest import COURSE, REPO

from attnlab.quiz.items import open_quiz, reference_factory_for
from attnlab.quiz.kinds import KINDS
from attnlab.quiz.lint import check_quiz, grid_decimals
from attnlab.quiz.errors import QuizError
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.variant import keyed_question

FACTORY = reference_factory_for(lambda: COURSE)
QUIZ_DIR = REPO / "quizzes"


@pytest.mark.parametrize("quiz_id", sorted(p.stem for p in QUIZ_DIR.glob("*.yaml")))
def test_the_bank_passes_lint_for_every_variant(quiz_id):
    assert check_quiz(load_quiz(QUIZ_DIR / f"{quiz_id}.yaml"), FACTORY) == []


@pytest.mark.parametrize(
    "quiz_id, question_id, answer",
    [("softmax", "single-query-weights", "0.42, 0.16, 0.42"), ("softmax", "single-query-output", "6.33, 3.67"), ("masks", "masked-row", "0.05, 0.95, 0")],
)
def test_two_decimals_are_right_where_the_prompt_asks_for_two(quiz_id, question_id, answer):
    for sitting in ("exam", "practice"):
        item = next(i for i in open_quiz(QUIZ_DIR / f"{quiz_id}.yaml", FACTORY).items_for("alice", sitting) if i.asked.id == question_id)
        assert "two decimals" in item.asked.prompt
        assert item.check(item.asked.kind.parse(answer))[0] is True


def test_the_scale_divisor_to_two_decimals():
    quiz = load_quiz(QUIZ_DIR / "softmax.yaml")
    question = quiz.question("scale-divisor")
    assert KINDS["number"].matches(11.31, 128 ** 0.5, question.tolerance)


def test_grid_decimals():
    assert [grid_decimals(t) for t in (0.005, 0.0005, 0.5, 5.0, 0.002, 0.001, 0.25)] == [2, 3, 0, -1, None, None, None]


def write(tmp_path, tolerance, prompt, answer):
    path = tmp_path / "q.yaml"
    path.write_text(
        f"id: q\ntitle: t\nquestions:\n  - id: w\n    type: number\n    prompt: \"{prompt}\"\n    answer: {answer}\n"
        f"    tolerance: {tolerance}\n    hint: h\n    explanation: e\n    concepts: [c]\n"
    )
    return load_quiz(path)


def test_lint_names_a_tolerance_no_decimals_give_and_an_unstated_precision(tmp_path):
    assert check_quiz(write(tmp_path, 0.002, "How much (two decimals)?", 0.4223), FACTORY) == [
        "q: question w: tolerance 0.002 marks on a grid of 0.004, which no number of decimals gives: use 0.005 (two decimals) or 0.0005 (three)"
    ]
    assert check_quiz(write(tmp_path, 0.005, "How much?", 0.4223), FACTORY) == ['q: question w: the prompt does not say the precision it marks: add "(two decimals)"']
    assert check_quiz(write(tmp_path, 0.0005, "How much, to 3 decimals?", 0.4223), FACTORY) == []
    assert check_quiz(write(tmp_path, 0.005, "How many?", 4), FACTORY) == [], "a whole answer needs no decimals"


def test_lint_names_a_choice_outside_the_options_and_the_parameters_of_a_failure(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(
        "id: c\ntitle: t\nquestions:\n  - id: pick\n    type: single\n    prompt: p\n    options: [x, y]\n    answer: c\n    hint: h\n    explanation: e\n    concepts: [c]\n"
        "  - id: ratio\n    type: number\n    prompt: \"{a} over {b} (two decimals)?\"\n    params:\n      a: {range: [1, 3]}\n      b: {choice: [0]}\n"
        "    answer: {expr: \"a / b\"}\n    hint: h\n    explanation: e\n    concepts: [c]\n"
    )
    problems = check_quiz(load_quiz(path), FACTORY)
    assert "c: question pick: the answer c is not among the options (a to b)" in problems
    failures = [p for p in problems if "ratio" in p]
    assert len(failures) == 1 and "b=0): division by zero (and 204 more of 205 variants)" in failures[0], failures


QUESTION = "  - id: {id}\n    type: vector\n    prompt: \"softmax of [{{a}}, 0] (two decimals)?\"\n    params:\n      a: {{choice: [1, 2]}}\n    answer: {{call: softmax, args: [[a, 0]]}}\n    hint: h\n    explanation: e\n    concepts: [c]\n"


def test_a_duplicate_id_is_named_at_its_second_line(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("id: d\ntitle: t\nquestions:\n" + QUESTION.format(id="row") + QUESTION.format(id="row"))
    with pytest.raises(QuizError, match=r"d.yaml:13: questions: question id 'row' is used twice \(first at line 4\)"):
        load_quiz(path)


def test_parameters_nested_in_arguments_are_substituted(tmp_path):
    import math

    path = tmp_path / "n.yaml"
    path.write_text("id: n\ntitle: t\nquestions:\n" + QUESTION.format(id="row"))
    quiz = load_quiz(path)
    assert check_quiz(quiz, FACTORY) == []
    keyed = keyed_question(quiz, quiz.questions[0], "alice", FACTORY)
    a = 1 if "[1, 0]" in keyed.asked.prompt else 2
    assert keyed.key == pytest.approx([math.exp(a) / (math.exp(a) + 1), 1 / (math.exp(a) + 1)])


def test_the_authors_guide_examples_are_one_of_each_type_and_pass_lint(tmp_path):
    import re

    text = (REPO / "docs" / "quizzes.md").read_text()
    block = re.findall(r"```yaml\n(  - \{.*?)```", text, re.S)[0]
    path = tmp_path / "guide.yaml"
    path.write_text("id: guide\ntitle: t\nquestions:\n" + block)
    quiz = load_quiz(path)
    assert sorted(q.type for q in quiz.questions) == sorted(KINDS)
    assert check_quiz(quiz, FACTORY) == []
