"""Exercise 8b: linear attention (Katharopoulos et al., 2020), a transformer that is an RNN.

Replace the softmax's exp(q·k) by a product of positive features φ(q)·φ(k), with
φ(x) = elu(x) + 1. The weights are still positive and each row is normalised by its sum, but
now the product can be regrouped: φ(q_i)ᵀ Σ_j φ(k_j) v_jᵀ. Under a causal mask that sum is a
running d_k × d_v state S_i = S_{i-1} + φ(k_i) v_iᵀ, with a running normaliser
z_i = z_{i-1} + φ(k_i), and out_i = φ(q_i)ᵀ S_i / φ(q_i)ᵀ z_i. The quadratic form costs
L² · d multiply-adds and an L × L matrix; the recurrent form L · d_k · d_v and a state whose
size does not grow with L: the two cross at L ≈ d.
"""

import numpy as np


def elu_feature_map(x):
    """The feature map φ(x) = elu(x) + 1, elementwise: x + 1 where x > 0, exp(x) elsewhere.

    Shapes: x (...) -> (...), the same shape and dtype; every value is > 0 (a true exp for
    x <= 0, so a large negative x gives a tiny positive value, never 0 or below).

    >>> elu_feature_map(np.array([-1.0, 0.0, 2.0]))
    array([0.36787944, 1.        , 3.        ])
    """
    ### BEGIN SOLUTION
    ### HINT: np.where(x > 0, x + 1, np.exp(...)); take exp of np.minimum(x, 0) so the branch np.where discards cannot overflow.
    return np.where(x > 0, x + 1, np.exp(np.minimum(x, 0)))  # (...)
    ### END SOLUTION


def linear_attention_masked(q, k, v, causal=True):
    """Linear attention in its quadratic form: the weights φ(Q) φ(K)ᵀ, masked, each row normalised by its sum.

    Shapes: q (..., L_q, d_k), k (..., L_k, d_k), v (..., L_k, d_v) -> out (..., L_q, d_v).
    Weight (i, j) is φ(q_i)·φ(k_j) with φ = elu_feature_map, divided by the sum of its row; with
    ``causal=True`` (L_q == L_k) the weights above the diagonal are 0 before the rows are summed,
    so query i reads keys 0..i. No scaling by √d_k and no softmax: φ makes every weight positive.
    """
    ### BEGIN SOLUTION
    ### HINT: weights = φ(q) @ swapaxes(φ(k), -1, -2) is (..., L_q, L_k); np.tril zeroes what lies above the diagonal of the last two axes; divide by weights.sum(axis=-1, keepdims=True), then @ v.
    weights = elu_feature_map(q) @ np.swapaxes(elu_feature_map(k), -1, -2)  # (..., L_q, L_k), all > 0
    if causal:
        weights = np.tril(weights)  # (..., L_q, L_k): key j > i gets 0
    weights = weights / weights.sum(axis=-1, keepdims=True)  # (..., L_q, L_k), rows sum to 1
    return weights @ v  # (..., L_q, d_v)
    ### END SOLUTION


def linear_attention_recurrent(q, k, v, state=None):
    """Causal linear attention as an RNN: one position at a time, a d_k × d_v state and a d_k normaliser.

    Shapes: q (..., L, d_k), k (..., L, d_k), v (..., L, d_v), leading axes that broadcast, and
    state None or (S (..., d_k, d_v), z (..., d_k)) with leading axes that broadcast to theirs
    -> (out (..., L, d_v), (S, z)).
    At position i: S += φ(k_i) v_iᵀ, z += φ(k_i), out_i = φ(q_i) S / (φ(q_i) · z). From
    ``state=None`` S and z start at zeros and out equals linear_attention_masked(q, k, v, causal=True);
    a state passed in holds the keys and values of positions before these (the state a call
    returned), so a long sequence can be fed in pieces, or one token at a time as a decoder does.
    The state returned is the one after the last position; the state passed in is left unchanged.
    It never holds an (L, L) array, nor a state per position (L, d_k, d_v): O(L · d_k · d_v)
    time, memory for one state.
    """
    ### BEGIN SOLUTION
    ### HINT: lead = np.broadcast_shapes of the three inputs' leading axes; start S = np.zeros(lead + (d_k, d_v)) plus the state's S, never adding into the array passed in; the outer product of φ(k_i) (..., d_k) and v_i (..., d_v) is φk[..., :, None] * v_i[..., None, :]. φ of all the keys and queries at once is as large as k and q: take it once, before the loop.
    length, d_k, d_v = q.shape[-2], q.shape[-1], v.shape[-1]
    past, past_normaliser = (np.zeros((d_k, d_v)), np.zeros(d_k)) if state is None else state  # what came before these positions
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])  # the leading axes of all three
    state = np.zeros(lead + (d_k, d_v)) + past  # (..., d_k, d_v): Σ_{j<=i} φ(k_j) v_jᵀ, a new array
    normaliser = np.zeros(lead + (d_k,)) + past_normaliser  # (..., d_k): Σ_{j<=i} φ(k_j)
    out = np.empty(lead + (length, d_v))  # (..., L, d_v)
    keys, queries = elu_feature_map(k), elu_feature_map(q)  # (..., L, d_k): φ is elementwise
    for i in range(length):
        key, query = keys[..., i, :], queries[..., i, :]  # (..., d_k)
        state = state + key[..., :, None] * v[..., i, None, :]  # (..., d_k, d_v)
        normaliser = normaliser + key  # (..., d_k)
        numerator = (query[..., None, :] @ state)[..., 0, :]  # (..., d_v)
        out[..., i, :] = numerator / np.sum(query * normaliser, axis=-1, keepdims=True)  # (..., d_v)
    return out, (state, normaliser)
    ### END SOLUTION
