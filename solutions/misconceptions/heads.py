"""Known wrong versions of the functions of heads.py (instructor-only: never shipped to students)."""

import numpy as np
from attention import scaled_dot_product_attention
from scores import attention_scores

from attnlab.misconceptions import misconception, probe


@misconception(
    "most_attended_token",
    "argmax over the queries (axis -2), not the keys",
    explanation="Row i of a heatmap is where query i looks: its largest weight is along the last axis, the keys. An argmax along axis -2 answers another question, for each key, the query that looks at it most, and gives one answer per key instead of one per query.",
    hint="np.argmax(weights, axis=-1).",
)
def most_attended_over_queries(weights):
    return np.argmax(weights, axis=-2)


@misconception(
    "most_attended_token",
    "the largest weight itself, not its key",
    explanation="The most-attended token is a position, the index of the largest weight in the row; np.max returns how much weight it gets (a float), not which key gets it.",
    hint="np.argmax, not np.max: the index of the largest weight along the key axis.",
)
def most_attended_max_weight(weights):
    return np.max(weights, axis=-1)


@misconception(
    "hard_attention",
    "the soft blend of the values, not the best key's value",
    explanation="Soft attention mixes every value by its softmax weight; hard attention picks one key per query, the best-scoring one, and copies its value: the weights are one-hot (1 on that key, 0 elsewhere). They agree only when one key wins by far.",
    hint="best = np.argmax(scores, axis=-1); weights = one-hot of best; out = weights @ v.",
)
def hard_attention_soft_blend(q, k, v):
    return scaled_dot_product_attention(q, k, v)


@misconception(
    "hard_attention",
    "the best query for each key (argmax over axis -2)",
    explanation="Each query chooses among the keys: the argmax runs along the last axis of the (L_q, L_k) scores. Along axis -2 every key picks its best query instead, so the one-hot marks fall in columns, not rows, and a query may take no value at all or several.",
    hint="np.argmax(scores, axis=-1), then one-hot along the key axis.",
)
def hard_attention_best_query_per_key(q, k, v):
    scores = attention_scores(q, k)
    best = np.argmax(scores, axis=-2)[..., None, :]  # (..., 1, L_k)
    weights = (np.arange(scores.shape[-2])[:, None] == best).astype(scores.dtype)
    return weights @ v, weights


@misconception(
    "previous_token_score",
    "the cells above the diagonal (query i on key i + 1)",
    explanation="The previous token of query i is key i - 1: its cell lies just below the diagonal (offset -1). Just above it (offset +1) is key i + 1, the next token, which a causal head never sees, so every causal head scores 0.",
    hint="np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).",
)
def previous_token_next_token(weights):
    return np.diagonal(weights, offset=1, axis1=-2, axis2=-1).mean(axis=-1)


@misconception(
    "previous_token_score",
    "the diagonal counted too (query i on keys i and i - 1)",
    explanation="A previous-token head looks one step back; weight on the query's own key is a different habit (attending to itself). Adding the diagonal makes a head that only attends to itself look like a previous-token head.",
    hint="Only the cells (i, i - 1): np.diagonal with offset=-1, averaged over the T - 1 queries that have a previous token.",
)
def previous_token_with_diagonal(weights):
    below = np.diagonal(weights, offset=-1, axis1=-2, axis2=-1)
    own = np.diagonal(weights, axis1=-2, axis2=-1)[..., 1:]
    return (below + own).mean(axis=-1)


@misconception(
    "previous_token_score",
    "averaged over all T queries, query 0 counted as 0",
    explanation="Query 0 has no previous token, so it says nothing about the habit: the mean is over the T - 1 queries 1..T-1. Dividing by T counts it as a zero and pulls every score down, most for short sequences.",
    hint="Average the T - 1 values of np.diagonal(weights, offset=-1, ...) with .mean(axis=-1).",
)
def previous_token_over_every_query(weights):
    return np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).sum(axis=-1) / np.shape(weights)[-1]


@misconception(
    "sink_score",
    "row 0 (what query 0 looks at), not column 0",
    explanation="The sink is a key: how much every query's weight lands on key 0 is column 0 of the heatmap, weights[..., :, 0]. Row 0 is where query 0 looks, a distribution over the keys, so its mean is just 1 / T_k.",
    hint="weights[..., :, 0].mean(axis=-1).",
)
def sink_score_row_zero(weights):
    return weights[..., 0, :].mean(axis=-1)


@misconception(
    "sink_score",
    "the weights on key 0 summed, not averaged",
    explanation="A score per head should not grow with the length of the sequence: the sink score is the mean weight on key 0 over the queries, between 0 and 1. The sum is T_q times that.",
    hint="weights[..., :, 0].mean(axis=-1), not .sum.",
)
def sink_score_summed(weights):
    return weights[..., :, 0].sum(axis=-1)


def _induction(weights, token_ids, *, next_key=True, every_query=False, latest_only=False, key_before=False):
    """The reference's rule, with the one step a mistake changes as a switch."""
    token_ids = np.asarray(token_ids)
    earlier = np.tril(token_ids[..., :, None] == token_ids[..., None, :], k=-1)
    if latest_only:  # only the most recent earlier copy of each query's token
        last = np.where(earlier, np.arange(earlier.shape[-1]), -1).max(axis=-1, keepdims=True)
        earlier = earlier & (np.arange(earlier.shape[-1]) == last)
    targets = np.zeros(earlier.shape, dtype=bool)
    if key_before:
        targets[..., :, :-1] = earlier[..., :, 1:]
    elif next_key:
        targets[..., :, 1:] = earlier[..., :, :-1]
    else:
        targets = earlier
    per_query = np.sum(weights * targets, axis=-1)
    repeated = np.ones(per_query.shape, dtype=bool) if every_query else earlier.any(axis=-1)
    total = np.sum(per_query * repeated, axis=-1)
    counted = np.broadcast_to(np.sum(repeated, axis=-1), np.shape(total))
    return np.divide(total, counted, out=np.zeros(np.shape(total)), where=counted > 0)


@misconception(
    "induction_score",
    "the weight on the earlier copy itself, not on the token after it",
    explanation="An induction head completes a pattern: after \"A B … A\" the second A looks at B, the token that followed the earlier A, to predict that B comes next. Weight on the earlier A itself is a duplicate-token head, another habit.",
    hint="For an earlier copy at key j, the induction target is key j + 1: shift the same-token matrix one key to the right.",
)
def induction_same_token(weights, token_ids):
    return _induction(weights, token_ids, next_key=False)


@misconception(
    "induction_score",
    "averaged over every query, the new tokens counted as 0",
    explanation="A query whose token has not occurred before cannot show the induction pattern: there is no earlier copy to look after. The mean is over the queries whose token repeats; counting the others as zeros makes every score depend on how many new tokens the sequence has.",
    hint="Average only over the queries that have an earlier copy (same-token matrix below the diagonal .any(axis=-1)); 0.0 when there is none.",
)
def induction_over_every_query(weights, token_ids):
    return _induction(weights, token_ids, every_query=True)


@misconception(
    "induction_score",
    "only the most recent earlier copy is followed",
    explanation="Every earlier copy of the query's token is a place the pattern was seen: after \"A B … A C … A\" the last A may look at B or at C, and both are induction. Keeping the most recent copy alone misses the weight on the keys after the older ones.",
    hint="Sum the weights on key j + 1 for every j < i with token_ids[j] == token_ids[i].",
)
def induction_latest_copy_only(weights, token_ids):
    return _induction(weights, token_ids, latest_only=True)


def _causal_rows(seed, n, lead=()):
    rng = np.random.default_rng(seed)
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), rng.normal(size=lead + (n, n)), -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True)


_RNG = np.random.default_rng(71)
_WIDE = _RNG.dirichlet(np.ones(5), size=(2, 3))  # (2, 3, 5): 3 queries, 5 keys
probe("most_attended_token", "3 queries over 5 keys, batched", _WIDE)
probe("most_attended_token", "a causal 4 x 4 heatmap", _causal_rows(72, 4))
probe("most_attended_token", "rows that tie: keys 0 and 2, then keys 1 and 3", np.array([[0.4, 0.1, 0.4, 0.1], [0.2, 0.3, 0.2, 0.3]]))
probe("hard_attention", "L_q != L_k, d_k != d_v", _RNG.normal(size=(3, 2)), _RNG.normal(size=(5, 2)), _RNG.normal(size=(5, 4)))
probe("hard_attention", "a tie: q = [1, 0] scores keys [1, 0] and [1, 1] alike", np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([[10.0, 0.0], [0.0, 10.0], [5.0, 5.0]]))
probe("hard_attention", "two heads, one key far ahead of the rest", _RNG.normal(size=(2, 4, 3)), _RNG.normal(size=(2, 4, 3)) * np.array([1.0, 1.0, 8.0, 1.0])[:, None], _RNG.normal(size=(2, 4, 2)))
probe("previous_token_score", "two causal heads over 5 tokens", _causal_rows(73, 5, (2,)))
probe("previous_token_score", "one head, not causal, 3 tokens", _RNG.dirichlet(np.ones(3), size=3))
probe("sink_score", "3 queries over 5 keys, batched", _WIDE)
probe("sink_score", "two causal heads over 4 tokens", _causal_rows(74, 4, (2,)))
probe("induction_score", "A B A C A: three copies of A, not causal", _RNG.dirichlet(np.ones(5), size=5), np.array([1, 2, 1, 3, 1]))
probe("induction_score", "two causal heads, tokens that repeat", _causal_rows(75, 6, (2,)), np.array([4, 5, 4, 5, 6, 4]))


@misconception(
    "most_attended_token",
    "np.argmax without an axis: one index into the flattened weights",
    explanation="Each query has its own most attended key: the argmax along the key axis, one index per query. Without an axis np.argmax flattens the whole array and returns one number.",
    hint="np.argmax(weights, axis=-1).",
)
def most_attended_flat_argmax(weights):
    return np.argmax(weights)


@misconception(
    "most_attended_token",
    "a tie goes to the highest key index, not the lowest",
    explanation="When a query weighs two keys equally the course asks for the lowest index (np.argmax's own rule: the first maximum). Taking the last maximum picks the later key.",
    hint="np.argmax(weights, axis=-1) returns the first of equal maxima.",
)
def most_attended_last_of_ties(weights):
    weights = np.asarray(weights)
    return weights.shape[-1] - 1 - np.argmax(weights[..., ::-1], axis=-1)


@misconception(
    "hard_attention",
    "a tie marks every tied key: the weights are not one-hot",
    explanation="Hard attention picks one key per query: one 1.0 and zeros. Comparing the scores with their maximum marks every key that ties for it, so a tie gives several ones and the output adds their values.",
    hint="best = np.argmax(scores, axis=-1) (the lowest of tied keys), then (np.arange(L_k) == best[..., None]).",
)
def hard_attention_every_tied_key(q, k, v):
    scores = attention_scores(q, k)
    weights = (scores == scores.max(axis=-1, keepdims=True)).astype(scores.dtype)
    return weights @ v, weights


@misconception(
    "sink_score",
    "averaged over the number of keys, not the number of queries",
    explanation="The sink score is the mean weight every query puts on key 0: a sum over the T_q queries divided by T_q. Dividing by T_k, the number of keys, is the same only for square weights.",
    hint="weights[..., :, 0].mean(axis=-1).",
)
def sink_score_mean_over_the_keys(weights):
    return weights[..., :, 0].sum(axis=-1) / np.shape(weights)[-1]


@misconception(
    "induction_score",
    "np.tril keeps the diagonal: a token counts as its own earlier copy",
    explanation="The earlier copies of query i's token are at positions j < i: np.tril(..., k=-1). With the diagonal every token is its own earlier copy, so every query is 'repeated', and its target is the key after it, in the future.",
    hint="np.tril(same_token, k=-1).",
)
def induction_counts_itself(weights, token_ids):
    token_ids = np.asarray(token_ids)
    earlier = np.tril(token_ids[..., :, None] == token_ids[..., None, :])
    targets = np.zeros(earlier.shape, dtype=bool)
    targets[..., :, 1:] = earlier[..., :, :-1]
    per_query = np.sum(weights * targets, axis=-1)
    repeated = earlier.any(axis=-1)
    total = np.sum(per_query * repeated, axis=-1)
    counted = np.broadcast_to(np.sum(repeated, axis=-1), np.shape(total))
    return np.divide(total, counted, out=np.zeros(np.shape(total)), where=counted > 0)


# ---------------------------------------------------------------- axes written for one rank


@misconception(
    "most_attended_token",
    "np.argmax(weights, axis=1): the key axis of a 2-D heatmap only",
    explanation="On one (T_q, T_k) heatmap axis 1 is the keys, but with a batch or heads axis in front, axis 1 is the queries: the answer is then, for each key, the query that looks at it most. The keys are always the last axis.",
    hint="np.argmax(weights, axis=-1).",
)
def most_attended_axis_one(weights):
    return np.argmax(weights, axis=1)


@misconception(
    "hard_attention",
    "the values picked with v[best]: indexing the first axis, right for 2-D inputs only",
    explanation="v[best] indexes v's first axis. For one sequence that is the keys and gives each query its key's value, but with a batch or heads axis in front it picks whole sequences: the output grows an axis and mixes sequences. weights @ v (or np.take_along_axis on the key axis) stays within each sequence.",
    hint="Build the one-hot weights and return weights @ v.",
)
def hard_attention_first_axis_indexing(q, k, v):
    scores = attention_scores(q, k)
    best = np.argmax(scores, axis=-1)
    weights = (np.arange(scores.shape[-1]) == best[..., None]).astype(scores.dtype)
    return v[best], weights


@misconception(
    "previous_token_score",
    "np.diagonal without axis1/axis2: the diagonal of the first two axes, right for one head only",
    explanation="np.diagonal takes its diagonal over axes 0 and 1 unless told otherwise. On one (T, T) heatmap those are the queries and the keys, but on (heads, T, T) they are the heads and the queries: the 'diagonal' then mixes heads and the score has the wrong shape.",
    hint="np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).mean(axis=-1).",
)
def previous_token_diagonal_of_the_first_axes(weights):
    n_queries, n_keys = np.shape(weights)[-2:]
    if n_queries != n_keys or n_keys < 2:
        raise ValueError("previous_token_score needs square weights over at least 2 tokens")
    return np.diagonal(weights, offset=-1).mean(axis=-1)


@misconception(
    "sink_score",
    "weights[:, 0]: column 0 of a 2-D heatmap only, row 0 of each head once a batch axis comes first",
    explanation="On one (T_q, T_k) heatmap weights[:, 0] is the column of key 0, but on (heads, T_q, T_k) it is query 0's row of each head: the score becomes how query 0 spreads its attention. weights[..., :, 0] picks key 0 whatever comes in front.",
    hint="weights[..., :, 0].mean(axis=-1).",
)
def sink_score_column_of_2d_only(weights):
    return weights[:, 0].mean(axis=-1)


probe("sink_score", "one 2-D heatmap, 4 queries over 4 keys", _RNG.dirichlet(np.ones(4), size=4))
probe(
    "hard_attention",
    "three heads of two keys: v[best] on the first axis still runs",
    _RNG.normal(size=(3, 2, 2)),
    _RNG.normal(size=(3, 2, 2)),
    _RNG.normal(size=(3, 2, 3)),
)


@misconception(
    "induction_score",
    "the targets shifted the wrong way: the key before the earlier copy (j − 1), not after it (j + 1)",
    explanation="An induction head looks at what followed the earlier copy: after \"A B … A\" the second A attends to B, the key j + 1 after the earlier A at j. Shifting the cells to the left instead scores the token that came before the copy, which predicts nothing about what comes next.",
    hint="targets[..., :, 1:] = earlier[..., :, :-1]: the cell (i, j) of an earlier copy moves to (i, j + 1).",
)
def induction_targets_shifted_left(weights, token_ids):
    return _induction(weights, token_ids, key_before=True)
