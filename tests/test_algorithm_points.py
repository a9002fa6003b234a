"""Only the algorithm a lesson teaches earns its points (online softmax, FlashAttention forward and
backward, the KV cache, linear attention's recurrence): code that gets the values another way
earns none of them.

The attacks (tests/submissions/hostile/): plain softmax over whole key rows, 16 queries at a time
or one, the block sizes unused, no running max or sum, right values everywhere; and a "cache" that
keeps the tokens and recomputes causal attention at every step. Each is graded alone and as in a
class; and a "recurrence" that takes its queries 32 at a time over the keys before them, with no
running state. The memory tests that catch the first are robust to the host (their budget is what the
algorithm with the given tiles needs, and a whole key row is 8 MiB over it): an honest online
softmax passes in every sandbox mode (test_isolation.py).
"""

from __future__ import annotations

import pytest
from conftest import SUBMISSIONS, read_fixture

from attnlab.outcomes import Outcome
from attnlab.sandbox.host import Limits

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

ALGORITHMS = {"online_softmax_attention", "flash_attention", "flash_attention_backward"}
MEASURED_LIMITS = Limits(call_seconds=5.0)
NAMED = {
    "online_softmax_attention": "online_holds_the_full_matrix",
    "flash_attention": "flash_whole_key_rows",
    "flash_attention_backward": "flash_backward_whole_key_rows",
}


@pytest.mark.parametrize("name", ["full_key_rows_16_queries_at_a_time", "full_key_rows_one_query_at_a_time"])
def test_whole_key_rows_earn_none_of_the_algorithms_points(grade_both_paths, name):
    # Whole rows of 2^20 keys take about a CPU second a call: at the fixtures' usual 1 s deadline a
    # busy host's slower second timed the memory test out instead of letting it measure.
    alone, in_class = grade_both_paths(read_fixture(SUBMISSIONS / "hostile" / f"{name}.py"), limits=MEASURED_LIMITS)
    for report in (alone, in_class):
        mine = [t for t in report.tests if t.function in ALGORITHMS]
        assert {t.function for t in mine} == ALGORITHMS and sum(t.score for t in mine) == 0, [
            t.name for t in mine if t.score
        ]
        others = [t for t in report.tests if t.function not in ALGORITHMS]
        assert all(t.score == t.max_score for t in others), [t.name for t in others if t.score < t.max_score]
        memory = [t for t in mine if "never holds" in t.name]
        assert len(memory) == 3 and all("a whole row of keys is" not in t.name for t in memory)
        assert all(t.outcome is Outcome.FAILED and "8 MiB" in t.feedback for t in memory), [
            t.feedback[:200] for t in memory
        ]
        # Every other test passed, and is not paid: the values were right.
        assert all(t.feedback.startswith("Not paid yet") for t in mine if t not in memory)
    named = {t.function: t.misconception for t in alone.tests if t.function in ALGORITHMS and "never holds" in t.name}
    assert named == NAMED, named


def test_a_cache_that_recomputes_from_the_tokens_earns_nothing(grade_both_paths):
    for report in grade_both_paths(read_fixture(SUBMISSIONS / "hostile" / "kv_cache_recomputes_from_the_tokens.py")):
        kv = [t for t in report.tests if t.function == "kv_cache_step"]
        assert kv and sum(t.score for t in kv) == 0, [t.name for t in kv if t.score]
        given = next(t for t in kv if "did not compute" in t.name)
        assert given.outcome is not Outcome.PASSED and "KeyError" in given.feedback, given.feedback
        assert any(t.feedback.startswith("Not paid yet") for t in kv)


def test_a_recurrence_without_a_running_state_earns_nothing(grade_both_paths):
    """Its outputs from a fresh start are right and it never holds an (L, L) array (the memory test
    passes), but it cannot continue from a state passed in: none of the recurrence's points."""
    for report in grade_both_paths(
        read_fixture(SUBMISSIONS / "hostile" / "linear_recurrent_queries_a_few_at_a_time.py")
    ):
        mine = [t for t in report.tests if t.function == "linear_attention_recurrent"]
        assert len(mine) == 6 and sum(t.score for t in mine) == 0, [t.name for t in mine if t.score]
        given = next(t for t in mine if "it did not compute" in t.name)
        assert given.outcome is Outcome.FAILED and "its output" in given.feedback, given.feedback
        assert all(t.feedback.startswith("Not paid yet") for t in mine if t is not given), [
            t.feedback[:120] for t in mine
        ]
        others = [t for t in report.tests if t.function != "linear_attention_recurrent"]
        assert others and all(t.score == t.max_score for t in others), [t.name for t in others if t.score < t.max_score]


def test_a_cache_that_is_never_read_earns_nothing(grade_both_paths):
    """It recomputes the whole sequence from tokens it kept itself, so its chunks and its one call are
    right, but it cannot continue from a cache the test built: none of cached_rope_attention's points."""
    for report in grade_both_paths(
        read_fixture(SUBMISSIONS / "hostile" / "rope_cache_recomputes_from_its_own_history.py")
    ):
        mine = [t for t in report.tests if t.function == "cached_rope_attention"]
        assert len(mine) == 5 and sum(t.score for t in mine) == 0, [t.name for t in mine if t.score]
        given = next(t for t in mine if "it did not compute" in t.name)
        assert given.outcome is Outcome.FAILED, given.feedback
        assert any(t.feedback.startswith("Not paid yet") for t in mine if t is not given), [
            t.feedback[:120] for t in mine
        ]
        others = [t for t in report.tests if t.function != "cached_rope_attention"]
        assert others and all(t.score == t.max_score for t in others), [t.name for t in others if t.score < t.max_score]
