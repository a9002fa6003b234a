"""No file of the engine, and no file of the course that reaches students, cites a file outside the
project (a contract, a design note or a warm-up that is not there). The student release is held to
the same about its own contents by its scan (tests/test_release.py)."""

from pathlib import Path

from conftest import REPO

from attnlab.export.citations import TEXT_SUFFIXES, citations, missing

# The engine, the course (stubs, public and hidden tests, catalogue, quizzes), what the release ships.
CHECKED = ("grader", "exercises", "solutions", "quizzes", "docs/contract.md", "pyproject.toml")


def checked_files(root: Path) -> list[Path]:
    files = []
    for name in CHECKED:
        path = root / name
        found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        # Build outputs (an editable install's egg-info) list files as they were at the last install.
        files += [
            p
            for p in found
            if p.suffix in TEXT_SUFFIXES
            and not any(part == "__pycache__" or part.endswith(".egg-info") for part in p.parts)
        ]
    return files


def test_no_engine_or_course_file_cites_a_file_outside_the_project():
    files = checked_files(REPO)
    assert len(files) > 100 and REPO / "exercises" / "course.toml" in files
    # The engine names its own modules from its package's root (``sandbox/inside/worker.py``).
    assert missing(files, REPO, (REPO / "grader" / "attnlab",)) == []


def test_the_contract_is_cited_where_the_course_states_its_rules():
    for path in (
        "exercises/course.toml",
        "exercises/backward.py",
        "grader/CHANGELOG.md",
        "grader/attnlab/sandbox/inside/worker.py",
    ):
        assert "docs/contract.md" in citations((REPO / path).read_text()), path


def test_a_citation_of_a_missing_file_is_found(tmp_path):
    """The check above must be able to fail: each way of citing a file that is not there."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "contract.md").write_text("# The contract\n")
    (tmp_path / "grader").mkdir()
    (tmp_path / "grader" / "README.md").write_text("the engine\n")
    # Built from parts, so that this file itself names no file outside the project.
    design, old_contract = "../" + "shared/DESIGN.md", "CONTRACT" + ".md"
    text = (
        f"See {old_contract}, {design}, solutions/warmup_torch.py and ``docs/missing.md#a-part``.\n"
        "Fine: docs/contract.md, README.md (the folder's own), solutions/NAME.py, OUT/ID/feedback.md,\n"
        "QUIZ-YOUR-ID.answers.yaml, CLASS.results/<student>.json, {name}/x.py, https://example.org/a/INDEX.md.\n"
    )
    (tmp_path / "grader" / "module.py").write_text(f'"""{text}"""\n')
    problems = missing([tmp_path / "grader" / "module.py"], tmp_path)
    cited = [p.split(": cites ")[1].removesuffix(", which is not there") for p in problems]
    assert cited == [design, "solutions/warmup_torch.py", "docs/missing.md", old_contract]
    assert all(p.startswith("grader/module.py: cites ") for p in problems)
    # A file outside the root is not found even when it exists: the project must not lean on it.
    (tmp_path.parent / "outside.md").write_text("")
    assert missing([tmp_path / "docs" / "contract.md"], tmp_path) == []
    (tmp_path / "docs" / "contract.md").write_text("see ../../outside.md\n")
    outside = missing([tmp_path / "docs" / "contract.md"], tmp_path)
    assert outside == ["docs/contract.md: cites ../../outside.md, which is not there"]
