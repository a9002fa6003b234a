"""The reference's recording, kept in the results folder: loaded only under its own key."""

import pytest
from conftest import COURSE

from attnlab.replay.recording import record_script
from attnlab.replay.kept import CACHE_NAME, load_script, save_script, script_key

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)


@pytest.fixture(scope="module")
def script():
    return record_script(COURSE, only=["softmax"])


def calls_of(script) -> list:
    return [(t.nodeid, [(c.function, repr(c.args)) for c in t.calls]) for t in script.tests]


def test_a_kept_recording_loads_under_its_key_only(script, tmp_path):
    key = script_key("a course")
    save_script(tmp_path, key, script)
    assert calls_of(load_script(tmp_path, key)) == calls_of(script)
    assert load_script(tmp_path, script_key("another course")) is None
    assert script_key("a course") == key != script_key("another course")


def test_a_damaged_or_missing_recording_is_recorded_again(script, tmp_path):
    key = script_key("a course")
    assert load_script(tmp_path, key) is None
    save_script(tmp_path, key, script)
    data = (tmp_path / CACHE_NAME).read_bytes()
    (tmp_path / CACHE_NAME).write_bytes(data[: len(data) // 2])
    assert load_script(tmp_path, key) is None
    (tmp_path / CACHE_NAME).write_bytes(key + b"\nnot a pickle")
    assert load_script(tmp_path, key) is None


def test_recording_in_parallel_gives_the_same_script():
    # The files shared out among processes, the tests put back in the suite's order: the same
    # calls and results as one process recording them all.
    from attnlab.replay.recording import record_script_in_parallel
    from attnlab.wire import fingerprint

    only = ["softmax", "scores", "masks"]
    serial, parallel = record_script(COURSE, only=only), record_script_in_parallel(COURSE, None, only, 2)

    def everything(script):
        return [
            (t.nodeid, t.replayable, [(c.function, c.args, c.kwargs, c.value) for c in t.calls]) for t in script.tests
        ]

    assert [t.nodeid for t in parallel.tests] == [t.nodeid for t in serial.tests]
    assert fingerprint(everything(parallel)) == fingerprint(everything(serial))
