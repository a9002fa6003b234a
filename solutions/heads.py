"""Exercise 6b: reading attention heads.

Trained heads specialise: one attends to the previous token, one parks its weight on the first
token (a "sink"), one completes patterns it has seen before (an induction head: after "A B … A"
it looks at the B that followed the earlier A). A head is read from its weights, a
(..., T_q, T_k) heatmap whose row i says where query i looks. Each score below is one number per
head, so the heads of a layer (weights (B, h, T, T) -> (B, h)) can be compared at a glance.

Attention reaches any key in one step, however far back ("distance is free", unlike an RNN, whose
state must carry a token along step by step): an induction head reads a token 1,000 positions
back as easily as the previous one. Hard attention takes the single best-scoring key instead of a
blend: the same answer when one key wins by far, but an argmax has no gradient, which is why
models use the soft version.
"""

import numpy as np

from scores import attention_scores


def most_attended_token(weights):
    """The key each query attends to most.

    Shapes: weights (..., T_q, T_k) -> (..., T_q) ints, each in 0..T_k-1.
    A tie goes to the lowest key index (a row of zeros, a query that saw no key, gives 0).
    """
    ### BEGIN SOLUTION
    ### HINT: the keys run along the last axis: np.argmax along axis=-1 (it returns the first of equal maxima).
    return np.argmax(weights, axis=-1)  # (..., T_q)
    ### END SOLUTION


def hard_attention(q, k, v):
    """Hard attention: each query takes the value of its best-scoring key, no blend.

    Shapes: q (..., L_q, d_k), k (..., L_k, d_k), v (..., L_k, d_v)
    -> (out (..., L_q, d_v), weights (..., L_q, L_k)).
    weights are one-hot: 1.0 on the key of the highest score q·k / √d_k, 0.0 elsewhere; a tie goes
    to the lowest key index. out = weights @ v, so row i of out is exactly a row of v.
    """
    ### BEGIN SOLUTION
    ### HINT: the scores are the soft version's; np.argmax along the key axis picks each query's key, and comparing np.arange(L_k) with it (keepdims) makes the one-hot weights; then weights @ v.
    scores = attention_scores(q, k)  # (..., L_q, L_k)
    best = np.argmax(scores, axis=-1)[..., None]  # (..., L_q, 1)
    weights = (np.arange(scores.shape[-1]) == best).astype(scores.dtype)  # (..., L_q, L_k), one-hot
    return weights @ v, weights  # (..., L_q, d_v)
    ### END SOLUTION


def previous_token_score(weights):
    """How much a head attends to the previous token: the mean weight of query i on key i - 1.

    Shapes: weights (..., T, T), T >= 2 -> (...) floats in [0, 1].
    The mean is over queries 1..T-1 (query 0 has no previous token); the diagonal (a query on its
    own key) does not count. Raises ValueError when the weights are not square or T < 2.
    """
    ### BEGIN SOLUTION
    ### HINT: the cells (i, i - 1) lie just below the diagonal: np.diagonal(weights, offset=-1, axis1=-2, axis2=-1) gives them, T - 1 per head; average along the last axis.
    n_queries, n_keys = np.shape(weights)[-2:]
    if n_queries != n_keys or n_keys < 2:
        raise ValueError(f"previous_token_score needs square weights over at least 2 tokens, got {n_queries} x {n_keys}")
    below = np.diagonal(weights, offset=-1, axis1=-2, axis2=-1)  # (..., T - 1): query i + 1 on key i
    return below.mean(axis=-1)  # (...)
    ### END SOLUTION


def sink_score(weights):
    """How much a head parks its attention on the first token (the BOS "sink"): the mean weight on key 0.

    Shapes: weights (..., T_q, T_k) -> (...) floats in [0, 1]; the mean is over every query.
    """
    ### BEGIN SOLUTION
    ### HINT: key 0 is column 0 of each heatmap: weights[..., :, 0], averaged over the queries.
    return weights[..., :, 0].mean(axis=-1)  # (...)
    ### END SOLUTION


def induction_score(weights, token_ids):
    """How much a head acts as an induction head: it looks at the token that followed an earlier copy of its own token.

    Shapes: weights (..., T, T), token_ids (T,) ints, or any shape that broadcasts to (..., T)
    -> (...) floats in [0, 1].
    Query i's targets are the keys j + 1 for every earlier position j < i holding its own token
    (token_ids[j] == token_ids[i]); its induction weight is the sum of its weights on those keys
    (each key once). The score is the mean induction weight over the queries whose token occurred
    earlier; a query whose token is new is left out, and when no token repeats the score is 0.0.
    """
    ### BEGIN SOLUTION
    ### HINT: same[i, j] = token_ids[i] == token_ids[j], kept only below the diagonal (j < i, np.tril with k=-1); the targets are those cells moved one key to the right (key j + 1). Average over the queries that have a target, and give 0.0 when none has.
    token_ids = np.asarray(token_ids)
    earlier = np.tril(token_ids[..., :, None] == token_ids[..., None, :], k=-1)  # (..., T, T): j < i, same token
    targets = np.zeros(earlier.shape, dtype=bool)
    targets[..., :, 1:] = earlier[..., :, :-1]  # (..., T, T): key j + 1 after an earlier copy at j
    per_query = np.sum(weights * targets, axis=-1)  # (..., T)
    repeated = earlier.any(axis=-1)  # (..., T): queries whose token occurred before
    total = np.sum(per_query * repeated, axis=-1)  # (...)
    counted = np.broadcast_to(np.sum(repeated, axis=-1), np.shape(total))  # (...)
    return np.divide(total, counted, out=np.zeros(np.shape(total)), where=counted > 0)  # (...)
    ### END SOLUTION
