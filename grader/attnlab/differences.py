"""What a wrong array has in common with the expected one, said in a student's terms.

Needs no catalogue of known mistakes, only the two arrays: a mask that is the
exact complement of the expected one, a result that is its transpose, rows that
sum to 1 along another axis, everything shifted by one row or column, every
value off by the same factor. ``expect`` adds the sentence to a failing check's
message, so it shows in graded feedback and in ``attnlab check`` alike (this
module ships in the student release; the catalogue never does).
"""

from __future__ import annotations

import numpy as np

# Looser than a hidden test's tolerance: the relation is a hint about structure, and a result
# computed another (correct) way differs in the last digits.
_RTOL, _ATOL = 1e-6, 1e-9


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=_RTOL, atol=_ATOL))


def describe_difference(got, expected) -> str | None:
    """One sentence on how ``got`` relates to ``expected`` as a whole, or None when nothing simple does.

    Shapes: any ``got`` and ``expected``; only a ``got`` of the expected shape, or of it with the
    last two axes swapped, can be related."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.dtype.kind not in "biuf" or expected.dtype.kind not in "biuf" or expected.ndim == 0:
        return None
    if got.dtype.kind == "b" and expected.dtype.kind == "b":
        return _mask_difference(got, expected)
    if got.dtype.kind == "b" or not np.isfinite(got).all() or not np.isfinite(expected).all():
        return None
    got, expected = got.astype(float), expected.astype(float)
    if expected.ndim >= 2 and _close(got, np.swapaxes(expected, -1, -2)) and not _close(got, expected):
        return "Your result is the transpose of the expected one (its last two axes are swapped)."
    if got.shape != expected.shape:
        return None
    return _rows_sum_elsewhere(got, expected) or _shifted(got, expected, "result") or _scaled(got, expected)


def _mask_difference(got: np.ndarray, expected: np.ndarray) -> str | None:
    if got.shape == expected.shape and (got == ~expected).all():
        return "Your mask is the exact complement of the expected one (True and False are swapped)."
    if (
        expected.ndim >= 2
        and got.shape == np.swapaxes(expected, -1, -2).shape
        and (got == np.swapaxes(expected, -1, -2)).all()
        and not (got.shape == expected.shape and (got == expected).all())
    ):
        return "Your mask is the transpose of the expected one (its last two axes are swapped)."
    if got.shape != expected.shape:
        return None
    return _shifted(got, expected, "mask")


def _rows_sum_elsewhere(got: np.ndarray, expected: np.ndarray) -> str | None:
    """Weights that should sum to 1 along the last axis, and sum to 1 along another one instead."""
    if got.ndim < 2 or expected.shape[-1] < 2 or not np.allclose(expected.sum(axis=-1), 1.0, atol=1e-6):
        return None
    if np.allclose(got.sum(axis=-1), 1.0, atol=1e-6):
        return None
    for axis in range(got.ndim - 1):
        if got.shape[axis] > 1 and np.allclose(got.sum(axis=axis), 1.0, atol=1e-6):
            return f"Your rows sum to 1 along axis {axis} (or {axis - got.ndim}), not along the last axis."
    return None


def _shifted(got: np.ndarray, expected: np.ndarray, noun: str) -> str | None:
    """Every row (or column) is the expected one next to it: an off-by-one."""
    same = (lambda a, b: (a == b).all()) if got.dtype.kind == "b" else _close
    for axis, unit in ((-2, "row"), (-1, "column")):
        if got.ndim < -axis or got.shape[axis] < 3:
            continue
        head = [slice(None)] * got.ndim
        tail = [slice(None)] * got.ndim
        head[axis], tail[axis] = slice(1, None), slice(None, -1)
        if same(got, expected):
            return None
        if same(expected[tuple(head)], expected[tuple(tail)]):
            continue  # the expected rows are all alike: a shift would be no evidence
        if same(got[tuple(head)], expected[tuple(tail)]):
            return f"Off by one {unit}: your {noun}'s {unit} i is the expected {unit} i - 1 (everything moved one {unit} further)."
        if same(got[tuple(tail)], expected[tuple(head)]):
            return f"Off by one {unit}: your {noun}'s {unit} i is the expected {unit} i + 1 (everything moved one {unit} back)."
    return None


def _scaled(got: np.ndarray, expected: np.ndarray) -> str | None:
    """Every value is the expected one times the same factor (a wrong scale, a flipped sign)."""
    big = np.abs(expected) > 1e-6
    if big.sum() < 2:
        return None
    factor = float(np.median(got[big] / expected[big]))
    if abs(factor - 1.0) < 1e-6 or factor == 0.0 or not _close(got, factor * expected):
        return None
    return f"Every value is {factor:.4g} times the expected one: a scale or a sign is off."
