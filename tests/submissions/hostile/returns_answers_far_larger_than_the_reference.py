"""kv_cache_step returns two 48 MiB arrays, whatever it is given: each under the 64 MiB one array
may be, and garbage. A grader that keeps every result of a test went to 2.6 GB, and "leaves its
input unchanged" (which looks at the cache passed in, not at the answer) scored 1/1 on it. An
answer far larger than the reference's is refused with the reason, before it is kept.

file: efficient.py
"""

import numpy as np


def kv_cache_step(x_t, cache, w_q, w_k, w_v, key_padding_mask=None):
    return np.ones(6 << 20), {"k": np.ones(6 << 20), "v": np.ones((1, 1, 1))}
