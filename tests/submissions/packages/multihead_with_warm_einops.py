"""Right only where the fork server ran the course's warm-up for einops before forking it.

file: multihead.py
"""

import einops


def split_heads(x, n_heads):
    assert einops.warmed_by_the_course, "the warm-up did not run"
    return einops.rearrange(x, "... t (h d) -> ... h t d", h=n_heads)
