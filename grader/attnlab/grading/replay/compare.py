""" "The same behaviour": could no hidden test tell a submission's result from the reference's?"""

from __future__ import annotations

import numpy as np

# At least ten times tighter than every tolerance a hidden test states or ``expect.tolerance`` gives
# (``tests/test_tolerances.py`` checks it), so no verdict can sit between the two. Float32's rounding
# noise alone (1e-7 of the summands) is a thousandth of its tolerance: two correct programs summing in
# another order differ by that much.
SAME_RTOL, SAME_ATOL = 1e-10, 1e-13
SAME_RTOL_FLOAT32, SAME_ATOL_FLOAT32 = 1e-5, 1e-6


def has_float32(value) -> bool:
    """Is there a float32 array anywhere in this plain value?"""
    if isinstance(value, np.ndarray):
        return value.dtype == np.float32
    if isinstance(value, (tuple, list)):
        return any(has_float32(v) for v in value)
    if isinstance(value, dict):
        return any(has_float32(v) for v in value.values())
    return False


def same_behaviour(got, expected, float32_inputs: bool = False) -> bool:
    """Could no hidden test tell ``got`` from ``expected``? Same types, dtypes, shapes, the
    same exact zeros (in arrays) and non-finite entries, and values equal to within
    ``SAME_RTOL`` (or, for results of float32 inputs, ``SAME_RTOL_FLOAT32``)."""
    if isinstance(expected, np.ndarray) or isinstance(got, np.ndarray):
        return _same_array(got, expected, float32_inputs)
    if type(got) is not type(expected):
        return False
    if isinstance(expected, (tuple, list)):
        return len(got) == len(expected) and all(same_behaviour(g, e, float32_inputs) for g, e in zip(got, expected))
    if isinstance(expected, dict):
        return got.keys() == expected.keys() and all(
            same_behaviour(got[k], expected[k], float32_inputs) for k in expected
        )
    if isinstance(expected, (float, complex)):
        # A scalar (a gap, a norm) is compared by tolerance alone: exact zeros matter where a
        # hidden test checks them, in arrays of attention weights.
        return _same_array(np.asarray(got), np.asarray(expected), float32_inputs, exact_zeros=False)
    return got == expected


def _same_array(got, expected, float32_inputs: bool = False, exact_zeros: bool = True) -> bool:
    if not (isinstance(got, np.ndarray) and isinstance(expected, np.ndarray)):
        return False
    if got.dtype != expected.dtype or got.shape != expected.shape:
        return False
    if got.tobytes() == expected.tobytes():
        return True  # bit for bit the reference's answer, as a correct submission's mostly are
    if expected.dtype.kind not in "fc":
        return False
    # Plain ufuncs and .any()/.all() rather than np.array_equal: this runs hundreds of times per
    # submission on small arrays, where array_equal's own checks cost more than the comparison.
    if exact_zeros and ((got == 0) != (expected == 0)).any():
        return False
    finite = np.isfinite(expected)
    if finite.all():
        if not np.isfinite(got).all():
            return False
    elif (finite != np.isfinite(got)).any() or not np.array_equal(got[~finite], expected[~finite], equal_nan=True):
        return False
    else:
        got, expected = got[finite], expected[finite]
    rtol, atol = (SAME_RTOL_FLOAT32, SAME_ATOL_FLOAT32) if float32_inputs else (SAME_RTOL, SAME_ATOL)
    return bool((np.abs(got - expected) <= atol + rtol * np.abs(expected)).all())


def same_values(got, expected) -> bool:
    """Are ``got`` and ``expected`` the very same plain value: types, dtypes, shapes and every entry
    (nan equal to nan)? The arguments as a call left them: "leaves its input unchanged" asks for
    exactly what was given, so no tolerance may pass a rounding written into them."""
    if isinstance(expected, np.ndarray) or isinstance(got, np.ndarray):
        return (
            isinstance(got, np.ndarray)
            and isinstance(expected, np.ndarray)
            and got.dtype == expected.dtype
            and got.shape == expected.shape
            and bool(np.array_equal(got, expected, equal_nan=expected.dtype.kind in "fc"))
        )
    if type(got) is not type(expected):
        return False
    if isinstance(expected, (tuple, list)):
        return len(got) == len(expected) and all(same_values(g, e) for g, e in zip(got, expected))
    if isinstance(expected, dict):
        return got.keys() == expected.keys() and all(same_values(got[k], expected[k]) for k in expected)
    return got == expected or (got != got and expected != expected)  # nan is its own value here
