"""Mutants of a solution file's solution regions, made by mutmut's own mutation operators.

mutmut (pinned in pyproject.toml) walks a libcst tree and asks each of its operators for the
mutated versions of every node: ``+`` becomes ``-``, ``<`` becomes ``<=``, a number gains 1, an
argument is dropped or becomes ``None``, an assignment's value becomes ``None``, ``True`` becomes
``False``, and so on. Only nodes that start on a line inside a solution region are mutated: the
signatures, docstrings and imports around them are the course's, not what students write.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import libcst as cst
from mutmut.mutation.file_mutation import MutationVisitor, deep_replace
from mutmut.mutation.mutators import mutation_operators
from mutmut.mutation.pragma_handling import IgnoredCode

from attnlab.export.stubs import HINT, solution_regions


@dataclass(frozen=True)
class Mutant:
    """One mutated copy of one solution file."""

    id: str
    """Unique within a course: ``masks.padding_mask.3`` (file, function, number in source order)."""
    module: str
    """The exercise file, without ``.py``."""
    function: str
    """The function whose region was mutated (``Class.method`` for a method)."""
    line: int
    """The first line of the solution file that the mutation changes."""
    before: str
    """The changed lines as the reference has them, stripped of indentation and comments."""
    after: str
    """The same lines in the mutant."""
    source: str
    """The whole mutated file."""

    @property
    def diff(self) -> str:
        """A unified diff of the mutation against the solution file, without context lines."""
        return (
            f"--- solutions/{self.module}.py:{self.line}\n+++ mutant {self.id}\n"
            + "".join(f"-{line}\n" for line in self.before.splitlines())
            + "".join(f"+{line}\n" for line in self.after.splitlines())
        )


def _code_only(lines: list[str]) -> str:
    """Lines as they are compared and shown: indentation and trailing comments dropped."""
    kept = []
    for line in lines:
        code = line.strip()
        if "  # " in code:
            code = code[: code.index("  # ")].rstrip()
        kept.append(code)
    return "\n".join(kept)


def _changed_lines(original: list[str], mutated: list[str]) -> tuple[int, str, str]:
    """The first line the mutation changes, and the changed lines before and after it."""
    opcodes = [
        op for op in difflib.SequenceMatcher(a=original, b=mutated, autojunk=False).get_opcodes() if op[0] != "equal"
    ]
    first, last = opcodes[0], opcodes[-1]
    return first[1] + 1, _code_only(original[first[1] : last[2]]), _code_only(mutated[first[3] : last[4]])


def mutants_of(module: str, source: str, filename: str) -> list[Mutant]:
    """Every mutant of ``source``'s solution regions, in source order; ``StubError`` for a
    malformed region. Two mutations that give the same file are one mutant."""
    regions = solution_regions(source, filename)
    lines = source.splitlines()
    inside = {n for region in regions for n in region.code_lines if not lines[n - 1].strip().startswith(HINT)}
    outside = set(range(1, len(lines) + 1)) - inside
    wrapper = cst.MetadataWrapper(cst.parse_module(source))
    visitor = MutationVisitor(
        mutation_operators, IgnoredCode(no_mutate_lines=outside, ignore_node_lines=set(), ignore_pattern_lines=set())
    )
    tree = wrapper.visit(visitor)
    function_of = {n: region.function or "(module)" for region in regions for n in region.code_lines}
    mutants, seen, numbers = [], {source}, {}
    for mutation in visitor.mutations:
        mutated = deep_replace(tree, mutation.original_node, mutation.mutated_node)
        code = mutated.code if isinstance(mutated, cst.Module) else ""
        if code in seen:
            continue
        seen.add(code)
        line, before, after = _changed_lines(lines, code.splitlines())
        function = function_of.get(line, "(module)")
        numbers[function] = numbers.get(function, 0) + 1
        mutants.append(Mutant(f"{module}.{function}.{numbers[function]}", module, function, line, before, after, code))
    return mutants
