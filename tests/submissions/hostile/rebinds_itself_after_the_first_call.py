"""causal_mask is right on its first call, then points its module's name at a wrong mask. A live
worker looks the function up in the module at every call; the watching worker keeps the function
object the file defined at import.

file: masks.py
"""


def causal_mask(n):
    global causal_mask
    causal_mask = _every_key_visible
    return np.tril(np.ones((n, n), dtype=bool))


def _every_key_visible(n):
    return np.ones((n, n), dtype=bool)
