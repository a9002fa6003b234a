"""The quiz file format, validated with pydantic; errors come out as ``file:line: field: message``.

A quiz is a YAML file::

    id: shapes
    title: Shapes and sizes
    questions:
      - id: qkt-entries
        type: integer            # integer number vector matrix shape single multiple truefalse (``kinds``)
        prompt: "With T = {T} tokens ... how many entries does Q Kᵀ have?"
        params:                  # drawn per student, in order
          T: {range: [3, 12]}
        where: "T != 4"          # optional: conditions the drawn parameters must meet
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
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from attnlab.quiz.arith import ExpressionError, condition_parts, names_in, to_python
from attnlab.quiz.errors import QuizError, yaml_place
from attnlab.quiz.kinds import KINDS
from attnlab.quiz.params import PLACEHOLDER

QuestionType = Literal[tuple(KINDS)]
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
    range: tuple[Union[int, str], Union[int, str]] | None = None
    """Whole numbers, both ends included; an end may be an expression over earlier parameters (``h_q - 1``)."""
    random: RandomArray | None = None
    permutation: Union[int, str, None] = None
    expr: str | None = None
    value: Any = None

    @model_validator(mode="after")
    def _exactly_one(self):
        given = [
            k for k in ("choice", "range", "random", "permutation", "expr", "value") if getattr(self, k) is not None
        ]
        if len(given) != 1:
            raise ValueError(
                f"give exactly one of choice, range, random, permutation, expr, value (got {', '.join(given) or 'none'})"
            )
        if self.range is not None:
            if all(isinstance(end, int) for end in self.range) and self.range[0] > self.range[1]:
                raise ValueError("range must be [low, high] with low <= high")
            for end in (e for e in self.range if isinstance(e, str)):
                _parses(end, "a range end")
        if self.expr is not None:
            _parses(self.expr, "an expr")
        return self

    def uses(self) -> set[str]:
        """The parameters this one is drawn from."""
        texts = [e for e in (self.range or ()) if isinstance(e, str)] + ([self.expr] if self.expr else [])
        used = {name for text in texts for name in names_in(text)}
        return used | ({self.permutation} if isinstance(self.permutation, str) else set())


def _parses(text: str, what: str) -> None:
    try:
        to_python(text)
    except ExpressionError as error:
        raise ValueError(f"{what} `{text}` is not a safe arithmetic expression: {error}") from None


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
    Union[
        Annotated[Expr, Tag("expr")],
        Annotated[Call, Tag("call")],
        Annotated[Union[bool, int, float, str, list], Tag("literal")],
    ],
    Discriminator(_answer_form),
]


class Mistake(Strict):
    """A common wrong answer, in the answer's own form, and what it shows the student did."""

    answer: Answer
    name: str = Field(min_length=1)
    """Short, for the instructor's table: ``forgot the 1/√d_k``."""
    explanation: str = Field(min_length=1)
    """Shown in practice when a wrong answer matches; may use the parameters, never the answer."""


class PoolItem(Strict):
    """One of a pool's equivalent items: its own prompt, options and answer (a literal)."""

    prompt: str = Field(min_length=1)
    options: list[str] | None = None
    answer: Union[bool, int, float, str, list]
    mistakes: list[Mistake] = []
    hint: str | None = Field(None, min_length=1)
    """The question's hint unless given."""
    explanation: str | None = Field(None, min_length=1)
    """The question's explanation unless given."""


class Pool(Strict):
    """Equivalent items of a question without parameters: the exam draws from ``exam``, practice
    from ``practice``, so practice never checks an item an exam asks."""

    exam: list[PoolItem] = Field(min_length=1)
    practice: list[PoolItem] = Field(min_length=1)


class Question(Strict):
    id: str = Field(pattern=SLUG)
    type: QuestionType
    prompt: str | None = Field(None, min_length=1)
    options: list[str] | None = None
    params: dict[str, Param] = {}
    where: list[str] = []
    """Conditions over the parameters that every variant meets (``L_q != L_k``); a draw that breaks one is drawn again."""
    answer: Answer | None = None
    pool: Pool | None = None
    """Instead of prompt, options, answer and mistakes: a pool of equivalent items (see ``Pool``)."""
    mistakes: list[Mistake] = []
    """Common wrong answers; matched by the same rule as the answer (a right answer is never a mistake)."""
    tolerance: float = Field(0.005, gt=0)
    """Absolute tolerance of number, vector and matrix answers: half the grid they are marked on."""
    slack: float = Field(0.0, ge=0)
    """What rounding intermediate results may add to the error of a right answer (numbers only)."""
    rounded: int | None = Field(None, ge=0, le=8)
    """The decimals a student keeps along the way, for lint's check of ``slack`` (default: those asked)."""
    relative: float | None = Field(None, gt=0, lt=1)
    """Relative tolerance: an answer within ``relative * |key|`` is right too (for large magnitudes)."""
    expressions: bool = False
    """Whether the student may type arithmetic (``e/(2*e + 1)``, ``sqrt(2)``); numbers and fractions always."""
    points: float = Field(1.0, gt=0)
    practice: Literal["check", "record"] | None = None
    """Whether practice checks a question without parameters or pool (see ``checked_in_practice``)."""
    hint: str = Field(min_length=1)
    explanation: str = Field(min_length=1)
    concepts: list[str] = Field(min_length=1)

    @property
    def checked_in_practice(self) -> bool:
        """Practice checks a question with parameters or a pool (on variants no exam asks); one with
        neither is the exam's own question, recorded unless the author accepts with
        ``practice: check`` that practising it gives the exam's answer away (lint refuses it)."""
        if self.params or self.pool:
            return True
        return self.practice == "check"

    def items(self, sitting: str) -> list[PoolItem]:
        """A pool's items for ``sitting`` (``exam`` or ``practice``)."""
        return self.pool.exam if sitting == "exam" else self.pool.practice

    @field_validator("where", mode="before")
    @classmethod
    def _one_or_more(cls, value):
        return [value] if isinstance(value, str) else value

    @field_validator("where")
    @classmethod
    def _conditions(cls, conditions, info: ValidationInfo):
        for condition in conditions:
            try:
                condition_parts(condition)
            except ExpressionError as error:
                raise ValueError(f"`{condition}` is not a condition: {error}") from None
            if "params" not in info.data:  # the parameters have errors of their own: report those
                continue
            unknown = sorted(names_in(condition) - set(info.data["params"]))
            if unknown:
                raise ValueError(f"`{condition}` uses {', '.join(unknown)}, which is not a parameter")
        return conditions

    @model_validator(mode="after")
    def _consistent(self):
        earlier: set[str] = set()
        for name, param in self.params.items():  # drawn in order: a parameter can only use those before it
            later = sorted(param.uses() - earlier)
            if later:
                raise ValueError(f"parameter {name} uses {', '.join(later)}, which is not a parameter drawn before it")
            earlier.add(name)
        if self.practice == "record" and self.params:
            raise ValueError(
                "practice: record is for a question without parameters (one with parameters is practised on variants no exam has)"
            )
        self._check_form()
        if (self.slack or self.rounded is not None or self.relative) and not KINDS[self.type].numeric:
            numeric = ", ".join(name for name, kind in KINDS.items() if kind.numeric)
            numeric = " and ".join(numeric.rsplit(", ", 1))
            raise ValueError(f"slack, rounded and relative are for {numeric} questions, not {self.type}")
        for name in self.params:
            if not name.isidentifier():
                raise ValueError(f"parameter name {name!r} is not an identifier")
        items = self.pool.exam + self.pool.practice if self.pool else []
        texts = {
            "prompt": [self.prompt or ""] + [i.prompt for i in items],
            "hint": [self.hint] + [i.hint for i in items if i.hint],
            "options": (self.options or []) + [o for i in items for o in i.options or []],
            "explanation": [self.explanation] + [i.explanation for i in items if i.explanation],
            "mistakes": [m.explanation for m in self.mistakes] + [m.explanation for i in items for m in i.mistakes],
        }
        for field, items in texts.items():
            known = set(self.params) | (
                {"answer"} if field == "explanation" else set()
            )  # the answer only after answering
            for name in (n for text in items for n in PLACEHOLDER.findall(text)):
                if name not in known:
                    raise ValueError(
                        f"{field} uses {{{name}}}, which is not a parameter"
                        + (" (the answer may appear in the explanation only)" if name == "answer" else "")
                    )
        return self

    def _check_form(self) -> None:
        """Either prompt and answer (with options for a choice), or a pool of items that each have them."""
        if self.pool is None:
            if self.prompt is None or self.answer is None:
                raise ValueError("a question needs a prompt and an answer (or a pool of items that have them)")
            self._check_options(self.options, "")
            return
        given = [name for name in ("prompt", "options", "answer", "params", "practice") if getattr(self, name)]
        if given or self.mistakes:
            kept = ", ".join(given or ["mistakes"])
            raise ValueError(f"a question with a pool keeps {kept} in its items (and has no parameters)")
        seen = {}
        for sitting in ("exam", "practice"):
            for index, item in enumerate(self.items(sitting)):
                self._check_options(item.options, f"pool.{sitting}.{index}: ")
                same = seen.get(_item_text(item))
                if same and same[0] != sitting:
                    first = f"pool.{same[0]}.{same[1]}"
                    raise ValueError(f"pool.{sitting}.{index} is the item {first}: practice and the exam draw apart")
                seen.setdefault(_item_text(item), (sitting, index))

    def _check_options(self, options, where: str) -> None:
        problem = KINDS[self.type].options_problem(options)
        if problem:
            raise ValueError(f"{where}{problem}")


def _item_text(item: PoolItem) -> str:
    """An item as a reader sees it (spaces and case aside): two items that read alike are one."""
    return " ".join(" ".join([item.prompt, *(item.options or [])]).lower().split())


class Quiz(Strict):
    id: str = Field(pattern=SLUG)
    title: str = Field(min_length=1)
    description: str = ""
    questions: list[Question] = Field(min_length=1)
    _lines: dict = PrivateAttr(default_factory=dict)
    """(question id, field) -> line in the file, for lint's messages; empty for a quiz not read from a file."""

    def line_of(self, question_id: str, field: str | None = None) -> int | None:
        """The line of a question's ``field`` (of the question itself when None) in its file, if known."""
        return self._lines.get((question_id, field)) or self._lines.get((question_id, None))

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
    questions = next(
        (value for key, value in getattr(node, "value", []) if getattr(key, "value", None) == "questions"), None
    )
    seen: dict[str, int] = {}
    for item in getattr(questions, "value", []) if isinstance(questions, yaml.SequenceNode) else []:
        id_node = (
            next((value for key, value in getattr(item, "value", []) if getattr(key, "value", None) == "id"), None)
            if isinstance(item, yaml.MappingNode)
            else None
        )
        if isinstance(id_node, yaml.ScalarNode):
            if id_node.value in seen:
                raise QuizError(
                    f"{path}:{id_node.start_mark.line + 1}: questions: question id {id_node.value!r} is used twice (first at line {seen[id_node.value]})"
                )
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
        line, problem = yaml_place(error, text)
        raise QuizError(f"{path}:{line}: (yaml): {problem}") from None
    if not isinstance(data, dict):
        raise QuizError(f"{path}:1: (top): a quiz is a mapping with id, title and questions")
    _refuse_duplicate_ids(path, node)
    try:
        quiz = Quiz.model_validate(data)
    except ValidationError as error:
        lines = []
        for problem in error.errors():
            location = tuple(problem["loc"])
            message = problem["msg"].removeprefix("Value error, ")
            lines.append(f"{path}:{_line_of(node, location)}: {_field(location)}: {message}")
        # A union answer reports one error per branch; one line per place and message is enough.
        raise QuizError("\n".join(dict.fromkeys(lines))) from None
    for index, question in enumerate(quiz.questions):
        quiz._lines[(question.id, None)] = _line_of(node, ("questions", index))
        if question.where:
            quiz._lines[(question.id, "where")] = _line_of(node, ("questions", index, "where"))
        for name in question.params:
            quiz._lines[(question.id, f"params.{name}")] = _line_of(node, ("questions", index, "params", name))
    return quiz
