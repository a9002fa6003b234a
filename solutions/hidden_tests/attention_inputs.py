"""Hypothesis strategies for attention inputs, shared by the hidden tests.

Sizes are small (1 to 5) so that a failure shrinks to an example a student can
read; shapes are drawn by hypothesis, values come from a seeded generator (so
they are reproducible, and cheap to draw). Derived sizes are derived, never
drawn twice: d_model = n_heads * d_head.
"""

import numpy as np
from hypothesis import strategies as st

SIZE = st.integers(1, 5)
SEED = st.integers(0, 2**16)
# Leading axes: none, a batch axis, or batch and heads.
LEAD = st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple)
DTYPE = st.sampled_from([np.float64, np.float32])


def normal(seed, shape, dtype=np.float64, scale=1.0):
    """Standard-normal values of ``shape``, reproducible from ``seed``."""
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


@st.composite
def qkv(draw, same_length=False, dtypes=DTYPE):
    """(q, k, v) with q (..., L_q, d_k), k (..., L_k, d_k), v (..., L_k, d_v)."""
    lead, n_q, d_k, d_v, seed = draw(LEAD), draw(SIZE), draw(SIZE), draw(SIZE), draw(SEED)
    n_k = n_q if same_length else draw(SIZE)
    dtype = draw(dtypes)
    return (
        normal(seed, lead + (n_q, d_k), dtype),
        normal(seed + 1, lead + (n_k, d_k), dtype),
        normal(seed + 2, lead + (n_k, d_v), dtype),
    )


@st.composite
def attend_mask(draw, lead, n_q, n_k):
    """A boolean mask (..., L_q, L_k) in which every query may see at least one key."""
    seed = draw(SEED)
    rng = np.random.default_rng(seed)
    mask = rng.random(lead + (n_q, n_k)) < 0.5
    first = rng.integers(0, n_k, size=lead + (n_q,))
    np.put_along_axis(mask, first[..., None], True, axis=-1)
    return mask


@st.composite
def projections(draw, dtypes=st.just(np.float64)):
    """x (..., T, d_model) and w_q, w_k (d_model, d_k), w_v (d_model, d_v), all widths distinct when possible."""
    lead, n, d_model, d_k, d_v, seed = draw(LEAD), draw(SIZE), draw(SIZE), draw(SIZE), draw(SIZE), draw(SEED)
    dtype = draw(dtypes)
    return (
        normal(seed, lead + (n, d_model), dtype),
        normal(seed + 1, (d_model, d_k), dtype),
        normal(seed + 2, (d_model, d_k), dtype),
        normal(seed + 3, (d_model, d_v), dtype),
    )


def lengths_for(rng, batch, max_len):
    """Right-padding lengths: each sequence keeps at least one real token."""
    return rng.integers(1, max_len + 1, size=batch)
