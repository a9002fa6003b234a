"""Known wrong versions of attention_scores, and of the other scores: cosine, QK-norm, soft-capping, additive."""

import numpy as np

from attnlab.misconceptions import Alternatives, Raised, misconception, probe


@misconception(
    "attention_scores",
    "no 1/√d_k scale",
    explanation="A dot product of d_k unit-variance terms has variance d_k; without the 1/√d_k scale the softmax saturates as heads get wider (almost one-hot at d_k = 256) and its gradients vanish.",
    hint="Divide q kᵀ by np.sqrt(d_k), with d_k = q.shape[-1].",
)
def scores_no_scale(q, k):
    return q @ np.swapaxes(k, -1, -2)


@misconception(
    "attention_scores",
    "scaled by 1/d_k instead of 1/√d_k",
    explanation="Dividing by d_k over-corrects: the scores shrink as the head widens and the softmax flattens towards uniform. The variance argument asks for the square root.",
    hint="Use np.sqrt(d_k), not d_k.",
)
def scores_scaled_by_d_k(q, k):
    return q @ np.swapaxes(k, -1, -2) / q.shape[-1]


@misconception(
    "attention_scores",
    "the scale is read off another axis than d_k (the number of keys or queries, the batch)",
    explanation="d_k is the width of the vectors being dotted, the last axis of q and k. k.shape[-2] is the number of keys, q.shape[-2] the number of queries, and shape[0] the batch (or the tokens of a 2-D array): none says anything about the variance of q·k.",
    hint="d_k = q.shape[-1].",
)
def scores_scaled_by_key_count(q, k):
    raw = q @ np.swapaxes(k, -1, -2)
    return Alternatives([raw / np.sqrt(size) for size in (k.shape[-2], q.shape[-2], q.shape[0], k.shape[0])])


@misconception(
    "attention_scores",
    "d_k ** 1/2 is (d_k ** 1) / 2, not the square root",
    explanation="In Python ** binds tighter than /, so d_k ** 1/2 is d_k / 2: a scale computed that way divides the scores by d_k / 2 (equal to √d_k at d_k = 4 only), and written inline, x / d_k ** 1/2 is x / d_k / 2.",
    hint="np.sqrt(d_k), or d_k ** 0.5, or d_k ** (1 / 2).",
)
def scores_power_precedence(q, k):
    d_k = q.shape[-1]
    raw = q @ np.swapaxes(k, -1, -2)
    scale = d_k ** 1/2  # the mistake itself
    return Alternatives([raw / scale, raw / d_k ** 1 / 2])


@misconception(
    "attention_scores",
    "multiplied by √d_k instead of divided",
    explanation="The scale brings the variance of q·k (d_k) back to 1: it divides by √d_k. Multiplying makes the variance d_k² and the softmax saturates all the sooner.",
    hint="q kᵀ / np.sqrt(d_k).",
)
def scores_multiplied_by_sqrt(q, k):
    return q @ np.swapaxes(k, -1, -2) * np.sqrt(q.shape[-1])


@misconception(
    "attention_scores",
    "keys times queries (k qᵀ) instead of q kᵀ",
    explanation="Cell (i, j) of the scores is query i dotted with key j, so the queries index the rows: q kᵀ has shape (L_q, L_k). k qᵀ is its transpose, (L_k, L_q).",
    hint="q @ np.swapaxes(k, -1, -2): queries on the left.",
)
def scores_keys_times_queries(q, k):
    return k @ np.swapaxes(q, -1, -2) / np.sqrt(q.shape[-1])


@misconception(
    "attention_scores",
    "k.T reverses every axis, not only the last two",
    explanation="On a 2-D array k.T swaps tokens and features, but on (B, L_k, d_k) it gives (d_k, L_k, B): the batch axis moves to the end, and the product fails or mixes sequences.",
    hint="Swap only the last two axes: np.swapaxes(k, -1, -2) (or k.transpose(..., -1, -2) in torch).",
)
def scores_full_transpose(q, k):
    # Written with @, or with np.dot (the textbook's dot(Q, Kᵀ)), which on a batch pairs every
    # query with every sequence's keys: the same mistake breaks the shapes two ways.
    outputs = []
    for product in (np.matmul, np.dot):
        try:
            outputs.append(product(q, k.T) / np.sqrt(q.shape[-1]))
        except ValueError as error:
            outputs.append(Raised(type(error).__name__))
    return Alternatives(outputs)


_Q = np.array([[1.0, 0.0, 2.0, -1.0], [0.5, 1.5, -0.5, 1.0], [2.0, -1.0, 0.0, 0.5]])  # (L_q=3, d_k=4)
_K = np.array([[1.0, 1.0, 0.0, 0.0], [0.0, 2.0, 1.0, -1.0], [1.5, 0.0, -1.0, 2.0], [-1.0, 0.5, 0.5, 1.0], [0.0, 0.0, 3.0, 1.0]])  # (L_k=5, d_k=4)
probe("attention_scores", "L_q, L_k and d_k all different", _Q, _K)
probe("attention_scores", "a batch of two, B != d_k", np.stack([_Q, -_Q]), np.stack([_K, 2 * _K]))
probe("attention_scores", "d_k = 2, where d_k / 2 and √d_k differ", _Q[:, :2], _K[:, 1:3])
probe("attention_scores", "B = L_k = d_k = 2: keys transposed whole still line up", np.stack([_Q[:, :2], -_Q[:, 2:]]), np.stack([_K[:2, :2], _K[1:3, 2:]]))


# ---------------------------------------------------------------- the other scores (issue 39)


def _unit(x, axis=-1):
    return x / np.maximum(np.linalg.norm(x, axis=axis, keepdims=True), 1e-8)


def _dots(q, k):
    return q @ np.swapaxes(k, -1, -2)


@misconception(
    "cosine_scores",
    "only the queries are normalised, not the keys",
    explanation="A cosine divides by both lengths: (q · k) / (‖q‖ ‖k‖). Normalising only the queries leaves the keys' lengths in the scores, so a long key wins whatever its direction, and the scores are no longer bounded by ±1/temperature.",
    hint="Divide k by its norm along the last axis too, before the product.",
)
def cosine_keys_not_normalised(q, k, temperature):
    return Alternatives([_dots(_unit(q), k) / temperature, _dots(q, _unit(k)) / temperature])


@misconception(
    "cosine_scores",
    "multiplied by the temperature instead of divided",
    explanation="The temperature τ divides the cosines: a small τ (0.05 in contrastive models) stretches them from [−1, 1] to [−20, 20] so that the softmax can be sharp. Multiplying squeezes them instead, and the weights stay almost uniform.",
    hint="cosines / temperature.",
)
def cosine_times_temperature(q, k, temperature):
    return _dots(_unit(q), _unit(k)) * temperature


@misconception(
    "cosine_scores",
    "divided by √d as well, as attention_scores does",
    explanation="The 1/√d of dot-product attention corrects the variance of a sum of d products. A cosine is already bounded in [−1, 1] whatever d is: the temperature alone sets its scale, and an extra 1/√d flattens the weights of wide heads.",
    hint="Normalise q and k and divide by the temperature only.",
)
def cosine_scaled_by_sqrt_d(q, k, temperature):
    return _dots(_unit(q), _unit(k)) / np.sqrt(q.shape[-1]) / temperature


@misconception(
    "cosine_scores",
    "normalised over the tokens (axis −2) instead of the features",
    explanation="Each query and each key is a vector along the last axis (its features); its length is the norm over that axis. A norm over axis −2 mixes the tokens and divides each feature column instead.",
    hint="np.linalg.norm(x, axis=-1, keepdims=True).",
)
def cosine_normalised_over_tokens(q, k, temperature):
    return _dots(_unit(q, axis=-2), _unit(k, axis=-2)) / temperature


def _rms_norm(x, gain, eps):
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps) * gain


@misconception(
    "qk_norm_scores",
    "the L2 norm instead of the RMS",
    explanation="RMSNorm divides by the root of the *mean* of the squares, √(Σx²/d + eps): a normalised vector has entries of size about 1 and length √d. Dividing by the length √(Σx²) makes it √d times smaller, and the scores d times smaller.",
    hint="np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps): the mean, not the sum.",
)
def qk_norm_l2_instead_of_rms(q, k, gain_q, gain_k, eps=1e-6):
    def l2(x, gain):
        return x / np.sqrt(np.sum(x**2, axis=-1, keepdims=True) + eps) * gain

    return _dots(l2(q, gain_q), l2(k, gain_k)) / np.sqrt(q.shape[-1])


@misconception(
    "qk_norm_scores",
    "no 1/√d after the norm",
    explanation="QK-norm replaces nothing in the attention itself: after the norm the entries of q and k are of size about 1, their dot product has variance d, and the 1/√d scale is still what keeps the softmax from saturating as heads widen.",
    hint="rms_norm(q, gain_q) @ rms_norm(k, gain_k)ᵀ / np.sqrt(d).",
)
def qk_norm_no_scale(q, k, gain_q, gain_k, eps=1e-6):
    return _dots(_rms_norm(q, gain_q, eps), _rms_norm(k, gain_k, eps))


@misconception(
    "qk_norm_scores",
    "eps added outside the square root",
    explanation="RMSNorm (and the QK-norm of recent models) adds eps to the mean of the squares, inside the root: √(mean(x²) + eps). √(mean(x²)) + eps is another function, and it differs wherever mean(x²) is not far above eps.",
    hint="np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps).",
)
def qk_norm_eps_outside_the_root(q, k, gain_q, gain_k, eps=1e-6):
    def norm(x, gain):
        return x / (np.sqrt(np.mean(x**2, axis=-1, keepdims=True)) + eps) * gain

    return _dots(norm(q, gain_q), norm(k, gain_k)) / np.sqrt(q.shape[-1])


@misconception(
    "softcap",
    "a hard clip to ±cap instead of cap · tanh(scores / cap)",
    explanation="Soft-capping is smooth: cap · tanh(scores / cap) is close to the scores where they are small and bends towards ±cap, so every score keeps a gradient. np.clip is flat beyond ±cap (no gradient at all there) and changes nothing below it.",
    hint="cap * np.tanh(scores / cap).",
)
def softcap_clip(scores, cap):
    return np.clip(scores, -cap, cap)


@misconception(
    "softcap",
    "cap · tanh(scores): the scores are not divided by cap first",
    explanation="Dividing by cap inside the tanh keeps small scores unchanged (tanh(x) ≈ x near 0, times cap). cap · tanh(scores) multiplies every small score by cap and saturates as soon as |score| passes 1, whatever the cap.",
    hint="cap * np.tanh(scores / cap): divide inside, multiply outside.",
)
def softcap_no_inner_division(scores, cap):
    return cap * np.tanh(scores)


@misconception(
    "softcap",
    "tanh(scores / cap) without multiplying by cap",
    explanation="tanh(scores / cap) lies in (−1, 1): it shrinks every score by cap and caps at ±1, not ±cap. Multiplying by cap brings the small scores back to themselves and the bound to ±cap.",
    hint="cap * np.tanh(scores / cap).",
)
def softcap_no_outer_cap(scores, cap):
    return np.tanh(scores / cap)


def _pairs(q, k, w_q, w_k):
    return (q @ w_q)[..., :, None, :] + (k @ w_k)[..., None, :, :]  # (..., L_q, L_k, d_a)


@misconception(
    "additive_scores",
    "no tanh: v · (q W_q + k W_k)",
    explanation="The tanh is what makes additive attention a network: without it v · (q W_q + k W_k) = v · q W_q + v · k W_k splits into a query part and a key part, and the query part is the same for every key, so the softmax ignores it: each query ranks the keys the same way.",
    hint="np.tanh(q W_q + k W_k) @ v, the tanh before the product with v.",
)
def additive_no_tanh(q, k, w_q, w_k, v):
    return _pairs(q, k, w_q, w_k) @ v


@misconception(
    "additive_scores",
    "the tanh after the product with v",
    explanation="Bahdanau's score is vᵀ tanh(W_q q + W_k k): the tanh acts on each of the d_a hidden units, and v weighs them. tanh(v · (q W_q + k W_k)) squashes a linear score instead, which, like a score without tanh, ranks the keys the same way for every query.",
    hint="np.tanh(...) first, then @ v.",
)
def additive_tanh_outside(q, k, w_q, w_k, v):
    return np.tanh(_pairs(q, k, w_q, w_k) @ v)


@misconception(
    "additive_scores",
    "keys on the rows: (L_k, L_q) instead of (L_q, L_k)",
    explanation="Cell (i, j) scores query i against key j, so the queries index the rows, as in q kᵀ. Broadcasting the keys as (L_k, 1, d_a) against the queries as (1, L_q, d_a) gives the transpose.",
    hint="q W_q as (..., L_q, 1, d_a) plus k W_k as (..., 1, L_k, d_a).",
)
def additive_keys_on_rows(q, k, w_q, w_k, v):
    return np.tanh((k @ w_k)[..., :, None, :] + (q @ w_q)[..., None, :, :]) @ v


@misconception(
    "cosine_scores",
    "the norms not floored: a zero query or key gives nan",
    explanation="A zero vector has no direction: its norm is 0, and q / ‖q‖ is 0 / 0 = nan, which then spreads to the scores and through the softmax to every weight of its row. Flooring each norm at 1e-8 makes a zero vector's cosines 0, and changes nothing for any other vector.",
    hint="Divide by np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-8).",
)
def cosine_norms_not_floored(q, k, temperature):
    with np.errstate(all="ignore"):
        unit_q = q / np.linalg.norm(q, axis=-1, keepdims=True)
        unit_k = k / np.linalg.norm(k, axis=-1, keepdims=True)
        return _dots(unit_q, unit_k) / temperature


_CQ = np.array([[1.0, 0.0, 2.0], [0.5, -1.5, 0.5], [-2.0, 1.0, 0.3]])  # (L_q=3, d=3), lengths all different
_CK = np.array([[3.0, 1.0, 0.0], [0.0, 0.2, -0.4], [1.0, 1.0, 1.0], [-4.0, 2.0, 1.0]])  # (L_k=4, d=3)
probe("cosine_scores", "L_q != L_k, vectors of different lengths, temperature 0.5", _CQ, _CK, 0.5)
probe("cosine_scores", "a batch of two, temperature 0.1", np.stack([_CQ, 2 * _CQ[::-1]]), np.stack([_CK, -_CK]), 0.1)
probe("cosine_scores", "as many keys as features (3): norms without keepdims still broadcast", _CQ, _CK[:3], 0.5)
probe("cosine_scores", "a zero query and a zero key among others, temperature 0.5", np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]]), np.array([[2.0, 1.0, -1.0], [0.0, 0.0, 0.0], [0.5, 0.5, 3.0]]), 0.5)
probe("qk_norm_scores", "L_q != L_k, gains of their own, eps = 0.5", 3.0 * _CQ, _CK, np.array([1.0, 0.5, 2.0]), np.array([-1.0, 3.0, 0.25]), eps=0.5)
probe("qk_norm_scores", "the default eps, gains of their own", _CQ, _CK, np.array([1.5, 1.0, -0.5]), np.array([0.5, 2.0, 1.0]))
probe("softcap", "scores from −120 to 120, cap 30", np.array([[-120.0, -30.0, -5.0, 0.0], [0.5, 12.0, 45.0, 120.0]]), 30.0)
probe("softcap", "scores near 0, cap 2", np.array([-0.8, -0.1, 0.3, 1.5, 3.0]), 2.0)
probe("additive_scores", "L_q != L_k, d_q != d_k != d_a", _CQ[:2], np.array([[1.0, -1.0, 0.5, 2.0], [0.0, 1.0, 1.0, -1.0], [2.0, 0.5, -0.5, 0.0]]),
      np.array([[1.0, -0.5], [0.5, 1.0], [-1.0, 0.2]]), np.array([[0.3, 1.0], [-1.0, 0.5], [0.5, 0.5], [1.0, -1.0]]), np.array([1.5, -2.0]))
probe("additive_scores", "d_q = d_k: the two projections could be swapped", _CQ[:2], _CK[:3], np.array([[1.0, 0.5], [-1.0, 2.0], [0.5, 0.0]]), np.array([[0.0, 1.0], [2.0, -0.5], [1.0, 1.0]]), np.array([1.0, -2.0]))


@misconception(
    "softcap",
    "the scores it is given are changed in place",
    explanation="scores /= cap (or np.tanh(..., out=scores)) writes into the caller's array, so the scores the caller still holds are capped, or divided by the cap, after the call. The returned array is right, which is why this goes unnoticed.",
    hint="Return cap * np.tanh(scores / cap): a new array, the scores untouched.",
    changes_its_arguments=True,
)
def softcap_changes_its_input(scores, cap):
    scores /= cap
    np.tanh(scores, out=scores)
    scores *= cap
    return scores


@misconception(
    "cosine_scores",
    "each vector divided by the norm of the whole array (np.linalg.norm without axis)",
    explanation="A cosine divides each query and each key by its own length: the norm along the feature axis, one per vector. np.linalg.norm(q) without an axis is one number, the Frobenius norm of the whole array, so the vectors keep their relative lengths and the scores are not cosines.",
    hint="np.linalg.norm(q, axis=-1, keepdims=True), floored at 1e-8.",
)
def cosine_norm_of_the_whole_array(q, k, temperature):
    return _dots(q / max(np.linalg.norm(q), 1e-8), k / max(np.linalg.norm(k), 1e-8)) / temperature


@misconception(
    "qk_norm_scores",
    "the mean square taken over the tokens (axis -2), not the features",
    explanation="RMSNorm normalises each vector by the root mean square of its own features: axis -1. Over axis -2 every feature is scaled by a statistic of the whole sequence, so a vector's length depends on the other tokens.",
    hint="np.mean(x ** 2, axis=-1, keepdims=True).",
)
def qk_norm_mean_over_tokens(q, k, gain_q, gain_k, eps=1e-6):
    def norm(x, gain):
        return x / np.sqrt(np.mean(x**2, axis=-2, keepdims=True) + eps) * gain

    return _dots(norm(q, gain_q), norm(k, gain_k)) / np.sqrt(q.shape[-1])


@misconception(
    "qk_norm_scores",
    "the eps argument ignored (a fixed 1e-6)",
    explanation="eps is part of the norm: √(mean(x²) + eps). A fixed constant gives the same answer only for the default; a model that sets its own eps (1e-5, 1e-6, larger for float16) must get it.",
    hint="Use the eps the function is given inside the root.",
)
def qk_norm_ignores_eps(q, k, gain_q, gain_k, eps=1e-6):
    return _dots(_rms_norm(q, gain_q, 1e-6), _rms_norm(k, gain_k, 1e-6)) / np.sqrt(q.shape[-1])


@misconception(
    "additive_scores",
    "the projections swapped: the queries through w_k, the keys through w_q",
    explanation="Bahdanau's score projects each side with its own matrix: q W_q and k W_k. Swapped (which runs when d_q = d_k), every score mixes the wrong weights.",
    hint="(q @ w_q)[..., :, None, :] + (k @ w_k)[..., None, :, :].",
)
def additive_projections_swapped(q, k, w_q, w_k, v):
    try:
        return np.tanh((q @ w_k)[..., :, None, :] + (k @ w_q)[..., None, :, :]) @ v
    except ValueError as error:
        return Raised(type(error).__name__)


@misconception(
    "cosine_scores",
    "the norms taken without keepdims=True",
    explanation="np.linalg.norm(q, axis=-1) drops the feature axis: (..., L_q) instead of (..., L_q, 1). Dividing q by it broadcasts the norms along the features, so each feature column is divided by another query's length (and other shapes raise).",
    hint="np.linalg.norm(q, axis=-1, keepdims=True).",
)
def cosine_norm_without_keepdims(q, k, temperature):
    try:
        return _dots(q / np.maximum(np.linalg.norm(q, axis=-1), 1e-8), k / np.maximum(np.linalg.norm(k, axis=-1), 1e-8)) / temperature
    except ValueError as error:
        return Raised(type(error).__name__)


# ---------------------------------------------------------------- more of the classic slips


@misconception(
    "attention_scores",
    "k is not transposed: q @ k instead of q @ kᵀ",
    explanation="q (L_q, d_k) @ k (L_k, d_k) only lines up when L_k = d_k, and then it dots each query with a column of k (one feature of every key), not with a key: the scores mean nothing. The keys must be turned so that their features meet the queries' features.",
    hint="q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k).",
)
def scores_k_not_transposed(q, k):
    return q @ k / np.sqrt(q.shape[-1])


@misconception(
    "attention_scores",
    "d_k read as q.shape[1]: right for a 2-D q only",
    explanation="On a (L_q, d_k) array shape[1] is d_k, but once a batch (or heads) axis comes first, shape[1] is the number of queries: the scale follows L_q instead of the width of the vectors. d_k is always the last axis.",
    hint="d_k = q.shape[-1], whatever the number of leading axes.",
)
def scores_d_k_from_axis_one(q, k):
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[1])


@misconception(
    "attention_scores",
    "np.dot instead of @ (matmul) on batched arrays",
    explanation="np.dot on arrays of more than two axes is not a batched product: it pairs every query of every sequence with every key of every sequence, giving (B, L_q, B, L_k). Only @ (np.matmul) treats the leading axes as a batch.",
    hint="Use q @ np.swapaxes(k, -1, -2) (np.matmul), not np.dot.",
)
def scores_np_dot_on_a_batch(q, k):
    return np.dot(q, np.swapaxes(k, -1, -2)) / np.sqrt(q.shape[-1])


@misconception(
    "qk_norm_scores",
    "divided by the mean square, without the square root",
    explanation="The RMS is the square root of the mean square: x / √(mean(x²) + eps) has a root-mean-square of 1. Dividing by mean(x²) + eps itself shrinks long vectors too much and grows short ones, so the scores still depend on the lengths.",
    hint="x / np.sqrt(np.mean(x ** 2, axis=-1, keepdims=True) + eps) * gain.",
)
def qk_norm_without_the_root(q, k, gain_q, gain_k, eps=1e-6):
    def norm(x, gain):
        return x / (np.mean(x**2, axis=-1, keepdims=True) + eps) * gain

    return _dots(norm(q, gain_q), norm(k, gain_k)) / np.sqrt(q.shape[-1])


@misconception(
    "softcap",
    "cap · tanh(scores · cap): multiplied by cap inside the tanh instead of divided",
    explanation="The tanh saturates past about ±2, so the scores are divided by cap first: cap · tanh(s / cap) is close to s for |s| well below cap. Multiplying by cap inside sends every score far into the flat part of the tanh, and the result is ±cap almost everywhere.",
    hint="cap * np.tanh(scores / cap).",
)
def softcap_multiplied_inside(scores, cap):
    return cap * np.tanh(scores * cap)


@misconception(
    "additive_scores",
    "divided by √d as dot-product scores are",
    explanation="The 1/√d_k of dot-product attention undoes the variance of a sum of d_k products. An additive score is v · tanh(…): the tanh already bounds each term, and the learned v sets the scale. Bahdanau's scores have no such factor, so the division only flattens them.",
    hint="Return np.tanh(q W_q + k W_k) @ v, with no division.",
)
def additive_scaled_like_dot_products(q, k, w_q, w_k, v):
    scores = np.tanh((q @ w_q)[..., :, None, :] + (k @ w_k)[..., None, :, :]) @ v
    return Alternatives([scores / np.sqrt(width) for width in (w_q.shape[-1], q.shape[-1], k.shape[-1])])
