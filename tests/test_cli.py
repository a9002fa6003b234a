"""The attnlab command as a user runs it: in a subprocess, reading its output and exit status."""

import json
import shutil
import resource
import subprocess
import sys
import zipfile

import pytest
from conftest import COURSE, REPO, SUBMISSIONS, build_submission, read_fixture

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

COMMANDS = [[], ["grade"], ["feedback"], ["check"], ["stubs"], ["quiz"]]


def attnlab(*args, cwd=REPO, env=None):
    return subprocess.run(
        [sys.executable, "-m", "attnlab.cli", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "attnlab")
def test_help_reads_well(command):
    result = attnlab(*command, "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("Usage: ")
    assert "Traceback" not in result.stdout + result.stderr


def test_grade_reference_writes_gradescope_json(tmp_path):
    target = tmp_path / "out" / "results.json"
    result = attnlab("grade", COURSE.solutions_dir, "--json", target)
    assert result.returncode == 0, result.stderr
    assert "total" in result.stdout and "100%" in result.stdout
    data = json.loads(target.read_text())
    assert data["score"] == data["extra_data"]["max_score"] > 0
    assert all(t["status"] == "passed" for t in data["tests"])


def test_one_submission_may_be_a_zip_or_notebooks_as_in_a_class(tmp_path):
    softmax = (COURSE.solutions_dir / "softmax.py").read_text()
    with zipfile.ZipFile(tmp_path / "ada.zip", "w") as bundle:
        bundle.writestr("ada/softmax.py", softmax)
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "softmax.ipynb").write_text(json.dumps({"cells": [{"cell_type": "code", "source": softmax}]}))
    for submission in (tmp_path / "ada.zip", tmp_path / "bob"):
        result = attnlab("grade", submission, "--only", "softmax", "--json", tmp_path / "out.json")
        assert result.returncode == 0, result.stderr
        assert str(submission) in "".join(
            line.rstrip() for line in result.stdout.splitlines()
        )  # its name, not the staging's
        data = json.loads((tmp_path / "out.json").read_text())
        assert data["score"] == data["extra_data"]["max_score"] > 0
    (tmp_path / "broken.zip").write_text("not a zip")
    result = attnlab("grade", tmp_path / "broken.zip")
    assert (
        result.returncode == 2
        and "broken.zip: not a readable zip" in result.stderr
        and "Traceback" not in result.stderr
    )


def test_a_results_folder_that_cannot_be_written_is_one_line_before_any_grading(tmp_path):
    (tmp_path / "class" / "ada").mkdir(parents=True)
    shutil.copy(COURSE.solutions_dir / "softmax.py", tmp_path / "class" / "ada")
    (tmp_path / "a-file").write_text("")
    result = attnlab("grade", tmp_path / "class", "--results", tmp_path / "a-file" / "results")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"cannot write the results to {tmp_path / 'a-file' / 'results'}: Not a directory" in result.stderr
    assert "Recording" not in result.stderr


def test_grade_writes_an_html_report(tmp_path):
    submission = tmp_path / "sub"
    submission.mkdir()
    (submission / "masks.py").write_text(
        "import numpy as np\n\ndef causal_mask(n):\n    return np.triu(np.ones((n, n), dtype=bool))\n\ndef padding_mask(lengths, max_len):\n    return np.arange(max_len)[None, :] < np.asarray(lengths)[:, None]\n"
    )
    result = attnlab("grade", submission, "--only", "masks", "--html", tmp_path / "report.html")
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "report.html").read_text()
    assert "Known mistake: the upper triangle is kept" in page and "<svg" not in page.split("What went wrong")[0]


def test_grade_explain_shows_the_whole_feedback(tmp_path):
    submission = tmp_path / "sub"
    submission.mkdir()
    (submission / "masks.py").write_text(
        "import numpy as np\n\ndef causal_mask(n):\n    return np.triu(np.ones((n, n), dtype=bool))\n\ndef padding_mask(lengths, max_len):\n    raise NotImplementedError\n"
    )
    result = attnlab("grade", submission, "--only", "masks", "--explain")
    assert result.returncode == 0, result.stderr
    assert "causal_mask: the 4×4 mask of the lesson" in result.stdout
    assert "The failing call: causal_mask(4)" in result.stdout
    assert "Not implemented yet: padding_mask" in result.stdout
    assert "Known mistake: the upper triangle is kept" in result.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["grade", "no/such/folder"], "no/such/folder: no such folder"),
        (["grade", "grader"], "not a submission"),
        (["grade", "solutions", "--only", "nonsense"], "no exercise file named nonsense"),
        (["grade", "solutions", "--timeout", "-1"], "Invalid value for '--timeout'"),
        (["check", "no/such/folder"], "no such folder"),
        (["grade", "solutions", "--course", "/tmp"], "is not an attnlab course"),
    ],
)
def test_bad_input_is_one_line_and_non_zero(args, message):
    result = attnlab(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_check_reference_passes_and_stubs_do_not():
    passing = attnlab("check", COURSE.solutions_dir)
    assert passing.returncode == 0, passing.stdout + passing.stderr
    every = len(COURSE.functions)
    assert f"{every} of {every} functions pass" in passing.stdout
    stubs = attnlab("check")
    assert stubs.returncode == 1
    assert "softmax" in stubs.stdout and "not implemented yet" in stubs.stdout


def test_check_says_which_function_it_waits_for(tmp_path):
    (tmp_path / "multihead.py").write_text(
        (COURSE.exercises_dir / "multihead.py")
        .read_text()
        .replace('raise NotImplementedError("merge_heads is not implemented yet")', "return x")
    )
    result = attnlab("check", tmp_path)
    assert "needs split_heads (in multihead.py) first" in result.stdout


def test_check_stops_a_loop_that_never_ends_and_says_where(tmp_path):
    # It ran the student's code in its own process with no time limit: such a loop hung it, silent.
    loop = "\n\ndef softmax(x, axis=-1):\n    while True:\n        try:\n            pass\n        except Exception:\n            pass\n"
    (tmp_path / "softmax.py").write_text((COURSE.solutions_dir / "softmax.py").read_text() + loop)
    started = children_cpu_seconds()
    result = attnlab("check", tmp_path, "--only", "softmax", "--timeout", "2")
    spent = children_cpu_seconds() - started
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    assert "did not finish within 2 s: a loop that never ends? (softmax.py" in " ".join(result.stdout.split())
    # The deadline is CPU time (a busy machine slows a test, never fails it), so is this bound.
    assert spent < 8, "one test waits; the function's other tests are not run (each would wait 2 s)"


def test_stubs_check_is_clean():
    result = attnlab("stubs", "--check")
    assert result.returncode == 0, result.stderr


def test_public_tests_run_with_plain_pytest():
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=COURSE.exercises_dir,
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "ATTNLAB_SUBMISSION": str(COURSE.solutions_dir)},
    )
    assert result.returncode == 0, result.stdout[-2000:]
    assert " passed" in result.stdout.splitlines()[-1]


def test_plain_pytest_stops_a_loop_that_never_ends_too(tmp_path):
    # The course's conftest gives plain pytest the check's deadline (5 s): it used to hang.
    loop = "\n\ndef softmax(x, axis=-1):\n    while True:\n        pass\n"
    (tmp_path / "softmax.py").write_text((COURSE.solutions_dir / "softmax.py").read_text() + loop)
    started = children_cpu_seconds()
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_softmax.py"],
        cwd=COURSE.exercises_dir,
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "ATTNLAB_SUBMISSION": str(tmp_path)},
    )
    spent = children_cpu_seconds() - started
    assert result.returncode == 1, result.stdout[-2000:]
    assert "TestTookTooLong: did not finish within 5 s: a loop that never ends?" in result.stdout
    assert "not run: softmax did not finish within 5 s in an earlier test" in result.stdout
    assert spent < 20, "one test waits; softmax's other tests are not run"


def children_cpu_seconds() -> float:
    """CPU seconds of this process's ended children, user and system."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def buggy_folder(tmp_path, name):
    return build_submission(tmp_path / name, read_fixture(SUBMISSIONS / "buggy" / f"{name}.py"))


def test_check_names_a_known_mistake(tmp_path):
    result = attnlab("check", buggy_folder(tmp_path, "sdpa_softmax_over_queries"))
    assert result.returncode == 1
    assert "known mistake: softmax over the query axis" in " ".join(result.stdout.split())


def test_check_without_the_catalogue_gives_the_generic_diagnostic(tmp_path):
    """A course without a catalogue (no solutions/, no probe book): check still explains the failure."""
    course = tmp_path / "course"
    shutil.copytree(COURSE.exercises_dir, course / "exercises")
    (course / "exercises" / "tests" / "probes.json").unlink()
    result = attnlab("check", buggy_folder(tmp_path, "cross_attention_mask_broadcast"), "--course", course)
    text = " ".join(result.stdout.split())
    assert result.returncode == 1 and "known mistake" not in text
    assert "masked cells got weight" in text


def test_a_students_copy_names_the_mistake_from_the_probe_book(tmp_path):
    """A student's copy has no catalogue, only the probe book beside the public tests: the probes
    fail the function and name the mistake, in attnlab check and in plain pytest alike."""
    course = tmp_path / "course"
    shutil.copytree(COURSE.exercises_dir, course / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    folder = buggy_folder(tmp_path, "softmax_global_max")
    result = attnlab("check", folder, "--only", "softmax", "--course", course)
    text = " ".join(result.stdout.split())
    assert (
        result.returncode == 1 and "known mistake: the maximum of the whole array is subtracted, not each row's" in text
    ), text
    plain = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_softmax.py"],
        cwd=course / "exercises",
        capture_output=True,
        text=True,
        timeout=300,
        env={**__import__("os").environ, "ATTNLAB_SUBMISSION": str(folder)},
    )
    assert (
        plain.returncode == 1
        and "This looks like a known mistake: the maximum of the whole array is subtracted" in plain.stdout
    ), plain.stdout[-2000:]


def without_torch(*args, cwd=REPO):
    """``attnlab`` in a process where torch cannot be imported, as on a student's machine without it."""
    script = "import sys; sys.modules['torch'] = None; from attnlab.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", script, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def reference_folder(tmp_path):
    folder = tmp_path / "work"
    shutil.copytree(
        COURSE.solutions_dir, folder, ignore=shutil.ignore_patterns("hidden_tests", "misconceptions", "__pycache__")
    )
    return folder


def test_check_names_a_module_that_is_not_installed_and_checks_every_other_file(tmp_path):
    # It said only "the public tests could not run: pytest exit code 2", and checked nothing.
    folder = reference_folder(tmp_path)
    (folder / "attention.py").write_text("import scipy_is_not_installed\n" + (folder / "attention.py").read_text())
    result = attnlab("check", folder, "--track", "numpy")
    text = " ".join(result.stdout.split())
    assert (
        result.returncode == 1 and "Traceback" not in result.stdout + result.stderr and "exit code" not in result.stderr
    ), result.stdout + result.stderr
    # Installed or not, the course does not offer it: the check says so as the grader's sandbox would.
    assert (
        "attention.py, line 1 (import scipy_is_not_installed): `scipy_is_not_installed` is not available to attention.py in this course"
        in text
    )
    assert "Remove this import: the grader will not import it." in text
    lines = {line.split()[1]: line for line in result.stdout.splitlines() if len(line.split()) > 2}
    assert "passed" in lines["softmax"] and "passed" in lines["causal_mask"]  # the other files are still checked
    assert "scaled_dot_product_attention not checked: attention.py cannot be imported (above)" in text
    assert "multi_head_attention needs attention.py, which cannot be imported (above)" in text


@pytest.mark.parametrize(
    "broken, expected",
    [
        (
            "def softmax(x, axis=-1):\n    return x +\n",
            "softmax.py, line 2 (return x +): invalid syntax. Python cannot read this file: fix that line",
        ),
        (
            "import numpy as np\nTABLE = 1 / 0\n\ndef softmax(x, axis=-1):\n    return x\n",
            "softmax.py, line 2 (TABLE = 1 / 0): ZeroDivisionError: division by zero, while the file was imported.",
        ),
    ],
)
def test_check_names_a_file_that_fails_at_import_in_a_students_copy(tmp_path, broken, expected):
    """A student's copy has no solutions/: a file Python cannot read must not stop the check either."""
    course = tmp_path / "course"
    shutil.copytree(COURSE.exercises_dir, course / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    (course / "exercises" / "softmax.py").write_text(broken)
    result = attnlab("check", "--track", "numpy", cwd=course)
    text = " ".join(result.stdout.split())
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr, result.stdout + result.stderr
    assert expected in text
    assert "softmax not checked: softmax.py cannot be imported (above)" in text
    assert "causal_mask not implemented yet" in text  # masks.py imports nothing of softmax.py: it is still checked


def test_check_without_torch_says_the_pytorch_track_needs_it(tmp_path):
    # It left the module out without a word, and --track torch said "pytest exit code 5".
    folder = reference_folder(tmp_path)
    every = without_torch("check", folder)
    text = " ".join(every.stdout.split())
    assert (
        "torch_attention.py not checked: it needs torch, which is not installed. pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"
        in text
    ), every.stdout + every.stderr
    numpy_functions = len([f for f in COURSE.functions if not COURSE.needs_of(f.module)])
    assert f"{numpy_functions} of {numpy_functions} functions pass" in text
    for args in (["--track", "torch"], ["--only", "torch_attention"]):
        alone = without_torch("check", folder, *args)
        assert alone.returncode == 2 and alone.stderr.count("\n") == 1 and "exit code" not in alone.stderr, alone.stderr
        assert (
            "torch_attention.py not checked: it needs torch" in alone.stderr
            and "download.pytorch.org/whl/cpu" in alone.stderr
        )


def test_check_counts_one_function_as_one(tmp_path):
    result = attnlab("check", "--only", "softmax")
    assert "0 of 1 function passes its public tests." in result.stdout, result.stdout
