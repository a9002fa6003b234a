"""State a module keeps between calls says how long it lives and whose it is."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from attnlab.export import notebook
from attnlab.lifecycle import ForkedPoolState


def test_a_notebook_never_reads_another_notebooks_results(monkeypatch):
    runs = []
    monkeypatch.setattr(
        notebook,
        "run_hidden_file",
        lambda course, test_file, namespace: runs.append(namespace["name"]) or {"x": namespace["name"]},
    )
    results = notebook.KernelResults()
    for name in ("first", "second", "third"):  # each namespace freed at once: the next may get its id
        assert results.of(None, "test_softmax.py", {"name": name})["x"] == name
    kept = {"name": "kept"}
    assert results.of(None, "test_softmax.py", kept) is results.of(None, "test_softmax.py", kept)
    assert runs == ["first", "second", "third", "kept"]


_STATE = ForkedPoolState("a test pool's number")


def _start(number):
    _STATE.set_in_this_process(number)


def _task(_):
    return _STATE.get(), os.getpid()


def test_what_a_pool_was_forked_with_is_known_in_its_processes_only():
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(2, mp_context=context, initializer=_start, initargs=(7,)) as pool:
        answers = list(pool.map(_task, range(4)))
    assert {number for number, _ in answers} == {7} and os.getpid() not in {pid for _, pid in answers}
    with pytest.raises(RuntimeError, match="a test pool's number is known only in a process its pool started"):
        _STATE.get()
