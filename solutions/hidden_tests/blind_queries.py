"""Inputs and one check for the course's rule on a query that may see no key (docs/contract.md).

The realistic case is batched generation: sequences padded on the left (the padding first) under
a causal mask. A padding query sees only the keys up to it, all of them padding: it may see no
key. Only some sequences of a batch are padded, so one call holds blind rows and rows that see
keys. The rule: such a query gets zero weights and a zero output, so it has no gradient either.
When a student's row is not zero, the failure says what it is instead and why: nan (the softmax
of a row of -inf is 0 / 0), the uniform row a finite fill such as -1e9 leaves, or the unmasked
row a fill added to the scores leaves.
"""

import numpy as np
from attention_inputs import SEED
from hypothesis import strategies as st

from attnlab.expect import Mismatch, expect_close
from attnlab.wording import count

RULE = "a query that may see no key gets zero weights and a zero output, and so no gradient (docs/contract.md)"
WHY_BLIND = "with left padding under a causal mask, a padding query sees only padding"
NAN = (
    "nan comes from the softmax of a row whose every score is -inf: -inf - (-inf), then 0 / 0. Give such a row "
    "finite scores (zeros) before the softmax and zero weights after it (np.where or masked_fill on the mask)"
)
UNIFORM = (
    "that is what uniform weights over every key give: a finite fill such as -1e9 or finfo(dtype).min in place of "
    "-inf makes every score of the row equal, so the row is uniform, not zero. Fill with -inf and zero such a row "
    "after the softmax, or multiply the weights by mask.any(-1)"
)
UNMASKED = (
    "that is what the row gives with no mask at all: adding a large negative number to the masked scores shifts a "
    "row with no visible key as a whole, and a softmax ignores a shift. Replace masked scores with -inf "
    "(np.where on the mask) and zero such a row after the softmax"
)


def left_padding_for(rng, batch, n):
    """(B, T) bool, True at real tokens, the padding first: sequence 0 has padding (its first
    queries may see no key under a causal mask) and, with B > 1, the last sequence has none.
    Needs T >= 2; every sequence keeps at least one real token."""
    lengths = rng.integers(1, n + 1, size=batch)
    lengths[0] = min(lengths[0], n - 1)
    if batch > 1:
        lengths[-1] = n
    return np.arange(n)[None, :] >= (n - lengths)[:, None]


@st.composite
def left_padded(draw, batch=st.integers(2, 3), tokens=st.integers(2, 5)):
    """A left padding mask (B, T) as ``left_padding_for`` makes, with B and T drawn."""
    return left_padding_for(np.random.default_rng(draw(SEED)), draw(batch), draw(tokens))


def causal_and(real):
    """(B, T) real tokens -> (B, T, T): query i may see key j when j <= i and token j is real."""
    n = real.shape[-1]
    return np.tril(np.ones((n, n), dtype=bool)) & real[:, None, :]


def blind_queries(real):
    """(B, T) real tokens -> (B, T) bool: the queries that may see no key under a causal mask."""
    return ~causal_and(real).any(axis=-1)


def _place(index, axes):
    """A row's index in words: ``sequence 0, head 1, query 2``."""
    return ", ".join(f"{name} {int(i)}" for name, i in zip(axes, index))


def _closest(rows, candidates):
    """The reason of the candidate rows that ``rows`` match best, loosely (to name what they are, in
    any dtype, half precision too, not to grade them), or None when none is near."""
    best, reason = None, None
    for candidate, why in candidates:
        distance = float(np.max(np.abs(rows - candidate)))
        near = distance <= 0.02 * max(float(np.max(np.abs(candidate), initial=0.0)), 1e-12)
        if near and (best is None or distance < best):
            best, reason = distance, why
    return reason


def expect_blind_rows(got, blind, what, *inputs, axes=("sequence", "query"), uniform=None, unmasked=None, also=""):
    """The rows of ``got`` (..., rows, C) where ``blind`` (bool, broadcast to ``got.shape[:-1]``) is
    True are 0, at the inputs' precision. If not, the failure names the worst such row and what it
    holds: nan, or the rows of ``uniform`` or ``unmasked`` (arrays shaped like ``got``), the
    answers of a finite fill and of an added fill. ``also`` is added to a failure's message."""
    got = np.asarray(got)
    try:
        blind = np.broadcast_to(blind, got.shape[:-1])
    except ValueError:
        raise Mismatch(f"{what} has the wrong shape {got.shape}: it should have a row per query") from None
    if not blind.any():
        return
    rows = got[blind].astype(np.float64)  # (n_blind, C)
    try:
        expect_close(rows, np.zeros_like(rows), what, *inputs)
        return
    except Mismatch:
        pass
    worst = int(np.argmax(np.where(np.isfinite(rows), np.abs(rows), np.inf).max(axis=-1)))  # nan first
    place = _place(np.argwhere(blind)[worst], axes[-blind.ndim:])
    opening = f"{what}: {place} may see no key ({WHY_BLIND}), so its row must be 0: {RULE}."
    nan_rows = ~np.isfinite(rows)
    if nan_rows.any():
        elsewhere = int((~np.isfinite(np.where(blind[..., None], 0.0, got.astype(np.float64)))).sum())
        spread = f"; it spread to {count(elsewhere, 'entry')} of the other rows" if elsewhere else ""
        held = count(int(nan_rows.sum()), "entry")
        message = f"{opening} It holds nan ({held} in the rows of such queries{spread}). {NAN}"
    else:
        known = ((uniform, UNIFORM), (unmasked, UNMASKED))
        candidates = [(np.asarray(c, dtype=np.float64)[blind], why) for c, why in known if c is not None]
        reason = _closest(rows, candidates)
        message = f"{opening} It holds {_row(rows[worst])}" + (f": {reason}" if reason else "")
    raise Mismatch(message + (f". {also}" if also else ""))


def _row(values, shown=4):
    """A row's first values, as a student reads them: ``[0.25, 0.25, 0.25, 0.25]``."""
    text = ", ".join(f"{v:.4g}" for v in values[:shown])
    return f"[{text}{', ...' if len(values) > shown else ''}]"
