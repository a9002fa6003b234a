"""`attnlab check` tells the truth and teaches: what pytest would show, the probes, the function to fix first.

Each test builds a student folder (the reference with one function changed) and runs the command
as a student does, reading its output.
"""

import json
import os
import subprocess
import sys
import time

import pytest
from conftest import COURSE, REPO, SUBMISSIONS, build_submission, read_fixture

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)


def attnlab(*args):
    return subprocess.run(
        [sys.executable, "-m", "attnlab.cli", *map(str, args)], cwd=REPO, capture_output=True, text=True, timeout=300
    )


def folder_with(tmp_path, module: str, code: str, *, prefix: str = ""):
    """The reference solutions with ``code`` appended to ``module``.py (a later def wins), ``prefix`` put first."""
    folder = tmp_path / "student"
    folder.mkdir(exist_ok=True)
    for name in COURSE.modules:
        (folder / f"{name}.py").write_text((COURSE.solutions_dir / f"{name}.py").read_text())
    path = folder / f"{module}.py"
    path.write_text(prefix + path.read_text() + "\n\n" + code)
    return folder


def said(result) -> str:
    return " ".join(result.stdout.split())


def test_the_assertions_own_message_is_shown_as_pytest_shows_it(tmp_path):
    """It showed only "Not equal to tolerance rtol=1e-07, atol=0": the test's own words (err_msg)
    and the mismatched cells were dropped."""
    rope_from_one = (
        "def rope(x, positions, theta=10000.0):\n"
        "    d = x.shape[-1]\n"
        "    angles = (np.asarray(positions) + 1)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]\n"
        "    even, odd = x[..., 0::2], x[..., 1::2]\n"
        "    out = np.stack([even * np.cos(angles) - odd * np.sin(angles), even * np.sin(angles) + odd * np.cos(angles)], axis=-1)\n"
        "    return out.reshape(x.shape)\n"
    )
    folder = folder_with(tmp_path, "positions", rope_from_one)
    text = said(attnlab("check", folder, "--only", "positions"))
    assert "position 0 turns by angle 0" in text, text
    assert "Mismatched elements" in text, text


def test_what_the_code_printed_is_shown_and_capped(tmp_path):
    printing = "def softmax(x, axis=-1):\n    for i in range(5000):\n        print('step', i, 'of my softmax')\n    return np.exp(x) / np.exp(x).sum()\n"
    result = attnlab("check", folder_with(tmp_path, "softmax", printing), "--only", "softmax")
    text = said(result)
    assert "your code printed:" in text and "step 0 of my softmax" in text, text
    assert "step 4999" not in text and len(result.stdout) < 20000


def test_a_bare_assert_names_the_call_and_what_it_returned(tmp_path):
    """`assert 8.308e-16 > 0.001` said nothing about which call gave it."""
    never_positive = "def equivariance_gap(x, perm, w_q, w_k, w_v, add_positions=False):\n    return 0.0\n"
    text = said(attnlab("check", folder_with(tmp_path, "positions", never_positive), "--only", "positions"))
    assert (
        "the call: equivariance_gap(<float64 array of shape (5, 4)>, [1, 2, 3, 4, 0]" in text and "returned 0.0" in text
    ), text


def test_a_loop_at_the_top_of_a_file_ends_at_the_deadline_with_its_file_and_line(tmp_path):
    """A `while` at module level hung the check and plain pytest, silent, forever."""
    folder = folder_with(
        tmp_path, "softmax", "", prefix="import time\n\nready = False\nwhile not ready:\n    time.sleep(0.01)\n\n"
    )
    started = time.monotonic()
    result = attnlab("check", folder, "--only", "softmax", "--only", "attention", "--timeout", "2")
    elapsed = time.monotonic() - started
    text = said(result)
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    assert "softmax.py, line 5 (time.sleep(0.01)): did not finish within 2 s while the file was imported" in text, text
    assert "scaled_dot_product_attention needs softmax.py, which cannot be imported (above)" in text, text
    assert elapsed < 30, "the file is not imported again by each test file that needs it"
    plain = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/test_softmax.py",
            "tests/test_attention.py",
        ],
        cwd=COURSE.exercises_dir,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ATTNLAB_SUBMISSION": str(folder)},
    )
    assert (
        plain.returncode != 0
        and "softmax.py, line 5 (time.sleep(0.01)): did not finish within 5 s while the file was imported"
        in plain.stdout
    ), plain.stdout[-3000:]


def test_a_function_that_fails_because_one_it_calls_does_says_so(tmp_path):
    """The softmax is wrong (a global maximum); attention's own code is right but fails its probes
    through it. Its file is checked alone: softmax's probes say it is the one to fix."""
    folder = build_submission(tmp_path / "student", read_fixture(SUBMISSIONS / "buggy" / "softmax_global_max.py"))
    text = said(attnlab("check", folder, "--only", "attention"))
    assert (
        "scaled_dot_product_attention fails because softmax (in softmax.py), which it calls, does: fix that first"
        in text
    ), text


def test_the_probes_fail_a_function_whose_worked_examples_pass(tmp_path):
    """Online softmax that never rescales its accumulator passed (with seed 0 every row's maximum
    is in the first block); the probes' scores grow block after block."""
    folder = build_submission(tmp_path / "student", read_fixture(SUBMISSIONS / "buggy" / "online_never_rescales.py"))
    text = said(attnlab("check", folder, "--only", "efficient"))
    assert (
        "✗ online_softmax_attention known mistake: the running sums are never rescaled when the maximum grows" in text
    ), text


def test_a_cache_with_a_key_of_its_own_passes_the_probes_as_it_passes_the_hidden_tests(tmp_path):
    """A cache dict may carry more than the contract's "k" and "v" (the hidden tests read only
    those): the probes once failed it with "should be a dict with keys ['k', 'v']"."""
    code = """
_reference_step = cached_rope_attention


def cached_rope_attention(x_new, cache, w_q, w_k, w_v, theta=10000.0):
    out, new_cache = _reference_step(x_new, cache, w_q, w_k, w_v, theta)
    return out, {**new_cache, "pos": new_cache["k"].shape[1]}
"""
    text = said(attnlab("check", folder_with(tmp_path, "decoding", code), "--only", "decoding"))
    assert "✓ cached_rope_attention" in text, text


def test_a_file_python_cannot_read_gets_the_same_line_from_the_check_and_the_grader(tmp_path):
    """A Latin-1 byte in a file (saved by an editor in Latin-1): the check said Python's words
    about a codec, the grader others; both now say the same line, which names the byte and what to do."""
    folder = folder_with(tmp_path, "softmax", "")
    text = (folder / "softmax.py").read_bytes() + b'GREETING = "caf\xe9"\n'
    (folder / "softmax.py").write_bytes(text)
    line = text.count(b"\n")
    expected = (
        f'softmax.py, line {line} (GREETING = "caf\ufffd"): byte 0xe9 is not UTF-8 (the file was saved in another '
        "encoding, such as Latin-1 or Windows-1252). Python cannot read this file: save it as UTF-8 (your editor's "
        "Save As or Encoding menu), or remove that character."
    )
    checked = said(attnlab("check", folder, "--only", "softmax"))
    assert f"✗ {expected} ✗ softmax not checked: softmax.py cannot be imported (above)" in checked, checked
    graded = attnlab("grade", folder, "--only", "softmax", "--json", tmp_path / "results.json")
    assert f"✗ softmax.py could not be imported: SyntaxError: {expected} 0/" in said(graded), said(graded)
    for test in json.loads((tmp_path / "results.json").read_text())["tests"]:
        assert f"softmax.py could not be imported: SyntaxError: {expected}" in " ".join(test["output"].split())


def test_the_probe_book_is_read_once_and_again_when_it_changes(tmp_path):
    """Every public test file asks for the book: one read per process, and a new one once the file changes."""
    from attnlab.check.probe_book import BOOK_NAME, ProbeBook

    book = tmp_path / BOOK_NAME
    data = json.loads((COURSE.public_tests_dir / BOOK_NAME).read_text(encoding="utf-8"))
    book.write_text(json.dumps(data), encoding="utf-8")
    first = ProbeBook.load(book)
    assert ProbeBook.load(book) is first
    kept = next(iter(data["functions"]))
    data["functions"] = {kept: data["functions"][kept]}
    book.write_text(json.dumps(data), encoding="utf-8")
    os.utime(book, ns=(time.time_ns(), time.time_ns() + 1_000_000_000))
    assert list(ProbeBook.load(book).functions) == [kept] != list(first.functions)
    assert ProbeBook.load(tmp_path / "missing.json") is None
