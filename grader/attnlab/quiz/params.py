"""Draw a student's parameters and render text with them; plain dicts in, plain values out.

A student's exam variant of a question is drawn from a seed derived from
(quiz id, question id, student id), so a student always meets the same variant
and the instructor can rebuild the key. Practice variants come from a separate
pool of ``PRACTICE_VARIANTS`` seeds that no student id can produce (another
domain of the hash), and an exam draw that equals a practice variant is drawn
again (as one that breaks a ``where:``), so practice never checks an exam variant.
A range's ends may be expressions over earlier parameters, and a question's
``where:`` conditions must hold: a draw that breaks one is drawn again from the
same generator, up to ``MAX_DRAWS`` times (so adding a condition changes only
the variants it rejects). This module imports nothing heavy: the student's copy
of a quiz draws its prompts with it at start-up.
"""

from __future__ import annotations

import hashlib
import random
import re

from attnlab.quiz.arith import evaluate, holds

PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_]\w*)\}(?!\})")


PRACTICE_VARIANTS = 5
MAX_DRAWS = 100
"""Draws tried before a question's ``where:`` is given up on; lint asks that a condition hold in a
quarter of draws at least, so a student's variant fails to draw with odds of 0.75^100 ≈ 3e-13."""


class DrawError(ValueError):
    """The parameters cannot be drawn (an empty range, a condition that does not hold)."""

    def __init__(self, message: str, field: str = "params"):
        super().__init__(message)
        self.field = field
        """Where in the question the fault is (``where``, or ``params.NAME``), for the line lint shows."""


def variant_seed(quiz_id: str, question_id: str, student: str) -> int:
    """The seed of a student's exam variant."""
    digest = hashlib.sha256(f"attnlab-quiz\0{quiz_id}\0{question_id}\0{student}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def practice_index(quiz_id: str, question_id: str, student: str, pool: int = PRACTICE_VARIANTS) -> int:
    """Which of the practice pool's variants a student meets (stable, so progress resumes)."""
    digest = hashlib.sha256(f"attnlab-quiz-practice-pick\0{quiz_id}\0{question_id}\0{student}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % pool


def practice_seed(quiz_id: str, question_id: str, index: int) -> int:
    """The seed of practice variant ``index``: its own hash domain, so it is never an exam seed."""
    digest = hashlib.sha256(f"attnlab-quiz-practice\0{quiz_id}\0{question_id}\0{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def practice_values(
    specs: dict[str, dict], quiz_id: str, question_id: str, where: list[str] | tuple = ()
) -> list[dict]:
    """The values of every variant of the practice pool, which exam draws avoid."""
    return [draw(specs, practice_seed(quiz_id, question_id, index), where) for index in range(PRACTICE_VARIANTS)]


def seed_for(quiz_id: str, question_id: str, student: str, sitting: str) -> int:
    """The seed of the variant ``student`` meets in ``sitting`` (``exam`` or ``practice``)."""
    if sitting == "practice":
        return practice_seed(quiz_id, question_id, practice_index(quiz_id, question_id, student))
    return variant_seed(quiz_id, question_id, student)


def draw(specs: dict[str, dict], seed: int, where: list[str] | tuple = ()) -> dict:
    """Draw every parameter in declaration order (later ones may use earlier ones) until ``where`` holds."""
    return draw_counted(specs, seed, where)[0]


def draw_counted(
    specs: dict[str, dict], seed: int, where: list[str] | tuple = (), avoid: list[dict] | tuple = ()
) -> tuple[dict, int, int]:
    """(the drawn values, how many draws it took, how many of them ``where`` let through but were
    in ``avoid``, the practice variants an exam variant never is): lint's measure of both."""
    rng = random.Random(seed)
    practice_only = 0
    for attempt in range(1, MAX_DRAWS + 1):
        values = _draw_once(specs, rng)
        if all(_holds(condition, values) for condition in where):
            if values not in avoid:
                return values, attempt, practice_only
            practice_only += 1
    if practice_only:
        raise DrawError(
            f"every draw the conditions allowed was a practice variant ({practice_only} of {MAX_DRAWS}):"
            " give the parameters more values, so that the exam has variants practice does not ask",
            "params",
        )
    conditions = " and ".join(f"`{c}`" for c in where)
    raise DrawError(f"where {conditions} held in none of {MAX_DRAWS} draws", "where")


def _holds(condition: str, values: dict) -> bool:
    try:
        return holds(condition, _scalars(values))
    except ValueError as error:
        raise DrawError(f"where `{condition}`: {error}", "where") from None


def _scalars(values: dict) -> dict:
    """The values arithmetic may use: numbers, and lists of them (indexed as ``s[0]``)."""
    return {k: v for k, v in values.items() if isinstance(v, (int, float, list, tuple)) and not isinstance(v, bool)}


def _draw_once(specs: dict[str, dict], rng: random.Random) -> dict:
    values: dict = {}
    for name, spec in specs.items():
        try:
            values[name] = _draw_one(spec, values, rng)
        except (ValueError, TypeError) as error:  # an empty range, an expr that fails: named with its parameter
            raise DrawError(f"{name}: {error}", f"params.{name}") from None
    return values


def _draw_one(spec: dict, values: dict, rng: random.Random):
    if spec.get("choice") is not None:
        return rng.choice(spec["choice"])
    if spec.get("range") is not None:
        low, high = (_range_end(end, values) for end in spec["range"])
        if low > high:
            raise DrawError(f"range {_shown(spec['range'])} is empty here ({low} > {high})")
        return rng.randint(low, high)
    if spec.get("random") is not None:
        return _random_array(rng, spec["random"])
    if spec.get("permutation") is not None:
        size = spec["permutation"]
        return _permutation(rng, values[size] if isinstance(size, str) else size)
    if spec.get("expr") is not None:
        return evaluate(spec["expr"], _scalars(values))
    return spec.get("value")


def _range_end(end, values: dict) -> int:
    """A range's end: a whole number, or an expression over earlier parameters that gives one."""
    if not isinstance(end, str):
        return end
    value = evaluate(end, _scalars(values))
    if isinstance(value, tuple) or float(value) != int(value):
        raise DrawError(f"range end `{end}` is {format_value(value)}, not a whole number")
    return int(value)


def _shown(ends) -> str:
    return "[" + ", ".join(str(end) for end in ends) + "]"


def _random_array(rng: random.Random, spec: dict) -> list:
    low, high, decimals = spec.get("low", -2.0), spec.get("high", 2.0), spec.get("decimals", 1)
    shape = spec["shape"]

    def entry():
        return round(rng.uniform(low, high), decimals) + 0.0  # -0.0 is 0.0, and is shown so

    if len(shape) == 1:
        return [entry() for _ in range(shape[0])]
    return [[entry() for _ in range(shape[1])] for _ in range(shape[0])]


def _permutation(rng: random.Random, size: int) -> list[int]:
    order = list(range(size))
    rng.shuffle(order)
    if size > 1 and order == sorted(order):
        order = order[1:] + order[:1]  # never the identity: it would make every permutation question trivial
    return order


def format_value(value) -> str:
    """A parameter or answer as text: matrices as aligned tables on their own lines."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        value += 0.0  # never "-0"
        shown = f"{value:.6g}"
        if float(shown) != value and float(shown).is_integer():  # 0.99999989 is not "1"
            shown = f"{value:.12g}"
        return shown
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple)):
        cells = [[format_value(x) for x in row] for row in value]
        width = max(len(c) for row in cells for c in row)
        return "\n" + "\n".join("    [ " + "  ".join(c.rjust(width) for c in row) + " ]" for row in cells) + "\n"
    if isinstance(value, tuple):
        return "(" + ", ".join(format_value(x) for x in value) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(format_value(x) for x in value) + "]"
    return str(value)


def render(template: str, values: dict) -> str:
    """Replace ``{name}`` with the value's text; ``{{`` and ``}}`` stand for braces."""
    text = PLACEHOLDER.sub(lambda m: format_value(values[m.group(1)]) if m.group(1) in values else m.group(0), template)
    return text.replace("{{", "{").replace("}}", "}")
