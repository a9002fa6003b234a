"""Known wrong versions of the functions of linear_attention.py (instructor-only: never shipped to students)."""

import numpy as np
from linear_attention import elu_feature_map, linear_attention_masked, linear_attention_recurrent

from attnlab.misconceptions import Alternatives, Raised, misconception, probe


@misconception(
    "elu_feature_map",
    "plain elu, without the + 1",
    explanation="φ(x) = elu(x) + 1: x + 1 above zero and exp(x) below. Plain elu (x, and exp(x) - 1) is negative below zero, so a weight φ(q)·φ(k) can be negative or 0 and a row's sum can vanish: the + 1 is what makes every feature positive.",
    hint="Add 1 to elu: np.where(x > 0, x + 1, np.exp(x)).",
)
def elu_without_plus_one(x):
    return np.where(x > 0, x, np.exp(np.minimum(x, 0)) - 1)


@misconception(
    "linear_attention_masked",
    "the weights are q·k, without the feature map",
    explanation="Linear attention's weight of key j for query i is φ(q_i)·φ(k_j), with φ = elu + 1 applied to the queries and the keys. The plain dot product q_i·k_j can be negative or 0, so the rows are no weighted means and their sums can vanish.",
    hint="weights = elu_feature_map(q) @ np.swapaxes(elu_feature_map(k), -1, -2).",
)
def linear_masked_without_feature_map(q, k, v, causal=True):
    weights = q @ np.swapaxes(k, -1, -2)
    if causal:
        weights = np.tril(weights)
    with np.errstate(all="ignore"):
        return weights / weights.sum(axis=-1, keepdims=True) @ v


@misconception(
    "linear_attention_masked",
    "each row is divided by its sum over every key, then masked",
    explanation="Under the causal mask the weights above the diagonal are 0 before the rows are summed: query i's normaliser is Σ_{j<=i} φ(q_i)·φ(k_j), the z_i of the recurrence. Summing over every key first, future keys included, makes each early row too small: its weights no longer sum to 1.",
    hint="Apply np.tril first, then divide by weights.sum(axis=-1, keepdims=True).",
)
def linear_masked_normalised_before_mask(q, k, v, causal=True):
    weights = elu_feature_map(q) @ np.swapaxes(elu_feature_map(k), -1, -2)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    if causal:
        weights = np.tril(weights)
    return weights @ v



@misconception(
    "linear_attention_masked",
    "the causal mask keeps the future: np.triu, or the mask inverted, instead of np.tril",
    explanation="Under the causal mask query i reads keys 0..i, the lower triangle of the (L_q, L_k) weights with the diagonal: np.tril zeroes what lies above it. np.triu keeps the upper triangle instead (each query reads itself and every later key), and an inverted mask keeps only the strict future, so the last query reads nothing at all.",
    hint="weights = np.tril(weights) before the rows are summed: tril keeps j <= i.",
)
def linear_masked_keeps_the_future(q, k, v, causal=True):
    weights = elu_feature_map(q) @ np.swapaxes(elu_feature_map(k), -1, -2)
    if not causal:
        return weights / weights.sum(axis=-1, keepdims=True) @ v
    with np.errstate(all="ignore"):
        return Alternatives([kept / kept.sum(axis=-1, keepdims=True) @ v for kept in (np.triu(weights), np.triu(weights, 1))])


@misconception(
    "linear_attention_masked",
    "the weights normalised over the queries (axis -2), not each row over its keys",
    explanation="Row i of the weights holds query i's weight on every key, and it is each row that must sum to 1: out_i = Σ_j w_ij v_j / Σ_j w_ij, the φ(q_i)·z_i of the recurrence. Dividing by the sums along axis -2 normalises each key's column over the queries instead, so no output is a weighted mean of the values.",
    hint="Divide by weights.sum(axis=-1, keepdims=True): the keys run along the last axis.",
)
def linear_masked_normalised_over_queries(q, k, v, causal=True):
    weights = elu_feature_map(q) @ np.swapaxes(elu_feature_map(k), -1, -2)
    if causal:
        weights = np.tril(weights)
    return weights / weights.sum(axis=-2, keepdims=True) @ v



@misconception(
    "linear_attention_masked",
    "φ(k).T reverses every axis, not only the last two",
    explanation="On (L_k, d_k) features .T is right, but on (B, L_k, d_k) it is (d_k, L_k, B): the batch axis moves to the end, so φ(q) @ φ(k).T fails, or, where the sizes happen to line up, pairs one sequence's queries with another's keys.",
    hint="np.swapaxes(elu_feature_map(k), -1, -2) swaps only the token and feature axes, whatever the leading axes are.",
)
def linear_masked_full_transpose(q, k, v, causal=True):
    try:
        weights = elu_feature_map(q) @ elu_feature_map(k).T
        if causal:
            weights = np.tril(weights)
        return weights / weights.sum(axis=-1, keepdims=True) @ v
    except ValueError as error:
        return Raised(type(error).__name__)


def _state_after(q, k, v, state=None):
    """The right state after positions ``k``, ``v``, from ``state``: (S (..., d_k, d_v), z (..., d_k)),
    over the leading axes of every input, as the reference returns it."""
    features = elu_feature_map(k)
    s, z = np.swapaxes(features, -1, -2) @ v, features.sum(axis=-2)
    if state is not None:
        s, z = s + state[0], z + state[1]
    lead = np.broadcast_shapes(q.shape[:-2], s.shape[:-2], z.shape[:-1])
    return np.broadcast_to(s, lead + s.shape[-2:]).copy(), np.broadcast_to(z, lead + z.shape[-1:]).copy()


@misconception(
    "linear_attention_recurrent",
    "the state is replaced at each position, not added to",
    explanation="The state S_i = S_{i-1} + φ(k_i) v_iᵀ and the normaliser z_i = z_{i-1} + φ(k_i) are running sums over positions 0..i. Setting them to the newest token's term forgets every earlier key: each output is then v_i itself.",
    hint="state = state + φ(k_i)[..., :, None] * v_i[..., None, :], and normaliser = normaliser + φ(k_i), from zeros (or the state passed in) before the loop.",
)
def linear_recurrent_state_replaced(q, k, v, state=None):
    out = np.broadcast_to(v, np.broadcast_shapes(q.shape[:-1] + (1,), k.shape[:-1] + (1,), v.shape)).astype(np.result_type(q, k, v))
    return out, _state_after(q, k[..., -1:, :], v[..., -1:, :])


@misconception(
    "linear_attention_recurrent",
    "no division by φ(q_i)·z_i",
    explanation="φ(q_i)ᵀ S_i is the sum of the weighted values, not their mean: it must be divided by φ(q_i)·z_i, the sum of the weights, which is why the recurrence keeps the normaliser z_i = Σ_{j<=i} φ(k_j) beside the state.",
    hint="Keep z += φ(k_i) beside the state, and divide the output by np.sum(φ(q_i) * z, axis=-1, keepdims=True).",
)
def linear_recurrent_without_normaliser(q, k, v, state=None):
    weights = np.tril(elu_feature_map(q) @ np.swapaxes(elu_feature_map(k), -1, -2))
    out = weights @ v
    if state is not None:
        out = out + (elu_feature_map(q) @ state[0])
    return out, _state_after(q, k, v, state)


@misconception(
    "linear_attention_recurrent",
    "the state passed in is ignored: every call starts from zeros",
    explanation="A state passed in holds the keys and values of the positions before these ones (the state an earlier call returned): S and z start from it, not from zeros, so each output reads those earlier positions too, and the state returned holds them. Starting from zeros answers as if the sequence began here, which is why a sequence fed in pieces, or a decoder's one token at a time, goes wrong.",
    hint="S, z = state (when one is given) before the loop, copied (S = np.zeros(...) + S_given), and return (out, (S, z)) with the state after the last position.",
)
def linear_recurrent_ignores_the_state(q, k, v, state=None):
    return linear_attention_recurrent(q, k, v)


@misconception(
    "linear_attention_recurrent",
    "the quadratic form, or a state per position, not one running state",
    explanation="The values are right, but the point of the recurrent form is that it is an RNN: one d_k × d_v state and a d_k normaliser, updated position by position, whatever the length, that carries every earlier position into the next call. The (L, L) weights of the quadratic form, or a cumulative sum that keeps the state of every position (L, d_k, d_v), hold memory that grows with L.",
    hint="Loop over the positions: state += φ(k_i)[:, None] * v_i[None, :], z += φ(k_i), out[i] = φ(q_i) @ state / (φ(q_i) @ z), from the state passed in. Keep no array with a length axis but the inputs and the answer.",
    holds_too_much=True,
)
def linear_recurrent_holds_every_state(q, k, v, state=None):
    if state is None:
        return linear_attention_masked(q, k, v, causal=True), _state_after(q, k, v)
    phi_q = elu_feature_map(q)
    weights = np.tril(phi_q @ np.swapaxes(elu_feature_map(k), -1, -2))  # (..., L, L)
    numerators = weights @ v + phi_q @ state[0]
    return numerators / (weights.sum(axis=-1, keepdims=True) + phi_q @ state[1][..., None]), _state_after(q, k, v, state)



@misconception(
    "linear_attention_recurrent",
    "each output read before its own position is added: query i sees keys 0..i-1",
    explanation="Causal attention lets query i read keys 0..i, itself included: at position i the state takes φ(k_i) v_iᵀ and the normaliser φ(k_i) first, and out_i is read from the state after that. Reading out_i before the update leaves its own key out, and the first position of a sequence reads an empty state (0 / 0).",
    hint="In the loop: state += φ(k_i)[..., :, None] * v_i[..., None, :]; z += φ(k_i); then out_i = φ(q_i) @ state / (φ(q_i) · z).",
)
def linear_recurrent_reads_before_adding(q, k, v, state=None):
    phi_q = elu_feature_map(q)
    weights = np.tril(phi_q @ np.swapaxes(elu_feature_map(k), -1, -2), -1)  # keys 0..i-1
    numerators, sums = weights @ v, weights.sum(axis=-1, keepdims=True)
    if state is not None:
        numerators, sums = numerators + phi_q @ state[0], sums + phi_q @ state[1][..., None]
    with np.errstate(all="ignore"):
        unguarded = numerators / sums
    guarded = np.where(sums != 0, unguarded, 0.0)  # a student who guards the empty first state
    after = _state_after(q, k, v, state)
    return Alternatives([(unguarded, after), (guarded, after)])



@misconception(
    "linear_attention_recurrent",
    "the state passed in is added to in place: the caller's S and z change",
    explanation="The state passed in belongs to the caller, who may feed it again (to try another continuation, or after a rejected draft): a call starts from a copy of it, S = np.zeros(...) + S_given. Adding into it (S += φ(k_i) v_iᵀ, or np.add(..., out=S)) writes every new position into the caller's arrays, and the next call from that state counts them twice.",
    hint="Start from new arrays: S = np.zeros(lead + (d_k, d_v)) + state[0] and z = np.zeros(lead + (d_k,)) + state[1], then S = S + ... in the loop.",
    changes_its_arguments=True,
)
def linear_recurrent_changes_the_given_state(q, k, v, state=None):
    out, (s, z) = linear_attention_recurrent(q, k, v, state)
    if state is not None:
        for given, after in zip(state, (s, z)):
            if after.shape != given.shape:  # a state shared by more sequences: S += ... cannot hold them
                raise ValueError(f"non-broadcastable output operand with shape {given.shape}")
            given[...] = after
    return out, (s, z)


# Diagnostic probes: fixed inputs, harmless to show a student, on which every entry above differs
# from the reference and from each other. Queries and keys have features on both sides of zero.
_RNG = np.random.default_rng(20)
probe("elu_feature_map", "values on both sides of zero", np.array([[-2.0, -0.5, 0.0], [0.5, 1.0, 3.0]]))
probe("linear_attention_masked", "causal, 4 tokens, d_k = 3 != d_v = 2", _RNG.normal(size=(4, 3)), _RNG.normal(size=(4, 3)), _RNG.normal(size=(4, 2)))
probe("linear_attention_masked", "not causal, L_q = 2 != L_k = 3", _RNG.normal(size=(2, 3)), _RNG.normal(size=(3, 3)), _RNG.normal(size=(3, 2)), causal=False)
_WHOLE = np.random.default_rng(21)  # its own generator: the probes after it keep their inputs
probe("linear_attention_masked", "B = L_k = d_k = 2, causal: a transpose of every axis still runs", _WHOLE.normal(size=(2, 2, 2)), _WHOLE.normal(size=(2, 2, 2)), _WHOLE.normal(size=(2, 2, 3)))
probe("linear_attention_recurrent", "4 tokens, d_k = 3 != d_v = 2", _RNG.normal(size=(4, 3)), _RNG.normal(size=(4, 3)), _RNG.normal(size=(4, 2)))
probe("linear_attention_recurrent", "two sequences of 3 tokens", _RNG.normal(size=(2, 3, 2)), _RNG.normal(size=(2, 3, 2)), _RNG.normal(size=(2, 3, 3)))
probe(
    "linear_attention_recurrent",
    "3 tokens after a state of 2 earlier ones",
    _RNG.normal(size=(3, 2)),
    _RNG.normal(size=(3, 2)),
    _RNG.normal(size=(3, 3)),
    state=(np.abs(_RNG.normal(size=(2, 3))) + 0.5, np.abs(_RNG.normal(size=2)) + 1.0),
)
