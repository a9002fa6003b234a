"""A known mistake is named on the evidence of a value the student's code returned: a refusal or a
crash is never given a misconception's name unless the name is about raising, in grading
(``misconceptions.identify``) and in ``attnlab check`` (the probe book). A mistake of memory with
right values is named on a memory-measured call's verdict (``HeldMemory``).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import COURSE, SUBMISSIONS, build_submission, read_fixture

from attnlab.check.probe_book import BOOK_NAME, ProbeBook
from attnlab.misconceptions import HeldMemory, Raised, RecordedCall, identify, load_catalogue, run_probes
from attnlab.reference import Reference

CATALOGUE = load_catalogue(COURSE, [m for m in COURSE.modules if m != "torch_attention"])
REFERENCE = Reference(COURSE)
BOOK = ProbeBook.load(COURSE.public_tests_dir / BOOK_NAME)


def refusing_scores(q, k):
    """Right on one sequence, a ValueError of its own on a batch."""
    if np.ndim(q) != 2 or np.ndim(k) != 2:
        return Raised("ValueError")
    return REFERENCE.attention_scores(q, k)


def answers_of(student, function):
    def call(name, args, kwargs):
        return student(*args, **kwargs)

    return run_probes(function, call, CATALOGUE)


def test_a_refusal_of_batches_is_not_named_in_grading():
    """It was named "k.T reverses every axis": that entry also raises on a batch."""
    q, k = np.ones((2, 3, 4)), np.ones((2, 5, 4))
    call = RecordedCall("attention_scores", (q, k), {}, Raised("ValueError"))
    assert (
        identify(CATALOGUE, "attention_scores", [call], REFERENCE, answers_of(refusing_scores, "attention_scores"))
        is None
    )


def test_a_refusal_of_batches_is_not_named_by_the_check():
    answers = [refusing_scores(*p.args, **p.kwargs) for p in BOOK.functions["attention_scores"].probes]
    assert any(isinstance(a, Raised) for a in answers)
    assert BOOK.name("attention_scores", answers) is None


def test_the_same_mistake_is_named_where_it_returns_a_value():
    """k.T written with @ gives a wrong value where B = L_k = d_k, and raises elsewhere: named."""

    def full_transpose(q, k):
        try:
            return (q @ k.T) / np.sqrt(q.shape[-1])
        except ValueError:
            return Raised("ValueError")

    named = identify(CATALOGUE, "attention_scores", [], REFERENCE, answers_of(full_transpose, "attention_scores"))
    assert named is not None and named.id == "scores_full_transpose"
    answers = [full_transpose(*p.args, **p.kwargs) for p in BOOK.functions["attention_scores"].probes]
    assert BOOK.name("attention_scores", answers).id == "scores_full_transpose"


def test_a_refusal_is_named_when_the_mistake_is_about_raising():
    """Refusing a sequence as long as the table is a mistake about raising, and is named by it."""

    def refuses_a_full_table(token_ids, token_table, position_table):
        token_ids = np.asarray(token_ids)
        if token_ids.shape[-1] >= len(position_table):
            return Raised("ValueError")
        return REFERENCE.learned_positions(token_ids, token_table, position_table)

    named = identify(
        CATALOGUE, "learned_positions", [], REFERENCE, answers_of(refuses_a_full_table, "learned_positions")
    )
    assert named is not None and named.id == "learned_positions_refuses_a_full_table" and named.about_raising


@pytest.mark.parametrize("over_budget, expected", [(True, "online_holds_the_full_matrix"), (False, None)])
def test_a_memory_verdict_names_whole_key_rows_only_when_it_held_too_much(over_budget, expected):
    """Right values on every probe: only the memory test's verdict can tell whole key rows apart."""
    right = answers_of(REFERENCE.online_softmax_attention, "online_softmax_attention")
    call = RecordedCall("online_softmax_attention", (), {}, HeldMemory(over_budget))
    named = identify(CATALOGUE, "online_softmax_attention", [call], REFERENCE, right)
    assert (named.id if named else None) == expected


@pytest.mark.slow
@pytest.mark.parametrize("name", ["torch_heads_view_without_transpose", "scores_refuses_batched_input"])
def test_attnlab_check_names_only_on_a_value(tmp_path, name):
    """In attnlab check: the torch module whose heads are split by view(B, h, T, d_head) is named for it (it
    was told "the future leaks in"); a refusal of batches is shown as the error it is, with no name."""
    fixture = read_fixture(SUBMISSIONS / "buggy" / f"{name}.py")
    folder = build_submission(tmp_path / name, fixture)
    # In a process of its own, as the command runs; a test deadline no busy machine reaches.
    code = (
        "import json, sys; from pathlib import Path; from attnlab.course import Course; from attnlab.check.run import run_check; "
        "r = run_check(Course.load(Path(sys.argv[1])), Path(sys.argv[2]), [sys.argv[3]], test_seconds=120); "
        "print(json.dumps({f.function: [f.status, f.message] for f in r.functions}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(COURSE.root), str(folder), fixture.file.removesuffix(".py")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    status, message = json.loads(done.stdout.strip().splitlines()[-1])[fixture.breaks]
    assert status == "failed"
    if name.startswith("torch"):
        assert message.startswith("known mistake: heads are split with view(B, n_heads, T, d_head)"), message
    else:
        assert "known mistake" not in message and "ValueError" in message, message
