"""The engine's import graph: no cycles, no upward imports, and the untrusted side imports nothing
of the grader but the wire format.

The layers, lowest first. A module may import the modules of its own group (the base modules, or
one package) and of the layers below its own; never a layer above, nor another group of its own
layer:

1. ``wire``: the wire format.
2. ``sandbox.inside``: what runs untrusted. It imports only ``wire``, so any module may use it:
   the misconception catalogue calls a torch module's class through its harness, as a worker does.
3. The base modules: every module at the top of ``attnlab`` but ``cli`` (``course``, ``reference``,
   ``misconceptions``, ``lifecycle``, ...).
4. ``intake``: the class's submissions found and read, and the class list.
5. ``export.sheets``: grade sheets for an LMS, on the class list; the class and the quiz grades use them.
6. ``sandbox`` (its host side), ``check``, ``quiz`` and ``report``: each on the layers below.
7. ``export.quiz``: question banks for an LMS (Moodle XML, QTI), on ``quiz``.
8. ``grading``: one submission graded, in the sandbox, the one procedure every path follows (its
   ``replay`` package: the reference's recorded run, and asking a submission for it again).
9. ``export``: what leaves the instructor's machine: it grades with ``grading`` and ships ``quiz`` copies.
10. ``classroom``: a whole class, each submission graded as alone.
11. ``audit``: the hidden suite's mutation score, its mutants graded as a class; and
    ``similarity``: pairs of students whose code is alike, the class read as ``classroom`` reads it.
12. ``cli``: the command over all of them.

``export`` is one home for everything that leaves the instructor's machine; its sheets and its
question banks sit lower than the course exports, as low as what they are made of.
"""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1] / "grader"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ENGINE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each engine module and the engine modules it imports, anywhere in its body."""
    paths = {_module_name(p): p for p in (ENGINE / "attnlab").rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.level == 0
                and node.module.startswith("attnlab")
            ):
                for alias in node.names:
                    target = f"{node.module}.{alias.name}"
                    graph[name].add(target if target in paths else node.module)
            elif isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names if alias.name in paths)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_the_engine_has_no_import_cycle():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_what_runs_untrusted_imports_only_the_wire_format_of_the_grader():
    graph = import_graph()
    inside = [name for name in graph if name.startswith("attnlab.sandbox.inside")]
    assert inside
    for name in inside:
        outside = {t for t in graph[name] if not t.startswith("attnlab.sandbox.inside") and t != "attnlab.wire"}
        assert not outside, f"{name} imports {sorted(outside)}"


LAYERS: tuple[tuple[str, ...], ...] = (
    ("attnlab.wire",),
    ("attnlab.sandbox.inside",),
    ("attnlab",),  # the base modules: what no other group claims
    ("attnlab.intake",),
    ("attnlab.export.sheets",),
    ("attnlab.sandbox", "attnlab.check", "attnlab.quiz", "attnlab.report"),
    ("attnlab.export.quiz",),
    ("attnlab.grading",),
    ("attnlab.export",),
    ("attnlab.classroom",),
    ("attnlab.audit", "attnlab.similarity", "attnlab.lab"),
    ("attnlab.cli",),
)


def place(module: str) -> tuple[int, str]:
    """The layer of ``module`` and its group: the longest group name it is, or lies inside."""
    found = [
        (len(group), layer, group)
        for layer, groups in enumerate(LAYERS)
        for group in groups
        if module == group or module.startswith(group + ".")
    ]
    _, layer, group = max(found)
    return layer, group


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Each import of a module in a layer above the importer's, or of another group in its layer."""
    found = []
    for name, targets in sorted(graph.items()):
        layer, group = place(name)
        for target in sorted(targets):
            target_layer, target_group = place(target)
            if target_group != group and target_layer >= layer:
                found.append(f"{name} imports {target}")
    return found


def test_the_engine_imports_only_downwards():
    assert upward_imports(import_graph()) == []


def test_the_layer_check_finds_an_upward_import_and_one_across():
    graph = {
        "attnlab.course": {"attnlab.grading.suite"},  # a base module on a package
        "attnlab.check.run": {
            "attnlab.report.terminal",
            "attnlab.check.deadline",
            "attnlab.wire",
        },  # across; within; down
        "attnlab.misconceptions": {"attnlab.sandbox.inside.module_harness"},  # down to the untrusted side
    }
    assert upward_imports(graph) == [
        "attnlab.check.run imports attnlab.report.terminal",
        "attnlab.course imports attnlab.grading.suite",
    ]


def test_every_package_has_its_place_in_the_layers():
    """A new package is placed on purpose: the base layer holds modules at the top only."""
    for name in import_graph():
        if name.count(".") > 1 or (ENGINE / Path(*name.split("."))).is_dir():
            assert name == "attnlab" or place(name)[1] != "attnlab", f"{name} is in a package with no place in LAYERS"


def test_no_engine_module_is_over_600_lines():
    """A module past 600 lines holds more than one job: split it where the jobs part."""
    engine = ENGINE / "attnlab"
    long = {str(p.relative_to(engine)): n for p in engine.rglob("*.py") if (n := len(p.read_text().splitlines())) > 600}
    assert long == {}
