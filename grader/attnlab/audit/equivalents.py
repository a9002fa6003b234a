"""The reviewed list of equivalent mutants: mutations that change the code but not what it computes.

No test can kill such a mutant, so the mutation score leaves it out. The list is content, kept
by the course author in ``solutions/equivalent_mutants.toml``; each entry names the mutation by
the file, the function and the changed lines (as ``attnlab audit`` prints them: indentation
and comments dropped), never by a mutant's number, which moves when the code above it changes::

    [[mutant]]
    file = "softmax"
    function = "softmax"
    before = "exps = np.exp(shifted)"
    after = "exps = np.exp(shifted, )"
    reason = "one line: why the mutant computes the same thing"
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from attnlab.audit.mutants import Mutant
from attnlab.course import CourseError

EQUIVALENTS_FILE = "equivalent_mutants.toml"


class EquivalentMutant(BaseModel):
    """One reviewed entry: a mutation that computes what the reference computes, and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str = Field(min_length=1)
    function: str = Field(min_length=1)
    before: str
    after: str
    reason: str = Field(min_length=1, pattern=r"^[^\n]+$")

    def matches(self, mutant: Mutant) -> bool:
        return (self.file, self.function, self.before, self.after) == (
            mutant.module,
            mutant.function,
            mutant.before,
            mutant.after,
        )


class _EquivalentsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mutant: list[EquivalentMutant] = []


def load_equivalents(solutions_dir: Path) -> list[EquivalentMutant]:
    """The reviewed entries of ``solutions_dir``'s list (none when it has no list); a malformed
    list is a ``CourseError`` naming the entry and the field."""
    path = solutions_dir / EQUIVALENTS_FILE
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise CourseError(f"{path}: not valid TOML: {error}") from None
    try:
        return _EquivalentsFile.model_validate(data).mutant
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        if problem["loc"][:1] == ("mutant",) and len(problem["loc"]) > 1:
            where = f"entry {problem['loc'][1] + 1}" + "".join(f", {part}" for part in problem["loc"][2:])
        raise CourseError(f"{path}: {where}: {problem['msg']}") from None
