"""The reference's recorded run, kept per exercise file: loaded only under its own key, recorded
again when damaged, the same whether recorded in one process or several, and read the same way
by a class and by a submission graded alone."""

import os
import subprocess
import sys

import pytest
from conftest import COURSE, REPO, build_submission, fixtures_in

from attnlab.grading.replay import kept
from attnlab.grading.replay.recording import record_files, record_script
from attnlab.reference import Reference
from attnlab.wire import fingerprint

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)


def everything(script):
    return [(t.nodeid, t.replayable, [(c.function, c.args, c.kwargs, c.value) for c in t.calls]) for t in script.tests]


@pytest.fixture
def fresh_memory(monkeypatch):
    """As a new process: no recording read before."""
    monkeypatch.setattr(kept, "_LOADED", {})


def test_a_kept_recording_is_loaded_not_made_again(tmp_path, fresh_memory, monkeypatch):
    reference = Reference(COURSE)
    first = kept.recorded_run(COURSE, reference, ["softmax"], tmp_path)
    (saved,) = tmp_path.glob("softmax-*.pickle")
    monkeypatch.setattr(kept, "_LOADED", {})
    recorded = []
    monkeypatch.setattr(kept, "record_files", lambda *a, **k: recorded.append(a) or record_files(*a, **k))
    again = kept.recorded_run(COURSE, reference, ["softmax"], tmp_path)
    assert recorded == [] and fingerprint(everything(again)) == fingerprint(everything(first))
    assert saved.read_bytes().startswith(kept.recording_keys(COURSE, ["softmax"])["softmax"] + b"\n")


def test_a_recording_loads_under_its_own_key_only(tmp_path, fresh_memory, monkeypatch):
    reference = Reference(COURSE)
    kept.recorded_run(COURSE, reference, ["softmax"], tmp_path)
    (saved,) = tmp_path.glob("softmax-*.pickle")
    key = kept.recording_keys(COURSE, ["softmax"])["softmax"]
    other = saved.with_name(saved.name.replace(key[:24].decode(), "0" * 24))
    saved.rename(other)
    monkeypatch.setattr(kept, "_LOADED", {})
    assert kept._load(tmp_path, "softmax", key) is None
    assert kept.recording_keys(COURSE, ["softmax"]) != kept.recording_keys(COURSE, ["scores"]).values()


def test_a_damaged_recording_is_recorded_again(tmp_path, fresh_memory, monkeypatch):
    reference = Reference(COURSE)
    kept.recorded_run(COURSE, reference, ["softmax"], tmp_path)
    (saved,) = tmp_path.glob("softmax-*.pickle")
    key = kept.recording_keys(COURSE, ["softmax"])["softmax"]
    data = saved.read_bytes()
    for damaged in (data[: len(data) // 2], key + b"\nnot a pickle"):
        saved.write_bytes(damaged)
        monkeypatch.setattr(kept, "_LOADED", {})
        assert kept._load(tmp_path, "softmax", key) is None
        again = kept.recorded_run(COURSE, reference, ["softmax"], tmp_path)
        assert len(again.tests) > 1 and saved.read_bytes() != damaged


def test_recording_in_parallel_gives_the_same_script():
    # The files shared out among processes, each file's tests in the suite's order: the same calls
    # and results as one process recording them all.
    only = ["softmax", "scores", "masks"]
    serial = record_script(COURSE, only=only)
    parallel = record_files(COURSE, Reference(COURSE), only, 2)
    assert list(parallel) == only
    joined = [test for module in only for test in parallel[module].tests]
    assert [t.nodeid for t in joined] == [t.nodeid for t in serial.tests]
    assert fingerprint(everything(type(serial)(joined))) == fingerprint(everything(serial))


def test_the_users_cache_is_closed_to_others_and_pruned(tmp_path, fresh_memory, monkeypatch):
    """A submission graded alone keeps its recordings in the user's cache, a folder no other user
    may open, holding the newest few only."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = kept.cache_folder()
    folder.mkdir(parents=True)
    for number in range(kept.KEPT_IN_CACHE + 3):
        (folder / f"old-{number}.pickle").write_bytes(b"stale")
    kept.recorded_run(COURSE, Reference(COURSE), ["softmax"])
    assert folder.stat().st_mode & 0o077 == 0
    assert len(list(folder.glob("*.pickle"))) == kept.KEPT_IN_CACHE
    assert list(folder.glob("softmax-*.pickle"))


def test_a_class_takes_the_users_recording_and_leaves_its_own_there(tmp_path, fresh_memory, monkeypatch):
    """A class's results folder keeps its recordings, and asks the user's cache first: a new results
    folder (a regrade, another class of the same course) records nothing a grading already recorded,
    and what a class records serves the next student graded alone."""
    reference = Reference(COURSE)
    cache, results, other = tmp_path / "cache", tmp_path / "results", tmp_path / "other"
    first = kept.recorded_run(COURSE, reference, ["softmax"], results, also=cache)
    assert list(results.glob("softmax-*.pickle")) and list(cache.glob("softmax-*.pickle"))
    assert cache.stat().st_mode & 0o077 == 0
    monkeypatch.setattr(kept, "_LOADED", {})
    recorded = []
    monkeypatch.setattr(kept, "record_files", lambda *a, **k: recorded.append(a) or record_files(*a, **k))
    again = kept.recorded_run(COURSE, reference, ["softmax"], other, also=cache)
    assert recorded == [] and fingerprint(everything(again)) == fingerprint(everything(first))
    assert list(other.glob("softmax-*.pickle")), "kept beside the new results too"
    monkeypatch.setattr(kept, "_LOADED", {})
    (damaged,) = cache.glob("softmax-*.pickle")
    damaged.write_bytes(b"not a recording")
    kept.recorded_run(COURSE, reference, ["softmax"], tmp_path / "third", also=cache)
    assert len(recorded) == 1, "a damaged copy in the cache is recorded again, not trusted"


def test_a_class_in_a_new_results_folder_records_nothing_the_users_cache_holds(tmp_path):
    """Through the command line: the second class run, into a results folder of its own, says no
    word of recording."""
    classroom = tmp_path / "class"
    build_submission(classroom / "ada", next(f for f in fixtures_in("correct") if f.file == "softmax.py"))
    env = {**os.environ, kept.RECORDINGS_VARIABLE: str(tmp_path / "recordings")}
    said = []
    for results in ("first", "second"):
        run = subprocess.run(
            [sys.executable, "-m", "attnlab.cli", "grade", str(classroom), "--results", str(tmp_path / results)]
            + ["--only", "softmax", "--course", str(REPO)],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        said.append("Recording the reference" in run.stderr)
    assert said == [True, False]
    assert list((tmp_path / "second" / kept.RESULTS_SUBFOLDER).glob("softmax-*.pickle"))
