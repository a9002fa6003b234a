"""The quiz file format, validated with pydantic; errors come out as ``file:line: field: message``.

A quiz is a YAML file::

    id: shapes
    title: Shapes and sizes
    questions:
      - id: qkt-entries
        type: integer            # integer number vector matrix shape single multiple truefalse
        prompt: "With T = {T} tokens ... how many entries does Q Kᵀ have?"
        params:                  # drawn per student, in order
          T: {range: [3, 12]}
        answer: {expr: "T**2"}   # a literal, {expr: ...} over the params, or {call: ...} a reference function
        mistakes:                # optional: common wrong answers, in the answer's form
          - {answer: {expr: "T"}, name: one row only, explanation: ...}
        points: 1
        hint: ...
        explanation: ...         # may use {answer} and the params
        concepts: [shapes]

``{name}`` in a prompt, hint or explanation is replaced by a parameter's
value (matrices as aligned tables); ``{{`` and ``}}`` are literal braces.
The format is documented for course authors in ``docs/quizzes.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, Union

import yaml
from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, ValidationError, field_validator, model_validator

from attnlab.quiz.arith import ExpressionError, to_python
from attnlab.quiz.errors import QuizError
from attnlab.quiz.params import PLACEHOLDER

QuestionType = Literal["integer", "number", "vector", "matrix", "shape", "single", "multiple", "truefalse"]
SLUG = r"^[a-z0-9][a-z0-9-]*$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RandomArray(Strict):
    shape: list[int] = Field(min_length=1, max_length=2)
    low: float = -2.0
    high: float = 2.0
    decimals: int = Field(1, ge=0, le=4)


class Param(Strict):
    """Exactly one way of drawing a value."""

    choice: list[Any] | None = Field(None, min_length=1)
    range: tuple[int, int] | None = None
    random: RandomArray | None = None
    permutation: Union[int, str, None] = None
    expr: str | None = None
    value: Any = None

    @model_validator(mode="after")
    def _exactly_one(self):
        given = [k for k in ("choice", "range", "random", "permutation", "expr", "value") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of choice, range, random, permutation, expr, value (got {', '.join(given) or 'none'})")
        if self.range is not None and self.range[0] > self.range[1]:
            raise ValueError("range must be [low, high] with low <= high")
        return self


class Call(Strict):
    """Call a reference function on parameters (by name) or literals, then index the result."""

    call: str
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    select: list[Union[int, str, list[Union[int, str]]]] = []
    """Indices applied in turn, numbers or parameter names: ``[1, [p, col]]`` means ``result[1][p, col]``."""


class Expr(Strict):
    expr: str

    @field_validator("expr")
    @classmethod
    def _parses(cls, text):
        try:
            to_python(text)
        except ExpressionError as error:
            raise ValueError(f"not a safe arithmetic expression: {error}") from None
        return text


def _answer_form(value) -> str:
    """Which kind of answer an author wrote, so that errors speak of that kind only."""
    if isinstance(value, dict):
        return "call" if "call" in value else "expr"
    if isinstance(value, (Expr, Call)):
        return "call" if isinstance(value, Call) else "expr"
    return "literal"


Answer = Annotated[
    Union[Annotated[Expr, Tag("expr")], Annotated[Call, Tag("call")], Annotated[Union[bool, int, float, str, list], Tag("literal")]],
    Discriminator(_answer_form),
]


class Mistake(Strict):
    """A common wrong answer, in the answer's own form, and what it shows the student did."""

    answer: Answer
    name: str = Field(min_length=1)
    """Short, for the instructor's table: ``forgot the 1/√d_k``."""
    explanation: str = Field(min_length=1)
    """Shown in practice when a wrong answer matches; may use the parameters, never the answer."""


class Question(Strict):
    id: str = Field(pattern=SLUG)
    type: QuestionType
    prompt: str = Field(min_length=1)
    options: list[str] | None = None
    params: dict[str, Param] = {}
    answer: Answer
    mistakes: list[Mistake] = []
    """Common wrong answers; matched by the same rule as the answer (a right answer is never a mistake)."""
    tolerance: float = Field(0.005, gt=0)
    """Absolute tolerance of number, vector and matrix answers."""
    relative: float | None = Field(None, gt=0, lt=1)
    """Relative tolerance: an answer within ``relative * |key|`` is right too (for large magnitudes)."""
    points: float = Field(1.0, gt=0)
    hint: str = Field(min_length=1)
    explanation: str = Field(min_length=1)
    concepts: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self):
        choices = self.type in ("single", "multiple")
        if choices and (not self.options or len(self.options) < 2):
            raise ValueError(f"a {self.type} question needs at least two options")
        if not choices and self.options is not None:
            raise ValueError(f"a {self.type} question has no options")
        for name in self.params:
            if not name.isidentifier():
                raise ValueError(f"parameter name {name!r} is not an identifier")
        texts = {"prompt": [self.prompt], "hint": [self.hint], "options": self.options or [], "explanation": [self.explanation], "mistakes": [m.explanation for m in self.mistakes]}
        for field, items in texts.items():
            known = set(self.params) | ({"answer"} if field == "explanation" else set())  # the answer only after answering
            for name in (n for text in items for n in PLACEHOLDER.findall(text)):
                if name not in known:
                    raise ValueError(f"{field} uses {{{name}}}, which is not a parameter" + (" (the answer may appear in the explanation only)" if name == "answer" else ""))
        return self


class Quiz(Strict):
    id: str = Field(pattern=SLUG)
    title: str = Field(min_length=1)
    description: str = ""
    questions: list[Question] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self):
        seen = set()
        for question in self.questions:
            if question.id in seen:
                raise ValueError(f"question id {question.id!r} is used twice")
            seen.add(question.id)
        return self

    def question(self, question_id: str) -> Question:
        return next(q for q in self.questions if q.id == question_id)


# ---------------------------------------------------------------- loading with line numbers


def _line_of(node: yaml.Node | None, location: tuple) -> int:
    """The 1-based line of the YAML node at ``location`` (pydantic's loc), or its nearest parent."""
    line = (node.start_mark.line + 1) if node is not None else 1
    for part in location:
        if isinstance(node, yaml.MappingNode):
            match = next((value for key, value in node.value if key.value == part), None)
            if match is None:
                break
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            continue  # a union branch name or similar: not a place in the file
        line = node.start_mark.line + 1
    return line


def _field(location: tuple) -> str:
    return ".".join(str(p) for p in location if not (isinstance(p, str) and (p[:1].isupper() or "[" in p))) or "(top)"


def _refuse_duplicate_ids(path: Path, node) -> None:
    """A question id used twice, named at the line of its second use (the schema only knows the quiz)."""
    questions = next((value for key, value in getattr(node, "value", []) if getattr(key, "value", None) == "questions"), None)
    seen: dict[str, int] = {}
    for item in getattr(questions, "value", []) if isinstance(questions, yaml.SequenceNode) else []:
        id_node = next((value for key, value in getattr(item, "value", []) if getattr(key, "value", None) == "id"), None) if isinstance(item, yaml.MappingNode) else None
        if isinstance(id_node, yaml.ScalarNode):
            if id_node.value in seen:
                raise QuizError(f"{path}:{id_node.start_mark.line + 1}: questions: question id {id_node.value!r} is used twice (first at line {seen[id_node.value]})")
            seen[id_node.value] = id_node.start_mark.line + 1


def load_quiz(path: Path) -> Quiz:
    """Read and validate one quiz file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise QuizError(f"{path}: no such quiz file") from None
    except (IsADirectoryError, UnicodeDecodeError) as error:
        raise QuizError(f"{path}: not a quiz file ({type(error).__name__})") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        raise QuizError(f"{path}:{line}: (yaml): {getattr(error, 'problem', None) or error}") from None
    if not isinstance(data, dict):
        raise QuizError(f"{path}:1: (top): a quiz is a mapping with id, title and questions")
    _refuse_duplicate_ids(path, node)
    try:
        return Quiz.model_validate(data)
    except ValidationError as error:
        lines = []
        for problem in error.errors():
            location = tuple(problem["loc"])
            message = problem["msg"].removeprefix("Value error, ")
            lines.append(f"{path}:{_line_of(node, location)}: {_field(location)}: {message}")
        # A union answer reports one error per branch; one line per place and message is enough.
        raise QuizError("\n".join(dict.fromkeys(lines))) from None
