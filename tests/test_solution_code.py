"""A notebook's solution code is what is graded: plots, prints and exploration never cost points.

The rule (``attnlab.intake.solution_code``): definitions are kept, and whatever binds a name they read;
everything else is set aside, and the note that says so reaches the student's report. The real
command grades a notebook whose first cell imports matplotlib, which the sandbox does not hold.
"""

import json
import subprocess
import sys
import time

import pytest
from conftest import COURSE, REPO

from attnlab.intake.class_folder import find_entries
from attnlab.intake.roster import notebook_cells, stage_submission
from attnlab.intake.solution_code import MAX_SORTED_BYTES, CodeCell, solution_code

SOFTMAX = (COURSE.solutions_dir / "softmax.py").read_text()
EXPLORED = [
    "import matplotlib.pyplot as plt\nimport numpy as np",
    "EPS = 0.0\n\ndef softmax(x, axis=-1):\n    weights = np.exp(x - x.max(axis=axis, keepdims=True)) + EPS\n    return weights / weights.sum(axis=axis, keepdims=True)",
    "weights = softmax(np.array([[1.0, 2.0], [3.0, 5.0]]))\nplt.imshow(weights)\nprint(weights)",
]


def cells(*sources, nbgrader=None):
    return [CodeCell(number, source, (nbgrader or {}).get(number)) for number, source in enumerate(sources, start=1)]


def notebook(folder, name, sources, metadata=None):
    folder.mkdir(parents=True, exist_ok=True)
    document = {
        "cells": [
            {"cell_type": "code", "source": s, "metadata": (metadata or {}).get(i, {})}
            for i, s in enumerate(sources, start=1)
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (folder / name).write_text(json.dumps(document))
    return folder / name


def test_definitions_and_what_they_read_are_kept_and_the_rest_is_named():
    solution = solution_code(cells(*EXPLORED), "softmax.ipynb")
    namespace = {}
    exec(compile(solution.code, "softmax.py", "exec"), namespace)  # no matplotlib needed, nothing printed
    assert sorted(n for n in namespace if not n.startswith("__")) == ["EPS", "np", "softmax"]
    # The function's own local `weights` does not pull in the exploration's `weights = softmax(...)`.
    assert "plt" not in solution.code and "imshow" not in solution.code and "print(" not in solution.code
    assert solution.skipped.startswith("softmax.ipynb: not run, as no function of yours uses it")
    assert (
        "cell 1 `import matplotlib.pyplot as plt`" in solution.skipped
        and "cell 3 `plt.imshow(weights)`" in solution.skipped
    )


def test_a_function_that_plots_keeps_its_import():
    # Set aside only what no function uses: a function that plots needs matplotlib, and says so when graded.
    solution = solution_code(
        cells("import matplotlib.pyplot as plt", "def show(w):\n    plt.imshow(w)"), "softmax.ipynb"
    )
    assert "import matplotlib.pyplot as plt" in solution.code and solution.skipped is None


def test_names_read_through_decorators_defaults_bases_and_chains_are_kept():
    code = solution_code(
        cells(
            "import functools as ft\nimport numpy as np\nSCALE = np.float64(2.0)\nLIMIT = SCALE * 3\nprint('hello')",
            "@ft.lru_cache\ndef limit(x=LIMIT):\n    return x",
            "class Base: pass\nclass Thing(Base):\n    size = np.int64(1)",
        ),
        "scores.ipynb",
    )
    namespace = {}
    exec(compile(code.code, "scores.py", "exec"), namespace)
    assert namespace["limit"]() == 6.0 and issubclass(namespace["Thing"], namespace["Base"])
    assert (
        code.skipped
        == "scores.ipynb: not run, as no function of yours uses it (plots, prints, trying things out): cell 1 `print('hello')`"
    )


def test_an_exported_notebooks_own_cells_are_set_aside_without_a_word():
    metadata = {
        1: {"grade_id": "setup-attention", "locked": True},
        2: {"grade_id": "attention-f", "solution": True},
        3: {"grade_id": "public-tests-attention", "locked": True},
        4: {"grade_id": "attention-test-x", "grade": True, "locked": True, "points": 1},
    }
    solution = solution_code(
        cells(
            "from notebook_imports import import_notebooks\nimport_notebooks(['softmax'])\nimport numpy as np\nfrom softmax import softmax",
            "def f(x):\n    return helper(softmax(x))",
            "from public_checks import run_public_tests\ndef test_f():\n    assert f(1)\nrun_public_tests([test_f])",
            "# hidden test (1 point)",
            "def helper(x):  # a cell the student added: theirs, so kept\n    return x",
            nbgrader=metadata,
        ),
        "attention.ipynb",
    )
    assert (
        "notebook_imports" not in solution.code
        and "public_checks" not in solution.code
        and "test_f" not in solution.code
    )
    assert "from softmax import softmax" in solution.code and "def helper" in solution.code
    assert solution.skipped is None


def test_a_cell_that_is_not_python_is_named_and_the_others_are_graded():
    solution = solution_code(
        cells("import numpy as np", "def broken(:\n    pass", "def softmax(x):\n    return np.exp(x)"), "softmax.ipynb"
    )
    compile(solution.code, "softmax.py", "exec")
    assert (
        "def softmax" in solution.code
        and solution.skipped == "softmax.ipynb: cell 2 is not valid Python (line 1: invalid syntax)"
    )


def test_staging_never_runs_the_notebooks_code(tmp_path):
    marker = tmp_path / "ran"
    notebook(
        tmp_path / "class" / "eve",
        "softmax.ipynb",
        [f"open({str(marker)!r}, 'w').close()", f"def softmax(x, d=open({str(marker)!r}, 'w')):\n    return x"],
    )
    [entry] = find_entries(tmp_path / "class", COURSE)
    staged = stage_submission(entry, COURSE, tmp_path / "staging")
    assert not marker.exists()
    assert "def softmax" in (staged.folder / "softmax.py").read_text()
    [note] = staged.notes
    assert note.startswith(
        "notebook cells not run, as no function of yours uses them (plots, prints, trying things out): softmax.ipynb cell 1 `open("
    ) and note.endswith("...`")


def test_a_long_chain_of_names_is_sorted_in_one_pass():
    # Each statement reads the one before: a worklist looks at each once, not once per link.
    chain = "\n".join(["x0 = 0", *(f"x{i} = x{i - 1}" for i in range(1, 3000)), "def f():\n    return x2999"])
    started = time.perf_counter()
    solution = solution_code(cells(chain), "softmax.ipynb")
    assert solution.skipped is None and solution.code.count("\n") >= 3000
    assert time.perf_counter() - started < 30  # a bound on runaway work, not a benchmark


def test_a_notebook_too_large_to_sort_is_run_whole_and_says_so():
    big = "def softmax(x):\n    return x\n" + "#" * MAX_SORTED_BYTES + "\nprint(1)"
    solution = solution_code(cells("import numpy as np", big), "softmax.ipynb")
    assert solution.code.startswith("import numpy as np") and "print(1)" in solution.code
    assert (
        solution.skipped
        == "softmax.ipynb: too large to sort its functions from the rest, so all of its code cells were run as one file"
    )


def test_magics_are_dropped_and_metadata_read(tmp_path):
    path = notebook(
        tmp_path,
        "softmax.ipynb",
        ["%matplotlib inline\nimport numpy as np"],
        {1: {"nbgrader": {"grade_id": "setup-softmax", "locked": True}}},
    )
    [cell] = notebook_cells(path.read_bytes(), path.name)
    assert cell.source == "import numpy as np" and cell.nbgrader == {"grade_id": "setup-softmax", "locked": True}


def test_attnlab_grade_grades_a_notebook_with_a_matplotlib_cell_and_says_what_it_skipped(tmp_path):
    body = SOFTMAX.split("import numpy as np", 1)[1]
    notebook(
        tmp_path / "ada",
        "softmax.ipynb",
        ["import matplotlib.pyplot as plt\nimport numpy as np", body, "plt.plot(softmax(np.arange(3.0)))\nplt.show()"],
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnlab.cli",
            "grade",
            str(tmp_path / "ada"),
            "--only",
            "softmax",
            "--course",
            str(REPO),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "100%" in out, result.stdout
    # Said once, under a heading that does not read as if the notebook were not graded.
    assert (
        "About what you handed in: · notebook cells not run, as no function of yours uses them (plots, prints, trying things out): softmax.ipynb cell 1 `import matplotlib.pyplot as plt`; cell 3 `plt.plot(softmax(np.arange(3.0)))`; cell 3 `plt.show()`"
        in out
    )
    assert "Not graded" not in out


@pytest.mark.parametrize("hidden", ["nbgrader", "plain"])
def test_the_note_reaches_the_report_and_gradescope(tmp_path, hidden):
    from attnlab.grading.suite import grade, grade_entry
    from attnlab.report.html import render_html
    from attnlab.intake.roster import Entry

    metadata = {2: {"nbgrader": {"grade_id": "softmax-softmax", "solution": True}}} if hidden == "nbgrader" else {}
    notebook(
        tmp_path / "bob",
        "softmax.ipynb",
        ["import numpy as np", SOFTMAX.split("import numpy as np", 1)[1], "print('<b>*hi*</b>')"],
        metadata,
    )
    report = grade_entry(
        COURSE,
        Entry("bob", tmp_path / "bob"),
        grade_folder=lambda folder: grade(COURSE, folder, only=["softmax"], in_process=True),
    )
    assert report.score == report.max_score > 0
    assert report.notes == (
        "notebook cells not run, as no function of yours uses them (plots, prints, trying things out): softmax.ipynb cell 3 `print('<b>*hi*</b>')`",
    )
    assert "<li>notebook cells not run" in render_html(report) and "<b>*hi*</b>" not in render_html(report)
    assert report.to_gradescope()["output"].endswith(report.notes[0]) and report.to_dict()["notes"] == list(
        report.notes
    )


def test_an_exercise_name_bound_without_def_and_a_table_filled_in_a_loop_are_kept():
    # An honest student's notebook: graded names bound by assignment, a global table filled by a
    # loop, a seed set by a call; none of it may be set aside.
    solution = solution_code(
        cells(
            "import numpy as np\nnp.random.seed(0)\nTABLE = {}\nfor i in range(3):\n    TABLE[i] = i * i\nSHIFT = [0.0]\nSHIFT.append(1.0)",
            "def stable(x, axis=-1):\n    e = np.exp(x - x.max(axis=axis, keepdims=True))\n    return e / e.sum(axis=axis, keepdims=True) + 0 * TABLE[2] * SHIFT[1]",
            "softmax = stable",
            "import matplotlib.pyplot as plt\nplt.plot(softmax(np.arange(3.0)))",
        ),
        "softmax.ipynb",
        ("softmax",),
    )
    namespace = {}
    exec(compile(solution.code, "softmax.py", "exec"), namespace)
    assert (
        namespace["softmax"] is namespace["stable"]
        and namespace["TABLE"] == {0: 0, 1: 1, 2: 4}
        and namespace["SHIFT"] == [0.0, 1.0]
    )
    assert solution.skipped.endswith(
        "cell 4 `import matplotlib.pyplot as plt`; cell 4 `plt.plot(softmax(np.arange(3.0)))`"
    )


def test_many_cells_that_are_not_python_make_one_short_note():
    solution = solution_code(cells(*(["def (:"] * 500), "def softmax(x):\n    return x"), "softmax.ipynb", ("softmax",))
    assert (
        "def softmax" in solution.code
        and len(solution.skipped) < 400
        and "and 496 more cells that are not valid Python" in solution.skipped
    )
