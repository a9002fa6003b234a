"""Reading the misconception catalogue: each course gets its own, declared by its files and nothing else."""

from __future__ import annotations

import shutil
import sys

import pytest

from attnlab.course import Course
from attnlab.misconceptions import load_catalogue, misconception, probe, probes_of
from conftest import REPO


def _copy_course(folder, masks_catalogue: str | None = None) -> Course:
    for name in ("exercises", "solutions"):
        shutil.copytree(REPO / name, folder / name, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    if masks_catalogue is not None:
        (folder / "solutions" / "misconceptions" / "masks.py").write_text(masks_catalogue, encoding="utf-8")
    return Course.load(folder)


ONE_ENTRY = """import numpy as np

from attnlab.misconceptions import misconception, probe


@misconception("causal_mask", "every cell masked", explanation="{explanation}", hint="Keep the lower triangle.")
def causal_everything_masked(n):
    return np.zeros((n, n), dtype=bool)


probe("causal_mask", "a 3 x 3 mask", 3)
"""


def test_two_courses_with_the_same_files_get_their_own_catalogues(tmp_path):
    bundled = {m.id for m in load_catalogue(_copy_course(tmp_path / "bundled"), ["masks"])}
    other = _copy_course(
        tmp_path / "other", ONE_ENTRY.format(explanation="A mask with every cell False hides every key.")
    )
    catalogue = load_catalogue(other, ["masks"])
    assert [m.id for m in catalogue] == ["causal_everything_masked"] and "causal_everything_masked" not in bundled
    assert [p.why for p in catalogue.probes_of("causal_mask")] == ["a 3 x 3 mask"]
    assert len(bundled) > 1


def test_a_changed_catalogue_file_is_read_again(tmp_path):
    course = _copy_course(tmp_path / "course", ONE_ENTRY.format(explanation="first"))
    assert [m.explanation for m in load_catalogue(course, ["masks"])] == ["first"]
    path = course.solutions_dir / "misconceptions" / "masks.py"
    path.write_text(ONE_ENTRY.format(explanation="second, longer"), encoding="utf-8")
    assert [m.explanation for m in load_catalogue(course, ["masks"])] == ["second, longer"]
    assert [p.why for p in load_catalogue(course, ["masks"]).probes_of("causal_mask")] == ["a 3 x 3 mask"]


def test_reading_the_catalogue_adds_no_top_level_package_nor_a_path():
    before = list(sys.path)
    catalogue = load_catalogue(Course.load(REPO), ["softmax"])
    assert catalogue and catalogue.probes_of("softmax")
    assert "misconceptions" not in sys.modules and not any(m.startswith("misconceptions.") for m in sys.modules)
    assert sys.path == before


def test_the_catalogue_of_some_files_has_only_their_probes():
    catalogue = load_catalogue(Course.load(REPO), ["masks"])
    assert catalogue.probes_of("causal_mask") and not catalogue.probes_of("softmax")
    assert probes_of("softmax", catalogue) == []


def test_a_declaration_outside_a_catalogue_file_says_where_it_belongs():
    with pytest.raises(RuntimeError, match="belongs in a catalogue file"):
        probe("softmax", "anywhere", 1)
    with pytest.raises(RuntimeError, match="belongs in a catalogue file"):
        misconception("softmax", "a name", explanation="x", hint="y")(lambda x: x)
