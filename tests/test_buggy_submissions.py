"""Every buggy fixture loses points on the function it breaks, and on no other."""

import pytest
from conftest import COURSE, SUBMISSIONS, build_submission, fixtures_in, grade_as_class, read_fixture
from test_replay import two_per_function, verdicts

from attnlab.grading.suite import grade
from attnlab.misconceptions import load_catalogue
from attnlab.outcomes import Outcome
from attnlab.sandbox.host import Limits

pytestmark = pytest.mark.slow  # end to end: graded in sandboxes (pytest -m 'not slow' leaves it out)

BUGGY = fixtures_in("buggy")
CATALOGUE_IDS = {m.id for m in load_catalogue(COURSE)}
NOT_NAMEABLE: set[str] = set()
# Bugs the hidden suite catches that the catalogue does not name yet: their own tests say what is wrong.
# Code that breaks the rule for a query that may see no key: the blind-query tests name nan, a
# finite fill and an added fill themselves (tests/test_blind_rule.py).
NOT_CATALOGUED = {
    "mha_additive_minus_1e9",
    "gqa_nan_for_blind_rows",
    "kv_cache_fill_minus_1e9",
    "torch_blind_rows_nan",
    "torch_mask_fill_finfo_min",
    "torch_additive_mask_nan_to_num",
    "flash_blind_rows_nan",
    "flash_backward_nan_for_blind_rows",
    # A refusal of the wrong type: the probes cannot hold a call the reference itself refuses.
    "learned_positions_never_refuses",
    # Shapes that only ever raise (a transpose of fixed rank, a cache grown along the features):
    # a crash is never evidence of a mistake about values, and its traceback says where it broke.
    "kv_cache_concat_features",
    "sdpa_boolean_index_mask",
    # A refusal of the student's own is not a mistake about values (it was told "k.T reverses every
    # axis", "appended along the feature axis").
    "scores_refuses_batched_input",
    "kv_cache_raises_on_a_cache",
    "sdpa_fixed_rank_transpose",
    "split_heads_fixed_rank",
    "merge_heads_fixed_rank",
}

# Blind-rule fixtures whose mistake the catalogue names under the id of a fixture of its own.
NAMED_AS = {
    "attention_backward_fill_minus_1e9": "attention_backward_minus_1e9",
    "attention_backward_nan_for_blind_rows": "attention_backward_nan_for_blind_query",
}


def test_there_are_enough_buggy_fixtures():
    assert len(BUGGY) >= 70
    assert all(f.breaks for f in BUGGY), "every buggy fixture names the function it breaks"


TORCH = COURSE.tracks.get("torch", [])
# CPU seconds per call: a torch call at T = 2048 takes 0.3 to 0.4 s on a quiet host.
LIMITS = {"numpy": Limits(call_seconds=1.0), "torch": Limits(call_seconds=5.0)}


def track_of(fixture) -> str:
    return "torch" if fixture.file.removesuffix(".py") in TORCH else "numpy"


@pytest.fixture(scope="module")
def buggy_class(tmp_path_factory):
    """Every buggy fixture graded as a class, each on its own exercise file: the class path (one
    class per track, each at its track's deadline)."""
    reports = {}
    for track, limits in LIMITS.items():
        fixtures = [f for f in BUGGY if track_of(f) == track]
        if fixtures:
            reports |= grade_as_class(fixtures, tmp_path_factory.mktemp(f"buggy-class-{track}"), limits)
    return reports


def assert_costs_its_function_only(fixture, report):
    failing = [t for t in report.tests if t.outcome is not Outcome.PASSED]
    assert failing, f"{fixture.path.stem}: the hidden tests did not catch this bug"
    others = sorted({t.function for t in failing} - {fixture.breaks})
    assert not others, f"{fixture.path.stem} should only cost {fixture.breaks}, but also failed {others}: " + "; ".join(
        f"{t.name}: {t.feedback[:200]}" for t in failing if t.function != fixture.breaks
    )
    for test in failing:
        assert test.feedback.strip(), f"{test.name} failed without saying why"
    # The feedback names the mistake whenever the catalogue has it (the fixture's name is the entry's id).
    named = {t.misconception for t in failing if t.misconception}
    expected = NAMED_AS.get(fixture.path.stem, fixture.path.stem)
    if expected in CATALOGUE_IDS:
        assert named == {expected}, f"expected {expected} to be named, got {named or 'nothing'}"
        first = next(t for t in failing if t.misconception)
        assert first.feedback.startswith("Known mistake: ") and "\nHint: " in first.feedback
    else:
        # These change no output the catalogue could compare (peak memory)
        # or raise instead of returning; their own tests say what is wrong.
        assert fixture.path.stem in NOT_NAMEABLE | NOT_CATALOGUED and not named


@pytest.mark.parametrize("fixture", BUGGY, ids=[f.path.stem for f in BUGGY])
def test_bug_costs_its_function_only_in_a_class(buggy_class, fixture):
    """On the class path. The single path must give the same verdicts for two fixtures per numpy
    function and every torch fixture (the next test), and gets these checks itself below."""
    assert_costs_its_function_only(fixture, buggy_class[fixture.path.stem])


ALONE_TOO = two_per_function([f for f in BUGGY if track_of(f) == "numpy"]) + [
    f for f in BUGGY if track_of(f) == "torch"
]


@pytest.mark.parametrize("fixture", ALONE_TOO, ids=[f.path.stem for f in ALONE_TOO])
def test_bug_gets_the_same_verdicts_alone_as_in_its_class(buggy_class, fork_server, tmp_path, fixture):
    """One grader: graded alone, with a fork server of its own, each test gets the outcome, score,
    name and feedback the class gave it. A buggy function's failing tests run live whatever its
    bug, so two fixtures per numpy function cover its paths; the rest would add minutes."""
    submission = build_submission(tmp_path / fixture.path.stem, fixture)
    only = [fixture.file.removesuffix(".py")]
    alone = grade(COURSE, submission, only=only, limits=LIMITS[track_of(fixture)], fork_server=fork_server)
    assert verdicts(alone) == verdicts(buggy_class[fixture.path.stem])


@pytest.mark.parametrize("name", ["softmax_no_max_subtraction", "causal_upper_triangular", "split_heads_reshape_only"])
def test_bug_in_an_early_file_costs_nothing_in_later_files(grade_fixture, name):
    """Later files import the reference versions, so the whole submission loses only this function's
    points. Graded alone: the single path, with every check the class path gets above."""
    fixture = read_fixture(SUBMISSIONS / "buggy" / f"{name}.py")
    report = grade_fixture(fixture, whole=True)
    assert_costs_its_function_only(fixture, report)
    failing = {t.function for t in report.tests if t.outcome is not Outcome.PASSED}
    assert failing == {fixture.breaks}
    assert report.max_score - report.score == sum(
        t.max_score for t in report.tests if t.function == fixture.breaks and t.outcome is not Outcome.PASSED
    )


def test_the_half_precision_test_names_a_cause_only_on_evidence(grade_fixture):
    """It blamed "an angle table computed in float16" for every failure, a missing 1/√d scale
    too (which the track never named). Now the student's own float64 answer on the same input, and
    what a half-precision angle table gives, decide what is said."""
    half = [
        t
        for t in grade_fixture(read_fixture(SUBMISSIONS / "buggy" / "torch_no_scale.py")).tests
        if "RoPE at T = 1024" in t.name
    ]
    assert half and all(t.outcome is not Outcome.PASSED for t in half)
    for test in half:
        assert (
            "angle table" not in test.feedback
            and "in float64 is off by" in test.feedback
            and "the precision is not the cause" in test.feedback
        ), test.feedback
        assert test.misconception == "torch_no_scale"
    table = [
        t
        for t in grade_fixture(read_fixture(SUBMISSIONS / "buggy" / "torch_rope_table_in_half.py")).tests
        if "RoPE at T = 1024" in t.name and t.outcome is not Outcome.PASSED
    ]
    assert table and all("it matches an angle table computed in" in t.feedback for t in table), [
        t.feedback for t in table
    ]
