"""Gradescope: the autograder zip (``attnlab export gradescope``) and what runs inside it.

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` once
when the image is built, and for each submission runs ``/autograder/run_autograder``
with the student's upload in ``/autograder/submission``; the scores must end up
in ``/autograder/results/results.json``. Here ``run_autograder`` calls ``run``
below, which grades with the same grader as ``attnlab grade`` and always writes a
results file, even when the upload holds no exercise file. ``setup.sh`` records the
reference's run of the hidden suite once, into ``/autograder/source/.recordings``
(``record``), with the libraries the image has, so that no submission pays for it.
``ATTNLAB_AUTOGRADER_ROOT`` moves ``/autograder`` elsewhere (for tests).
"""

from __future__ import annotations

import json
import os
import re
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
RECORDINGS = ".recordings"
"""Where the autograder keeps the reference's recorded run, inside its source folder."""

VISIBILITIES = ("visible", "after_due_date", "hidden")
"""When students see the hidden tests' results on Gradescope (its ``visibility`` values)."""

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
# The course's requires-python (pyproject.toml). Gradescope's default base image, Ubuntu 22.04,
# ships Python 3.10; Ubuntu 24.04 ships 3.12.
MIN_PYTHON="{min_python}"
TORCH_VERSION="{torch_version}"

fits() {  # does this interpreter satisfy MIN_PYTHON?
    "$1" -c "import sys; sys.exit(sys.version_info[:2] < tuple(map(int, '$MIN_PYTHON'.split('.'))))" 2>/dev/null
}

pick_python() {  # the image's python3 if it fits, else the newest python3.X on PATH that does
    local candidate
    for candidate in python3 python3.14 python3.13 python3.12 python3.11 "python$MIN_PYTHON"; do
        if command -v "$candidate" >/dev/null 2>&1 && fits "$candidate"; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

main() {
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq python3 python3-venv bubblewrap >/dev/null
    local python
    if ! python="$(pick_python)"; then
        # Too old: Ubuntu's own python$MIN_PYTHON (22.04's universe has 3.11).
        apt-get install -y -qq "python$MIN_PYTHON" "python$MIN_PYTHON-venv" >/dev/null
        python="python$MIN_PYTHON"
    fi
    "$python" -m venv /autograder/venv || {
        apt-get install -y -qq "$python-venv" >/dev/null  # Ubuntu keeps venv apart from the interpreter
        "$python" -m venv /autograder/venv
    }
    /autograder/venv/bin/python -m pip install -q --upgrade pip
    # torch's CPU build, from PyTorch's CPU wheel index: on Linux x86-64, PyPI's torch is a CUDA
    # build of several GB. Installed first, so that the course's torch range installs nothing more.
    /autograder/venv/bin/python -m pip install -q "torch==$TORCH_VERSION" --index-url https://download.pytorch.org/whl/cpu
    /autograder/venv/bin/python -m pip install -q /autograder/source
    # The reference's run of the hidden suite, recorded once with the image's libraries: each
    # submission's tests are first asked its calls, as they are in attnlab grade.
    (cd /autograder/source && PYTHONPATH=/autograder/source/grader /autograder/venv/bin/python -m attnlab.export.gradescope /autograder --record)
    # The solutions and hidden tests are root's alone: a worker without bubblewrap runs as another user.
    chmod 700 /autograder/source
}

# Sourced (for a test of pick_python), it only defines the functions.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    main "$@"
fi
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
export ATTNLAB_RECORDINGS="$ROOT/source/{recordings}"
cd "$ROOT/source"
PYTHONPATH="$ROOT/source/grader" exec "$PYTHON" -m attnlab.export.gradescope "$ROOT" --visibility {visibility}
"""


def min_python(course: Course) -> str:
    """The lowest Python (``3.11``) the course's ``requires-python`` allows; 3.11 without one."""
    import tomllib

    pyproject = course.root / "pyproject.toml"
    requires = ""
    if pyproject.is_file():
        requires = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {}).get("requires-python", "")
    lowest = re.search(r">=\s*(\d+)\.(\d+)", requires)
    return f"{lowest.group(1)}.{lowest.group(2)}" if lowest else "3.11"


def build_autograder_zip(
    course: Course, out: Path, torch_version: str = "2.13.0", visibility: str = "visible"
) -> list[str]:
    """Write Gradescope's autograder zip to ``out``; return the names it holds. ``visibility`` (one
    of ``VISIBILITIES``) is when students see the hidden tests' results."""
    if visibility not in VISIBILITIES:
        raise ReleaseError(f"visibility {visibility!r}: use one of {', '.join(VISIBILITIES)}")
    if not re.fullmatch(r"[0-9][0-9A-Za-z.+]*", torch_version):
        raise ReleaseError(f"torch version {torch_version!r}: give a release such as 2.13.0")
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
            "setup.sh": SETUP_SH.replace("{torch_version}", torch_version).replace("{min_python}", min_python(course)),
            "run_autograder": RUN_AUTOGRADER.replace("{visibility}", visibility).replace("{recordings}", RECORDINGS),
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


def run(root: Path, visibility: str = "visible") -> dict:
    """Grade ``root/submission`` with the course in ``root/source``; write and return results.json,
    whose tests students see as ``visibility`` says. A message that the upload could not be graded
    is always visible: the student can mend it before the deadline.

    Raises ``GraderFailure``, writing nothing, when the sandbox failed: Gradescope then shows the
    submission as not graded (the autograder failed), never a score of 0 the student did not earn."""
    from attnlab.grading.suite import grade_entry
    from attnlab.lifecycle import keep_hypothesis_in_scratch
    from attnlab.intake.roster import Entry, NoExerciseFile, RosterError

    keep_hypothesis_in_scratch()  # not in the autograder's source folder
    results_path = root / "results" / "results.json"
    results_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        course = Course.load(root / "source")
        try:
            results = grade_entry(course, Entry("submission", root / "submission")).to_gradescope(visibility)
        except NoExerciseFile as missing:
            names = ", ".join(f"{m}.py" for m in course.modules)
            found = "".join(f" Found and not graded: {line}." for line in missing.found)
            results = _nothing_to_grade(
                f"No exercise file was found in your upload. Upload {names} (or the notebooks), at the top level or in one folder.{found}"
            )
        except RosterError as problem:  # a notebook that is not one, say: the student can mend it
            results = _nothing_to_grade(f"Your upload could not be read: {problem}.")
    except GraderFailure:
        raise
    except Exception as error:  # noqa: BLE001 - Gradescope shows this file; a crash would show nothing
        results = _nothing_to_grade(
            f"The autograder failed: {type(error).__name__}: {error}. Please tell your instructor."
        )
    write_json_atomically(results_path, results)
    return results


def record(root: Path) -> int:
    """Record the reference's run of every exercise file into ``root/source/.recordings`` (once,
    when Gradescope builds the image); return how many files were recorded. A reference that
    fails its own test is ``GraderFailure``: the image must not be built on it."""
    from attnlab.grading.replay.kept import recorded_run
    from attnlab.reference import Reference

    course = Course.load(root / "source")
    folder = root / "source" / RECORDINGS
    script = recorded_run(course, Reference(course), list(course.modules), folder)
    return len({test.nodeid.split("::")[0] for test in script.tests})


def _nothing_to_grade(message: str) -> dict:
    # The message may name the student's files; Gradescope shows it as text (no output_format: not Markdown).
    return {"score": 0.0, "output": terminal_text(message), "visibility": "visible", "tests": []}


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(prog="run_autograder", description="Grade Gradescope's /autograder/submission.")
    parser.add_argument("root", nargs="?", type=Path, default=Path(os.environ.get(ROOT_VARIABLE, "/autograder")))
    parser.add_argument("--visibility", choices=VISIBILITIES, default="visible")
    parser.add_argument("--record", action="store_true", help="record the reference's run (setup.sh), grade nothing")
    arguments = parser.parse_args()
    if arguments.record:
        try:
            print(f"attnlab: recorded the reference's run of {record(arguments.root)} exercise files")
        except GraderFailure as failure:
            print(f"attnlab: error: {failure}", file=sys.stderr)
            sys.exit(1)
        return
    try:
        results = run(arguments.root, arguments.visibility)
    except GraderFailure as failure:
        print(f"attnlab: error: not graded: {failure}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps({"score": results.get("score"), "output": results.get("output")}))


if __name__ == "__main__":
    main()
