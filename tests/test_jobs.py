"""How many submissions a class grades at once: one per core, as many as memory allows."""

from attnlab.classroom.jobs import SLOT_BYTES, available_memory, choose_jobs
from attnlab.sandbox.host import Limits

GIB = 1 << 30
LIMITS = Limits(memory_bytes=GIB)  # a slot: 1 GiB for the student's code and SLOT_BYTES


def test_one_per_core_when_memory_allows_and_never_more_than_the_submissions():
    assert choose_jobs(None, 200, LIMITS, cores=4, available=64 * GIB) == (4, None)
    assert choose_jobs(None, 3, LIMITS, cores=8, available=64 * GIB) == (3, None)
    assert choose_jobs(16, 5, LIMITS, cores=2, available=64 * GIB) == (5, None)
    assert choose_jobs(None, 200, LIMITS, cores=4, available=None) == (4, None), (
        "where the kernel does not say, one per core"
    )


def test_the_default_is_lowered_to_what_fits_and_says_so():
    jobs, note = choose_jobs(None, 200, LIMITS, cores=8, available=3 * (GIB + SLOT_BYTES) + 1)
    assert jobs == 3
    assert note.startswith("Grading 3 at once, not one per core (8): each may need 1280 MiB")
    assert choose_jobs(None, 200, LIMITS, cores=8, available=GIB)[0] == 1, "at least one"


def test_jobs_asked_for_are_kept_with_a_warning():
    jobs, note = choose_jobs(64, 200, LIMITS, cores=2, available=22 * GIB)
    assert jobs == 64
    assert note.startswith("Warning: --jobs 64: each may need 1280 MiB") and "at most 17 fit" in note


def test_this_machine_says_how_much_memory_is_available():
    assert available_memory() > 0
