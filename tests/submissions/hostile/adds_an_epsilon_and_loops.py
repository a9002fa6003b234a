"""An honest softmax written from scratch: element by element with math.exp and Fraction-exact
sums (slow, but right), with a 1e-9 guard in the denominator. Its answers differ from the
reference by about 1e-9 relative: inside every hidden test's tolerance (1e-7), outside the
replay's "same behaviour" (1e-10), so in a class every test that reaches it runs twice (replay,
then live) and is charged twice to the submission's budget.

file: softmax.py
"""

import math
from fractions import Fraction


def softmax(x, axis=-1):
    x = np.moveaxis(np.asarray(x, dtype=float), axis, -1)
    out = np.empty_like(x)
    for index in np.ndindex(x.shape[:-1]):
        row = [float(v) for v in x[index]]
        top = max(row)
        e = [math.exp(v - top) for v in row]
        total = float(sum(Fraction(v) for v in e)) + 1e-9
        out[index] = [v / total for v in e]
    _work_hard()
    return np.moveaxis(out, -1, axis)


def _work_hard():
    # Stands for honest but slow code: about 10 ms of pure-Python work per call.
    import time
    end = time.perf_counter() + 0.01
    while time.perf_counter() < end:
        pass
