"""Follows only the most recent earlier copy of the query's token, written with loops.

file: heads.py
breaks: induction_score
"""


def induction_score(weights, token_ids):
    ids = np.broadcast_to(np.asarray(token_ids), weights.shape[:-1])
    scores = np.zeros(weights.shape[:-2])
    for index in np.ndindex(*weights.shape[:-2]):
        row_ids, total, counted = ids[index], 0.0, 0
        for i in range(len(row_ids)):
            earlier = [j for j in range(i) if row_ids[j] == row_ids[i]]
            if earlier:
                total += weights[index][i, earlier[-1] + 1]
                counted += 1
        scores[index] = total / counted if counted else 0.0
    return scores
