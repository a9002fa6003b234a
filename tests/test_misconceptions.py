"""The misconception catalogue: complete entries, one buggy submission each, and never a correct answer named.

That grading names each entry on its buggy submission is asserted in test_buggy_submissions.py,
which grades every buggy submission once.
"""

import numpy as np
import pytest
from conftest import COURSE, fixtures_in

from attnlab.grading.suite import grade
from attnlab.misconceptions import RecordedCall, identify, load_catalogue, run_probes
from attnlab.reference import Reference

CATALOGUE = load_catalogue(COURSE)
BUGGY = {f.path.stem: f for f in fixtures_in("buggy")}


def test_every_entry_is_complete_and_has_a_fixture():
    assert len(CATALOGUE) >= 70
    for entry in CATALOGUE:
        assert entry.name and len(entry.explanation) > 40 and entry.hint, entry.id
        assert entry.id in BUGGY, f"no buggy submission in tests/submissions/buggy/{entry.id}.py"
        assert BUGGY[entry.id].breaks == entry.function


@pytest.mark.slow
def test_the_reference_is_never_named(fork_server):
    report = grade(COURSE, COURSE.solutions_dir, fork_server=fork_server)
    assert not [t.name for t in report.tests if t.misconception]


def test_an_entry_that_agrees_with_the_reference_names_nothing():
    """Matching needs the entry to differ from the reference on at least one input, so a correct answer is never named."""
    reference = Reference(COURSE)
    x = np.array([[1.0, 2.0, 3.0]])  # one row: the axis-ignoring softmax agrees with the reference here
    call = RecordedCall("softmax", (x,), {"axis": -1}, reference.softmax(x))
    probed = run_probes("softmax", lambda function, args, kwargs: reference.softmax(*args, **kwargs), CATALOGUE)
    assert identify(CATALOGUE, "softmax", [call], reference, probed) is None

    def wrong(x, axis=-1):  # the axis ignored: always the last one
        return reference.softmax(x, axis=-1)

    assert (
        identify(
            CATALOGUE,
            "softmax",
            [call],
            reference,
            run_probes("softmax", lambda function, args, kwargs: wrong(*args, **kwargs), CATALOGUE),
        ).id
        == "softmax_ignores_axis"
    )


def test_an_entry_built_from_a_helper_with_alternatives_names_every_way_it_is_written():
    """sdpa_mask_inverted returns one alternative per fill (-inf, -1e9), and each fill's helper
    returns its own for a row with no visible key (nan, or zeros by nan_to_num): all of them are
    ways of writing the mistake. Nested, the outer alternatives held inner ones, which matched no
    student; they are one flat list."""
    from attnlab.misconceptions import Alternatives, Raised

    assert Alternatives([Alternatives([1, 2]), 3, Alternatives([Alternatives([4])])]) == (1, 2, 3, 4)
    reference = Reference(COURSE)
    q, k, v = np.eye(2), np.eye(2), np.array([[1.0], [2.0]])
    mask = np.array([[True, True], [False, True]])  # inverted, query 0 may see no key

    def inverted_with_nan_to_num(q, k, v, mask=None):
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        if mask is not None:
            scores = np.where(mask, -np.inf, scores)
        with np.errstate(invalid="ignore"):
            weights = np.nan_to_num(reference.softmax(scores, axis=-1))
        return weights @ v, weights

    def student(function, args, kwargs):
        try:
            return inverted_with_nan_to_num(*args, **kwargs)
        except ValueError:
            return Raised("ValueError")

    call = RecordedCall("scaled_dot_product_attention", (q, k, v, mask), {}, inverted_with_nan_to_num(q, k, v, mask))
    probed = run_probes("scaled_dot_product_attention", student, CATALOGUE)
    named = identify(CATALOGUE, "scaled_dot_product_attention", [call], reference, probed)
    assert named is not None and named.id == "sdpa_mask_inverted"
