"""Each answer kind is one object: it parses, normalises, checks, lints and exports itself.

A new kind is its file in ``quiz/kinds/`` and a line in the registry; nothing else in the quizzes
or their exports names a kind, and an export meets a form of question it has not learnt with a
one-line error, never a ``KeyError``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
import pytest

from attnlab.export.quiz import moodle, qti
from attnlab.quiz.errors import QuizError
from attnlab.quiz.items import reference_factory_for
from attnlab.quiz.kinds import KINDS, kind_named
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.variant import keyed_for_values, drawn_values
from conftest import COURSE, REPO

ENGINE = REPO / "grader" / "attnlab"
KIND_NAMES = set(KINDS)


def kind_names_outside_kinds(paths) -> list[str]:
    """Each place that decides by a kind's name: a comparison of a ``.type`` with one, or a
    literal table that lists two or more of them."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(isinstance(side, ast.Attribute) and side.attr == "type" for side in sides):
                    names = [
                        c.value
                        for side in sides
                        for c in ast.walk(side)
                        if isinstance(c, ast.Constant) and c.value in KIND_NAMES
                    ]
            elif isinstance(node, (ast.Dict, ast.Set, ast.Tuple, ast.List)):
                items = node.keys if isinstance(node, ast.Dict) else node.elts
                listed = [c.value for c in items if isinstance(c, ast.Constant) and c.value in KIND_NAMES]
                names = listed if len(listed) >= 2 else []
            if names:
                found.append(f"{path.name}:{node.lineno}: {', '.join(names)}")
    return list(dict.fromkeys(found))


def test_only_the_kinds_decide_by_a_kinds_name():
    paths = [
        p
        for p in (*(ENGINE / "quiz").rglob("*.py"), *(ENGINE / "export" / "quiz").rglob("*.py"))
        if "kinds" not in p.parts
    ]
    assert len(paths) > 10
    assert kind_names_outside_kinds(paths) == []


def test_the_scan_finds_an_if_chain_over_kinds(tmp_path):
    example = tmp_path / "example.py"
    example.write_text(
        'if question.type in ("single", "multiple"):\n    pass\n'
        'TYPES = {"integer": 1, "number": 2}\nif asked.type == "shape":\n    pass\n',
        encoding="utf-8",
    )
    assert kind_names_outside_kinds([example]) == [
        "example.py:1: single, multiple",
        "example.py:3: integer, number",
        "example.py:4: shape",
    ]


def _keyed_of_each_kind():
    """(kind name, keyed question) of one question of each kind the course's quizzes ask."""
    seen = {}
    factory = reference_factory_for(lambda: COURSE)
    for path in sorted((REPO / "quizzes").glob("*.yaml")):
        quiz = load_quiz(path)
        for question in quiz.questions:
            if question.type not in seen:
                values = drawn_values(quiz, question, "kinds")
                seen[question.type] = keyed_for_values(quiz, question, values, "kinds", factory)
    return seen


def test_every_kind_is_a_whole_object_and_every_export_knows_its_form():
    keyed = _keyed_of_each_kind()
    assert set(keyed) == KIND_NAMES, "the course's quizzes ask every kind"
    for name, kind in KINDS.items():
        form = kind.lms_question(keyed[name])
        assert type(form) is kind.lms_form, name
        assert kind.lms_form in qti.FORMS and kind.lms_form in moodle.FORMS, name
        assert name in qti.CANVAS_TYPES
        assert kind.normalize_key(keyed[name].key) == keyed[name].key
        assert kind.matches(
            kind.parse(kind.to_text(keyed[name].key), len(keyed[name].asked.options), True),
            keyed[name].key,
            keyed[name].tolerance,
            keyed[name].slack,
        )


@dataclass(frozen=True)
class Percentage:
    """A form of question no export has learnt."""

    value: float


def test_an_export_meets_a_form_it_has_not_learnt_with_one_line(monkeypatch):
    quiz = load_quiz(REPO / "quizzes" / "shapes.yaml")
    factory = reference_factory_for(lambda: COURSE)
    kind = KINDS[quiz.questions[0].type]
    monkeypatch.setattr(type(kind), "lms_question", lambda self, keyed: Percentage(1.0))
    with pytest.raises(QuizError, match=r"Moodle has no question type for an? \w+ answer \(Percentage\)"):
        moodle.moodle_export(quiz, factory, 1)
    with pytest.raises(QuizError, match=r"QTI has no question for an? \w+ answer \(Percentage\)"):
        qti.qti_zip(quiz, factory, 1)


def test_an_unknown_kind_is_a_one_line_error_that_lists_the_kinds():
    with pytest.raises(
        QuizError, match=r"unknown question type 'percent' \(the types are integer, number, .*truefalse\)"
    ):
        kind_named("percent")
    assert kind_named("matrix") is KINDS["matrix"]


def test_a_kind_is_its_file_and_a_line_in_the_registry():
    files = {p.stem for p in (ENGINE / "quiz" / "kinds").glob("*.py")} - {"__init__", "base", "grid", "lms_forms"}
    assert files == KIND_NAMES
    assert all(type(kind).__module__ == f"attnlab.quiz.kinds.{name}" for name, kind in KINDS.items())
