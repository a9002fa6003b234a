"""Gradescope: the autograder zip (``attnlab export gradescope``) and what runs inside it.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` once
when the image is built, and for each submission runs ``/autograder/run_autograder``
with the student's upload in ``/autograder/submission``; the scores must end up
in ``/autograder/results/results.json``. Here ``run_autograder`` calls ``run``
below, which grades with the same sandboxed grader as ``attnlab grade`` and
always writes a results file, even when the upload holds no exercise file.
``ATTNLAB_AUTOGRADER_ROOT`` moves ``/autograder`` elsewhere (for tests).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import tempfile
import zipfile
from pathlib import Path

from attnlab.atomic import write_json_atomically
from attnlab.course import Course
from attnlab.export.release import ENGINE_DIR, NOT_COPIED, ReleaseError, require_instructor_course
from attnlab.inert import terminal_text
from attnlab.outcomes import GraderFailure

ROOT_VARIABLE = "ATTNLAB_AUTOGRADER_ROOT"

SETUP_SH = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-pip python3-venv bubblewrap >/dev/null
python3 -m venv /autograder/venv
# torch is pinned first so that the course's torch range installs nothing more; point pip at
# PyTorch's CPU wheel index here to keep the image small.
/autograder/venv/bin/pip install -q torch=={torch_version}
/autograder/venv/bin/pip install -q /autograder/source
# The solutions and hidden tests are root's alone: a worker without bubblewrap runs as another user.
chmod 700 /autograder/source
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for each submission. It grades /autograder/submission with the hidden tests
# in a sandbox and writes /autograder/results/results.json (ATTNLAB_AUTOGRADER_ROOT moves the root).
ROOT="${ATTNLAB_AUTOGRADER_ROOT:-/autograder}"
PYTHON="${ATTNLAB_PYTHON:-$ROOT/venv/bin/python}"
# bubblewrap needs namespaces that some containers do not allow: then the grader's plain sandbox
# (a private user with rlimits) is used, and results.json says which ran.
if ! bwrap --ro-bind / / --unshare-pid --unshare-net true 2>/dev/null; then
    export ATTNLAB_SANDBOX=plain
fi
# Root's alone, whatever the image did: student code must not read the solutions or the results.
chmod 700 "$ROOT/source"
mkdir -p "$ROOT/results" && chmod 700 "$ROOT/results"
cd "$ROOT/source"
PYTHONPATH="$ROOT/source/grader" exec "$PYTHON" -m attnlab.export.gradescope "$ROOT"
"""


def build_autograder_zip(course: Course, out: Path, torch_version: str = "2.13.0") -> list[str]:
    """Write Gradescope's autograder zip to ``out``; return the names it holds."""
    require_instructor_course(course, "the autograder")
    if not course.hidden_tests_dir.is_dir():
        raise ReleaseError(f"{course.hidden_tests_dir} is missing: the autograder needs the hidden tests")
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "source"
        shutil.copytree(course.exercises_dir, source / "exercises", ignore=NOT_COPIED)
        shutil.copytree(course.solutions_dir, source / "solutions", ignore=NOT_COPIED)
        shutil.copytree(ENGINE_DIR, source / "grader" / "attnlab", ignore=NOT_COPIED)
        if (course.root / "pyproject.toml").is_file():
            shutil.copyfile(course.root / "pyproject.toml", source / "pyproject.toml")
            (source / "README.md").write_text(f"{course.name}: Gradescope autograder source.\n")
        files = {
            "setup.sh": SETUP_SH.replace("{torch_version}", torch_version),
            "run_autograder": RUN_AUTOGRADER,
        }
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        names = []
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as bundle:
            for name, text in files.items():
                info = zipfile.ZipInfo(name)
                info.external_attr = (stat.S_IFREG | 0o755) << 16  # executable once unpacked
                info.compress_type = zipfile.ZIP_DEFLATED
                bundle.writestr(info, text)
                names.append(name)
            for path in sorted(source.rglob("*")):
                if path.is_file():
                    name = path.relative_to(source).as_posix()  # Gradescope unpacks the zip into /autograder/source
                    bundle.write(path, name)
                    names.append(name)
        partial.replace(out)
    return names


def run(root: Path) -> dict:
    """Grade ``root/submission`` with the course in ``root/source``; write and return results.json.

    Raises ``GraderFailure``, writing nothing, when the sandbox failed: Gradescope then shows the
    submission as not graded (the autograder failed), never a score of 0 the student did not earn."""
    from attnlab.grading.suite import grade_entry
    from attnlab.roster import Entry, NoExerciseFile, RosterError

    results_path = root / "results" / "results.json"
    results_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        course = Course.load(root / "source")
        try:
            results = grade_entry(course, Entry("submission", root / "submission")).to_gradescope()
        except NoExerciseFile:
            names = ", ".join(f"{m}.py" for m in course.modules)
            results = _nothing_to_grade(f"No exercise file was found in your upload. Upload {names} (or the notebooks), at the top level or in one folder.")
        except RosterError as problem:  # a notebook that is not one, say: the student can mend it
            results = _nothing_to_grade(f"Your upload could not be read: {problem}.")
    except GraderFailure:
        raise
    except Exception as error:  # noqa: BLE001 - Gradescope shows this file; a crash would show nothing
        results = _nothing_to_grade(f"The autograder failed: {type(error).__name__}: {error}. Please tell your instructor.")
    write_json_atomically(results_path, results)
    return results


def _nothing_to_grade(message: str) -> dict:
    # The message may name the student's files; Gradescope shows it as text (no output_format: not Markdown).
    return {"score": 0.0, "output": terminal_text(message), "visibility": "visible", "tests": []}


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get(ROOT_VARIABLE, "/autograder"))
    try:
        results = run(root)
    except GraderFailure as failure:
        print(f"attnlab: error: not graded: {failure}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps({"score": results.get("score"), "output": results.get("output")}))


if __name__ == "__main__":
    main()
