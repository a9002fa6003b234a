"""A student who rounds as they go: the reference computed with every intermediate result rounded.

Lint asks, of every variant, whether the answer of a student who keeps ``rounded`` decimals along
the way, as the lessons' worked examples do, is marked right. For an arithmetic key ``arith``
rounds each operation; for a key computed by a reference function, its array arguments are
``RoundingArray``s, whose every numpy operation (ufunc or array function) rounds its floating
result, halves away from zero. Numpy is imported only here, and only lint imports this module.
"""

from __future__ import annotations

import numpy as np


def _round(values, decimals: int):
    """``values`` rounded to ``decimals``, halves away from zero (a float array)."""
    values = np.asarray(values, dtype=float)
    scale = 10.0**decimals
    return np.asarray(np.sign(values) * np.floor(np.abs(values) * scale + 0.5) / scale + 0.0)


class RoundingArray(np.ndarray):
    """An array whose arithmetic rounds every floating result to ``decimals``."""

    decimals: int = 2

    def __array_finalize__(self, parent):
        self.decimals = getattr(parent, "decimals", 2)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if "out" in kwargs:
            kwargs["out"] = tuple(_plain(x) for x in kwargs["out"])
        return _rewrap(getattr(ufunc, method)(*(_plain(x) for x in inputs), **kwargs), self.decimals)

    def __array_function__(self, func, types, args, kwargs):
        return _rewrap(func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()}), self.decimals)


def _plain(value):
    if isinstance(value, RoundingArray):
        return value.view(np.ndarray)
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(x) for x in value)
    return value


def _rewrap(result, decimals: int):
    if isinstance(result, np.ndarray) or isinstance(result, np.floating):
        array = np.asarray(result)
        if array.dtype.kind == "f":
            array = _round(array, decimals)
        wrapped = np.asarray(array).view(RoundingArray)
        wrapped.decimals = decimals
        return wrapped
    if isinstance(result, (list, tuple)):
        return type(result)(_rewrap(x, decimals) for x in result)
    if isinstance(result, float):
        return float(_round(result, decimals))
    return result


def rounding_array(values, decimals: int) -> RoundingArray:
    """``values`` (a list, as a parameter holds it) as an array that rounds as it computes."""
    wrapped = np.asarray(values).view(RoundingArray)
    wrapped.decimals = decimals
    return wrapped


def plain_rounded(result, decimals: int):
    """A reference result as Python numbers and lists, rounded to ``decimals`` once more."""
    if isinstance(result, np.ndarray) or isinstance(result, np.generic):
        array = np.asarray(result)
        return (_round(array, decimals) if array.dtype.kind == "f" else array).tolist()
    if isinstance(result, float):
        return float(_round(result, decimals))
    return result
