"""The heads read with plain loops and a dict of where each token was seen: slower, the same answers.

file: heads.py
"""


def most_attended_token(weights):
    best = np.zeros(weights.shape[:-1], dtype=np.int64)
    for index in np.ndindex(*weights.shape[:-1]):
        row = weights[index]
        best[index] = max(range(len(row)), key=lambda j: (row[j], -j))
    return best


def hard_attention(q, k, v):
    scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1])
    best = scores.argmax(axis=-1)
    out = np.take_along_axis(np.broadcast_to(v, scores.shape[:-2] + v.shape[-2:]), best[..., None], axis=-2)
    return out, np.eye(scores.shape[-1], dtype=scores.dtype)[best]


def previous_token_score(weights):
    n = weights.shape[-1]
    if weights.shape[-2] != n or n < 2:
        raise ValueError("previous_token_score needs square weights over at least 2 tokens")
    return sum(weights[..., i, i - 1] for i in range(1, n)) / (n - 1)


def sink_score(weights):
    return np.mean(weights[..., 0], axis=-1)


def induction_score(weights, token_ids):
    ids = np.broadcast_to(np.asarray(token_ids), np.broadcast_shapes(np.shape(token_ids), weights.shape[:-1]))
    lead = np.broadcast_shapes(ids.shape[:-1], weights.shape[:-2])
    ids, weights = np.broadcast_to(ids, lead + ids.shape[-1:]), np.broadcast_to(weights, lead + weights.shape[-2:])
    scores = np.zeros(lead)
    for index in np.ndindex(*lead):
        seen, total, counted = {}, 0.0, 0
        for i, token in enumerate(ids[index].tolist()):
            if token in seen:
                total += sum(weights[index][i, j + 1] for j in seen[token])
                counted += 1
            seen.setdefault(token, []).append(i)
        scores[index] = total / counted if counted else 0.0
    return scores
