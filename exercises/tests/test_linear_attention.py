"""Public tests for linear_attention.py: the lesson's worked examples, every argument the hidden tests
use (causal or not, inputs near ±1e4, float32, leading axes) and the memory the recurrence may hold."""

import tracemalloc

import numpy as np
from linear_attention import elu_feature_map, linear_attention_masked, linear_attention_recurrent

from attnlab.check.probe_book import probe_tests
from attnlab.expect import expect_close, expect_finite, expect_shape


def phi(x):
    """elu(x) + 1, written out: the oracle's own feature map."""
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def plain_linear_attention(q, k, v, causal=True):
    """Linear attention written out as loops, the oracle: row i is Σ_j w_ij v_j / Σ_j w_ij with
    w_ij = φ(q_i)·φ(k_j), over keys j <= i when causal."""
    out = np.zeros(q.shape[:-1] + v.shape[-1:])
    for i in range(q.shape[-2]):
        keys = slice(0, i + 1) if causal else slice(None)
        weights = np.sum(phi(q[..., i : i + 1, :]) * phi(k[..., keys, :]), axis=-1)  # (..., j)
        out[..., i, :] = np.sum(weights[..., None] * v[..., keys, :], axis=-2) / weights.sum(axis=-1)[..., None]
    return out


def peak_of(call):
    """What ``call()`` returns and the most memory it held beyond what existed before (bytes)."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def inputs(lead, n_q, n_k, d_k, d_v, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal(lead + (n_q, d_k)).astype(dtype),
        rng.standard_normal(lead + (n_k, d_k)).astype(dtype),
        rng.standard_normal(lead + (n_k, d_v)).astype(dtype),
    )


# ---------------------------------------------------------------- the feature map


def test_feature_map_worked_example():
    """elu_feature_map: [-1, 0, 2] gives [e^-1, 1, 3]"""
    expect_close(elu_feature_map(np.array([-1.0, 0.0, 2.0])), [np.exp(-1.0), 1.0, 3.0], "elu_feature_map([-1, 0, 2])")


def test_feature_map_batched():
    """elu_feature_map: keeps the shape of (2, 3, 4, 5) float32 and (2, 3, 4) float64 inputs, x + 1 above zero and exp(x) below"""
    rng = np.random.default_rng(1)
    for x in (rng.standard_normal((2, 3, 4, 5)).astype(np.float32) * 2, rng.standard_normal((2, 3, 4)) * 2):
        got = elu_feature_map(x)
        expect_shape(got, x.shape, f"elu_feature_map(x) of shape {x.shape}", "the shape of x")
        expect_close(got, phi(x), f"elu_feature_map(x) in {x.dtype}", x)


def test_feature_map_large_inputs():
    """elu_feature_map: 1e4 gives 10001 and -1e4 gives 0, both finite"""
    got = elu_feature_map(np.array([[1e4, 3.0], [-1e4, -3.0]]))
    expect_finite(got, "elu_feature_map at ±1e4")
    expect_close(got, [[10001.0, 4.0], [0.0, np.exp(-3.0)]], "elu_feature_map at ±1e4")


# ---------------------------------------------------------------- the quadratic form


def test_masked_worked_example():
    """linear_attention_masked: two tokens, causal: row 0 is v_0, row 1 mixes v_0 and v_1 by φ(q_1)·φ(k_j)"""
    q = np.array([[0.0, 0.0], [1.0, -1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0]])
    v = np.array([[1.0, 0.0], [0.0, 1.0]])
    # φ(q_1) = [2, e^-1], φ(k_0) = [2, 1], φ(k_1) = [1, 2]: weights 4 + e^-1 and 2 + 2e^-1.
    w0, w1 = 4 + np.exp(-1.0), 2 + 2 * np.exp(-1.0)
    expected = [[1.0, 0.0], [w0 / (w0 + w1), w1 / (w0 + w1)]]
    expect_close(linear_attention_masked(q, k, v, causal=True), expected, "linear_attention_masked (two tokens)")


def test_masked_causal_batched():
    """linear_attention_masked: causal, (2, 3, 5, 4) queries and keys, d_v = 3: the loops' answer"""
    q, k, v = inputs((2, 3), 5, 5, 4, 3, seed=2)
    got = linear_attention_masked(q, k, v)
    expect_shape(got, (2, 3, 5, 3), "linear_attention_masked(q, k, v)", "(..., L_q, d_v)")
    expect_close(got, plain_linear_attention(q, k, v), "linear_attention_masked(q, k, v)", q)


def test_masked_not_causal_other_lengths_float32():
    """linear_attention_masked: causal=False, L_q = 2 queries against L_k = 6 keys, a batch axis, float32"""
    q, k, v = inputs((3,), 2, 6, 4, 5, seed=3, dtype=np.float32)
    got = linear_attention_masked(q, k, v, causal=False)
    expect_shape(got, (3, 2, 5), "linear_attention_masked(q, k, v, causal=False)", "(..., L_q, d_v)")
    expect_close(got, plain_linear_attention(q, k, v, causal=False), "linear_attention_masked(q, k, v, causal=False)", q)


def test_masked_causal_single_sequence_float32():
    """linear_attention_masked: causal, one sequence (4, 3) in float32; the first row is v_0"""
    q, k, v = inputs((), 4, 4, 3, 2, seed=4, dtype=np.float32)
    got = linear_attention_masked(q, k, v)
    expect_close(got, plain_linear_attention(q, k, v), "linear_attention_masked(q, k, v)", q)
    expect_close(got[0], v[0], "row 0 (it sees only key 0)", q)


def test_masked_not_causal_heads():
    """linear_attention_masked: causal=False with batch and head axes (2, 2, 3, 4)"""
    q, k, v = inputs((2, 2), 3, 4, 4, 2, seed=5)
    expect_close(linear_attention_masked(q, k, v, causal=False), plain_linear_attention(q, k, v, causal=False), "linear_attention_masked(causal=False)", q)


def test_masked_not_causal_single_sequence():
    """linear_attention_masked: causal=False, one sequence (3, 2) against (5, 2)"""
    q, k, v = inputs((), 3, 5, 2, 3, seed=9)
    expect_close(linear_attention_masked(q, k, v, causal=False), plain_linear_attention(q, k, v, causal=False), "linear_attention_masked(causal=False)", q)


# ---------------------------------------------------------------- the recurrent form


def test_recurrent_worked_example():
    """linear_attention_recurrent: the two tokens of the quadratic form's example, the same answer"""
    q = np.array([[0.0, 0.0], [1.0, -1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0]])
    v = np.array([[1.0, 0.0], [0.0, 1.0]])
    w0, w1 = 4 + np.exp(-1.0), 2 + 2 * np.exp(-1.0)
    out, (s, z) = linear_attention_recurrent(q, k, v)
    expect_close(out, [[1.0, 0.0], [w0 / (w0 + w1), w1 / (w0 + w1)]], "linear_attention_recurrent (two tokens)")
    # the state after both: S = φ(k_0) v_0ᵀ + φ(k_1) v_1ᵀ = [[2, 1], [1, 2]] (φ(0) = 1, φ(1) = 2), z = [3, 3]
    expect_close(s, [[2.0, 1.0], [1.0, 2.0]], "the S linear_attention_recurrent returns (two tokens)")
    expect_close(z, [3.0, 3.0], "the z linear_attention_recurrent returns (two tokens)")


def test_recurrent_batched_float32():
    """linear_attention_recurrent: (2, 3, 5, 4) float32 queries and keys, d_v = 3: the loops' answer"""
    q, k, v = inputs((2, 3), 5, 5, 4, 3, seed=6, dtype=np.float32)
    got, _state = linear_attention_recurrent(q, k, v)
    expect_shape(got, (2, 3, 5, 3), "linear_attention_recurrent(q, k, v)", "(..., L, d_v)")
    expect_close(got, plain_linear_attention(q, k, v), "linear_attention_recurrent(q, k, v)", q)


def test_recurrent_one_batch_axis():
    """linear_attention_recurrent: a batch axis (3, 4, 2), d_v = 5"""
    q, k, v = inputs((3,), 4, 4, 2, 5, seed=7)
    expect_close(linear_attention_recurrent(q, k, v)[0], plain_linear_attention(q, k, v), "linear_attention_recurrent(q, k, v)", q)


def test_recurrent_leading_axes_broadcast():
    """linear_attention_recurrent: q (2, 1, 1, 3, 2), k (1, 3, 1, 3, 2) and v (1, 1, 2, 3, 4) give (2, 3, 2, 3, 4)"""
    rng = np.random.default_rng(11)
    q, k, v = rng.standard_normal((2, 1, 1, 3, 2)), rng.standard_normal((1, 3, 1, 3, 2)), rng.standard_normal((1, 1, 2, 3, 4))
    got, _state = linear_attention_recurrent(q, k, v)
    expect_shape(got, (2, 3, 2, 3, 4), "linear_attention_recurrent(q, k, v)", "(..., L, d_v)")
    lead = (2, 3, 2)  # every input brings one leading axis of its own
    expected = plain_linear_attention(*(np.broadcast_to(x, lead + x.shape[-2:]) for x in (q, k, v)))
    expect_close(got, expected, "linear_attention_recurrent with broadcast leading axes", q)


def test_recurrent_large_inputs():
    """linear_attention_recurrent: queries and keys near ±50, one sequence and with heads: finite and right"""
    for lead in ((), (2, 2)):
        q, k, v = inputs(lead, 5, 5, 3, 2, seed=8)
        q, k = q * 50, k * 50
        q[..., 0], k[..., 0] = np.abs(q[..., 0]) + 1, np.abs(k[..., 0]) + 1
        got, _state = linear_attention_recurrent(q, k, v)
        expect_finite(got, "linear_attention_recurrent with q and k near ±50")
        expect_close(got, plain_linear_attention(q, k, v), "linear_attention_recurrent with q and k near ±50", q)


def test_recurrent_keeps_one_state():
    """linear_attention_recurrent: at L = 1024, d_k = d_v = 48 it holds far less than the (L, L) weights (8 MiB) or a state per position (18 MiB)"""
    q, k, v = inputs((), 1024, 1024, 48, 48, seed=10)
    (got, _state), peak = peak_of(lambda: linear_attention_recurrent(q, k, v))
    budget = 2 * q.nbytes + 2 * v.nbytes + (2 << 20)
    assert peak <= budget, (
        f"linear_attention_recurrent held {peak / 2**20:.1f} MiB beyond its inputs at L = 1024, d_k = d_v = 48; the "
        f"recurrence needs {budget / 2**20:.1f} MiB at most. The (L, L) weights are 8 MiB and a state per position 18 MiB: "
        "keep one running (d_k, d_v) state and one (d_k,) normaliser"
    )
    expect_close(got, linear_attention_masked(q, k, v), "linear_attention_recurrent at L = 1024", q)


def test_recurrent_continues_from_a_state():
    """linear_attention_recurrent: a sequence fed in two pieces (the second from the first's state) or one token at a time gives the whole sequence's answer and state"""
    q, k, v = inputs((2,), 7, 7, 3, 4, seed=12)
    whole, (s, z) = linear_attention_recurrent(q, k, v)
    first, state = linear_attention_recurrent(q[..., :3, :], k[..., :3, :], v[..., :3, :])
    given = tuple(part.copy() for part in state)
    second, (s2, z2) = linear_attention_recurrent(q[..., 3:, :], k[..., 3:, :], v[..., 3:, :], state=state)
    expect_close(np.concatenate([first, second], axis=-2), plain_linear_attention(q, k, v), "the two pieces' outputs, joined", q)
    expect_close(s2, np.einsum("...ld,...le->...de", phi(k), v), "the S after the second piece (Σ over all 7 positions of φ(k_j) v_jᵀ)", q)
    expect_close(z2, phi(k).sum(axis=-2), "the z after the second piece (Σ over all 7 positions of φ(k_j))", q)
    expect_close(state[0], given[0], "the state passed in, after the call (it must be left unchanged: copy it before adding to it)", q)
    state, steps = None, []
    for i in range(7):  # as a decoder: one token at a time
        out, state = linear_attention_recurrent(q[..., i : i + 1, :], k[..., i : i + 1, :], v[..., i : i + 1, :], state=state)
        steps.append(out)
    expect_close(np.concatenate(steps, axis=-2), whole, "one token at a time, each from the last one's state", q)


def test_recurrent_continues_from_a_state_shared_by_every_sequence():
    """linear_attention_recurrent: a state without leading axes, (d_k, d_v) and (d_k,), is every sequence's past (it broadcasts)"""
    rng = np.random.default_rng(13)
    k_past, v_past = rng.standard_normal((2, 3)), rng.standard_normal((2, 4))  # two earlier positions, one for all
    q, k, v = inputs((2,), 5, 5, 3, 4, seed=14)
    state = (phi(k_past).T @ v_past, phi(k_past).sum(axis=0))  # (3, 4), (3,)
    out, (s, z) = linear_attention_recurrent(q, k, v, state=state)
    expect_shape(out, (2, 5, 4), "linear_attention_recurrent(q, k, v, state) with a (3, 4) state", "(..., L, d_v)")
    joined = [np.concatenate([np.broadcast_to(past, (2,) + past.shape), now], axis=-2) for past, now in ((k_past, k), (v_past, v))]
    q_joined = np.concatenate([np.zeros((2, 2, 3)), q], axis=-2)  # the earlier queries' rows are dropped below
    expect_close(out, plain_linear_attention(q_joined, *joined)[..., 2:, :], "the outputs after a shared state", q)
    expect_shape(s, (2, 3, 4), "the S returned after a shared state", "(..., d_k, d_v)")
    expect_close(z, phi(joined[0]).sum(axis=-2), "the z returned after a shared state", q)


# The course's diagnostic probes (probes.json): fixed calls, each with the expected answer and the
# answers of the mistakes students make; a wrong answer here names the mistake it looks like.
test_diagnostic_probes = probe_tests(__file__, "linear_attention")
