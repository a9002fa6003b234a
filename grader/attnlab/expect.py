"""Checks for hidden tests that fail with feedback a student can act on.

Each ``expect_*`` raises ``Mismatch`` (an ``AssertionError``) whose message
says what is wrong in the student's terms: the shape passport (expected vs
got, with axis names), the axis the rows really sum to 1 along, which masked
cells leaked weight, where the first nan is. Tolerances follow the inputs a
result was computed from (or the dtype the contract gives it): results of
float32 inputs are compared at float32 precision, all others at float64's.
Never the answer's own dtype: a student must not loosen the check by
returning float32.
"""

from __future__ import annotations

import numpy as np

from attnlab.differences import describe_difference
from attnlab.wording import count, with_article


class Mismatch(AssertionError):
    """The student's result is wrong; the message says how, and ``picture`` may show it."""

    def __init__(self, message: str, picture: dict | None = None):
        super().__init__(message)
        self.picture = picture


PICTURE_CELLS = 8


def picture(got, expected=None, leaked=None, title: str = "") -> dict | None:
    """A small expected-vs-got heatmap: the first 2-D slice, at most 8 × 8, as plain lists."""

    def first_slice(array):
        array = np.asarray(array)
        if array.ndim < 2 or array.dtype.kind not in "biuf":
            return None
        while array.ndim > 2:
            array = array[0]
        return array[:PICTURE_CELLS, :PICTURE_CELLS].astype(float)

    got_2d = first_slice(got)
    if got_2d is None:
        return None
    expected_2d = first_slice(expected) if expected is not None else None
    leaked_2d = first_slice(leaked) if leaked is not None else None
    if expected_2d is not None and expected_2d.shape != got_2d.shape:
        expected_2d = None
    return {
        "title": title,
        "got": np.where(np.isfinite(got_2d), got_2d, np.nan).tolist(),
        "expected": None if expected_2d is None else expected_2d.tolist(),
        "leaked": None if leaked_2d is None or leaked_2d.shape != got_2d.shape else leaked_2d.astype(bool).tolist(),
    }


def _where(index) -> str:
    """An array index as people write it: ``3`` for a vector, ``(0, 2)`` for a matrix."""
    if len(index) == 1:
        return str(int(index[0]))
    return "(" + ", ".join(str(int(i)) for i in index) + ")"


def tolerance(*inputs) -> tuple[float, float]:
    """(rtol, atol) for comparing a result computed from ``inputs``: arrays, or dtypes (``np.float32``)
    where the contract fixes the result's dtype without an array input. Float32's when any is
    float32; float64's otherwise, and with none."""
    if any(_dtype_of(item) == np.float32 for item in inputs):
        return 2e-4, 2e-5
    return 1e-7, 1e-9


def _dtype_of(item) -> np.dtype:
    if isinstance(item, np.dtype) or (isinstance(item, type) and issubclass(item, np.generic)):
        return np.dtype(item)
    dtype = getattr(item, "dtype", None)
    return dtype if isinstance(dtype, np.dtype) else np.asarray(item).dtype


def expect_array(got, what: str) -> np.ndarray:
    if not isinstance(got, np.ndarray):
        raise Mismatch(f"{what} should be a numpy array, got a {type(got).__name__}")
    if got.dtype.kind not in "fc":
        raise Mismatch(f"{what} should hold floats, got dtype {got.dtype}")
    return got


def expect_pair(got, what: str, names: str = "(output, weights)") -> tuple:
    """A function that returns two things (``names``: an attention function's ``(output, weights)``)."""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        kind = with_article(type(got).__name__) + (
            f" of {count(len(got), 'item')}" if isinstance(got, (tuple, list)) else ""
        )
        raise Mismatch(f"{what} should return a pair {names}, got {kind}")
    return tuple(got)


def expect_shape(got, shape: tuple, what: str, passport: str = "") -> None:
    """``got`` has exactly ``shape``; ``passport`` names the axes, e.g. ``(..., L_q, L_k)``."""
    got_shape = tuple(np.shape(got))
    if got_shape != tuple(shape):
        named = f" = {passport}" if passport else ""
        hint = ""
        if sorted(got_shape) == sorted(shape):
            hint = " (the same sizes in another order: are two axes swapped?)"
        elif len(got_shape) != len(shape):
            hint = f" ({count(len(got_shape), 'axis')} instead of {len(shape)})"
        raise Mismatch(f"{what} has the wrong shape: expected {tuple(shape)}{named}, got {got_shape}{hint}")


def expect_finite(got, what: str) -> None:
    bad = ~np.isfinite(got)
    if bad.any():
        index = np.argwhere(bad)[0]
        kind = "nan" if np.isnan(got[tuple(index)]) else "inf"
        raise Mismatch(
            f"{what} contains {kind} (first at index {_where(index)}, {count(int(bad.sum()), 'entry')} in all)"
        )


def expect_close(got, expected, what: str, *inputs, passport: str = "", atol: float | None = None) -> None:
    """``got`` matches ``expected`` in shape and values, at the precision of ``inputs`` (``tolerance``:
    never ``got``'s own dtype), or within ``atol``."""
    got = expect_array(got, what)
    if np.ndim(got) >= 2 and np.shape(got) != np.shape(expected):
        relation = describe_difference(got, expected)
        if relation:
            raise Mismatch(
                f"{what} has the wrong shape: expected {tuple(np.shape(expected))}, got {np.shape(got)}. {relation}"
            )
    expect_shape(got, np.shape(expected), what, passport)
    expected = np.asarray(expected, dtype=float)
    if np.isfinite(expected).all():
        expect_finite(got, what)
    rtol, atol = (0.0, atol) if atol is not None else tolerance(*inputs)
    close = np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    if not close.all():
        error = np.abs(np.where(close, 0.0, got.astype(np.float64) - expected))
        index = np.unravel_index(np.argmax(error), error.shape)
        relation = describe_difference(got, expected)
        raise Mismatch(
            f"{what} has wrong values in {int((~close).sum())} of {count(close.size, 'entry')}; "
            f"the largest error is at index {_where(index)}: expected {expected[index]:.6g}, got {got[index]:.6g}"
            + (f". {relation}" if relation else ""),
            picture(got, expected, title=what),
        )


def expect_rows_sum_to_one(weights, what: str, axis_names: tuple[str, ...] = (), inputs: tuple = ()) -> None:
    """Each row of ``weights`` sums to 1 over the last (key) axis, at the precision of ``inputs``
    (``tolerance``: never the weights' own dtype); if not, say which axis does."""
    weights = expect_array(weights, what)
    rtol, atol = tolerance(*inputs)
    sums = weights.sum(axis=-1)
    if np.allclose(sums, 1.0, rtol=max(rtol, 1e-6), atol=max(atol, 1e-6)):
        return
    names = dict(zip(range(-len(axis_names), 0), axis_names))
    others = [
        axis
        for axis in range(-weights.ndim, -1)
        if weights.shape[axis] > 1 and np.allclose(weights.sum(axis=axis), 1.0, atol=1e-6)
    ]
    detail = f"e.g. a row sums to {sums.flat[np.argmax(np.abs(sums - 1.0))]:.6g}"
    if others:
        axis = others[-1]
        detail = (
            f"they sum to 1 along axis {axis}"
            + (f" ({names[axis]})" if axis in names else "")
            + " instead: the softmax ran over the wrong axis"
        )
    key = f" ({names[-1]})" if -1 in names else ""
    raise Mismatch(f"{what}: rows should sum to 1 over the last axis{key}, but {detail}", picture(weights, title=what))


def expect_zero_where(weights, forbidden, what: str, cell_names: tuple[str, str] = ("query", "key")) -> None:
    """``weights`` are exactly 0 wherever ``forbidden`` is True (broadcast to their shape)."""
    forbidden = np.broadcast_to(forbidden, np.shape(weights))
    leaked = forbidden & (np.asarray(weights) != 0.0)
    if leaked.any():
        index = tuple(np.argwhere(leaked)[np.argmax(np.abs(np.asarray(weights)[leaked]))])
        row, column = index[-2], index[-1]
        raise Mismatch(
            f"{what}: {int(leaked.sum())} masked cells got weight (they must be exactly 0); the largest is "
            f"{float(np.asarray(weights)[index]):.4g} at {cell_names[0]} {row}, {cell_names[1]} {column} (index {_where(index)})",
            picture(weights, None, leaked, title=what),
        )


def expect_equal_bool(got, expected, what: str, passport: str = "") -> None:
    """A boolean mask equals the expected one exactly."""
    if not isinstance(got, np.ndarray):
        raise Mismatch(f"{what} should be a numpy array, got a {type(got).__name__}")
    if got.dtype == np.bool_ and got.shape != np.shape(expected):
        relation = describe_difference(got, expected)
        if relation:
            raise Mismatch(
                f"{what} has the wrong shape: expected {tuple(np.shape(expected))}, got {got.shape}. {relation}"
            )
    expect_shape(got, np.shape(expected), what, passport)
    if got.dtype != np.bool_:
        raise Mismatch(f"{what} should have dtype bool (True = may attend), got {got.dtype}")
    wrong = got != expected
    if wrong.any():
        index = np.argwhere(wrong)[0]
        relation = describe_difference(got, expected)
        raise Mismatch(
            f"{what} is wrong in {int(wrong.sum())} of {wrong.size} cells; first at index {_where(index)}: "
            f"expected {bool(expected[tuple(index)])}, got {bool(got[tuple(index)])}"
            + (f". {relation}" if relation else "")
        )


def expect_every_row(got, expected, what: str, *inputs, passport: str = "") -> None:
    """Every row (along the first axis) of ``got`` is close to ``expected``'s. For a test of fixed
    inputs (a memory test): its failure names the wrong rows and never their expected values, so a
    table of answers learnt from feedback cannot pass it (the tests on drawn inputs show what differs)."""
    got = expect_array(got, what)
    expect_shape(got, np.shape(expected), what, passport)
    rtol, atol = tolerance(*inputs)
    close = np.isclose(got, expected, rtol=rtol, atol=atol)
    wrong = (
        np.flatnonzero(~close.reshape(close.shape[0], -1).all(axis=-1)) if close.ndim > 1 else np.flatnonzero(~close)
    )
    if wrong.size:
        shown = ", ".join(str(int(row)) for row in wrong[:8]) + (", …" if wrong.size > 8 else "")
        raise Mismatch(
            f"{what}: {wrong.size} of {close.shape[0]} rows are wrong (row {shown}). This test's inputs are fixed, so it "
            "does not show their values; the other tests of this function draw inputs of their own and show what differs"
        )


def expect_unchanged(function: str, names: tuple[str, ...], given: tuple, after: tuple) -> None:
    """The arrays a call was ``given`` are exactly as they were ``after`` it: a function returns new
    arrays and never writes into its arguments (``x -= x.max()`` changes the caller's scores).
    ``names`` name the arguments, in order."""
    for name, before, now in zip(names, given, after):
        if not isinstance(before, np.ndarray):
            continue
        now = np.asarray(now)
        if now.shape != before.shape or not np.array_equal(now, before, equal_nan=True):
            changed = int((now != before).sum()) if now.shape == before.shape else before.size
            raise Mismatch(
                f"{function} changed the array {name} it was given ({changed} of {count(before.size, 'entry')} "
                f"differ after the call): compute into a new array (x = x - m, not x -= m or out=x), "
                f"because the caller still uses {name}"
            )


def expect_cache_unchanged(function: str, given: dict, after) -> None:
    """The cache dict a call was ``given`` (arrays under "k", "v", ...) is as it was ``after`` it:
    the same keys, each array untouched (``expect_unchanged``); a new dict is returned instead."""
    if not isinstance(after, dict) or set(after) != set(given):
        raise Mismatch(
            f"{function} changed the keys of the cache passed in: {sorted(given)} became "
            f"{sorted(after) if isinstance(after, dict) else after!r}"
        )
    names = tuple(sorted(given))
    expect_unchanged(
        function, tuple(f"cache[{n!r}]" for n in names), tuple(given[n] for n in names), tuple(after[n] for n in names)
    )
