"""Known wrong versions of softmax_backward and attention_backward."""

import numpy as np
from backward import softmax_backward
from scores import attention_scores
from softmax import softmax

from attnlab.misconceptions import Alternatives, Raised, misconception, probe


@misconception(
    "softmax_backward",
    "only the Jacobian's diagonal (y ⊙ dy)",
    explanation="The softmax's Jacobian is diag(y) − y yᵀ: every output depends on every input of its row, through the normalisation. y ⊙ dy keeps the diagonal and drops the − y (yᵀ dy) term, so the rows of dx no longer sum to 0.",
    hint="Subtract each row's Σ dy ⊙ y before multiplying by y: y * (dy - sum(dy * y, axis, keepdims=True)).",
)
def softmax_backward_diagonal_only(weights, grad_weights, axis=-1):
    return np.asarray(weights) * np.asarray(grad_weights)


@misconception(
    "softmax_backward",
    "Σ dy ⊙ y summed over the whole array",
    explanation="Each row is its own softmax, so the correction term is one number per row: summing dy ⊙ y over every entry mixes the rows' gradients together.",
    hint="Sum along `axis` with keepdims=True, not over everything.",
)
def softmax_backward_sums_everything(weights, grad_weights, axis=-1):
    weights, grad_weights = np.asarray(weights), np.asarray(grad_weights)
    return weights * (grad_weights - np.sum(grad_weights * weights))


def _t(x):
    return np.swapaxes(x, -1, -2)


def _backward(q, k, v, grad_out, mask, *, use_mask=True, scale=None, jacobian="full", grad_q=None, grad_k=None, grad_v=None, grad_weights=None, fill=-np.inf, blind="either"):
    """The reference's steps, with the one thing a mistake changes as a parameter (a step given as
    a function of the intermediate values replaces the reference's). A mistake that raises on some
    shapes gives ``Raised``, as the student's code does. A query that may see no key is a rule of
    its own: a student whose mistake is elsewhere leaves its weights nan or gives them zeros, so
    both are this mistake's answers (``blind="nan"``: the nan only)."""
    with np.errstate(all="ignore"):
        scores = attention_scores(q, k)
        if mask is not None and use_mask:
            scores = np.where(mask, scores, fill)
        weights = softmax(scores, axis=-1)
    if mask is None or not use_mask or blind == "nan" or not np.isnan(weights).any():
        return _backward_from(weights, q, k, v, grad_out, scale, jacobian, grad_q, grad_k, grad_v, grad_weights)
    zeroed = np.where(mask, np.nan_to_num(weights, nan=0.0), 0.0)
    return Alternatives([_backward_from(w, q, k, v, grad_out, scale, jacobian, grad_q, grad_k, grad_v, grad_weights) for w in (weights, zeroed)])


def _backward_from(weights, q, k, v, grad_out, scale, jacobian, grad_q, grad_k, grad_v, grad_weights):
    try:
        dv = (grad_v or (lambda a, g: _t(a) @ g))(weights, grad_out)
        da = (grad_weights or (lambda g, v: g @ _t(v)))(grad_out, v)
        ds = {
            "full": lambda: softmax_backward(weights, da, axis=-1),
            "diagonal": lambda: weights * da,
            "none": lambda: da,
            "over the queries": lambda: weights * (da - np.sum(da * weights, axis=-2, keepdims=True)),
            "sign flipped": lambda: -softmax_backward(weights, da, axis=-1),
        }[jacobian]()
        ds = ds / (np.sqrt(q.shape[-1]) if scale is None else scale)
        dq = (grad_q or (lambda ds, q, k: ds @ k))(ds, q, k)
        dk = (grad_k or (lambda ds, q, k: _t(ds) @ q))(ds, q, k)
        return dq, dk, dv
    except (ValueError, IndexError) as error:
        return Raised(type(error).__name__)


@misconception(
    "attention_backward",
    "the 1/√d_k left out of dq and dk",
    explanation="The scores are q kᵀ / √d_k, so the chain rule carries the 1/√d_k into both dq and dk; dv is right, but dq and dk are √d_k times too large.",
    hint="Divide dS by √d_k (once) before computing dq = dS k and dk = dSᵀ q.",
)
def attention_backward_no_scale(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, scale=1.0)


@misconception(
    "attention_backward",
    "the mask left out of the recomputed forward pass",
    explanation="The gradient must be taken through the same function as the forward pass: without the mask, the recomputed weights spread over keys the forward pass hid, so hidden keys receive gradient and every other gradient is off.",
    hint="Recompute the weights exactly as scaled_dot_product_attention does, masked scores set to -inf before the softmax.",
)
def attention_backward_ignores_mask(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, use_mask=False)


@misconception(
    "softmax_backward",
    "Σ dy ⊙ y taken without keepdims=True",
    explanation="np.sum(dy * y, axis=axis) drops the summed axis, so subtracting it from dy broadcasts the row sums along the wrong axis: on a square array each row gets another row's sum, and other shapes raise.",
    hint="np.sum(grad_weights * weights, axis=axis, keepdims=True) keeps a length-1 axis that lines up with the row.",
)
def softmax_backward_no_keepdims(weights, grad_weights, axis=-1):
    weights, grad_weights = np.asarray(weights), np.asarray(grad_weights)
    try:
        return weights * (grad_weights - np.sum(grad_weights * weights, axis=axis))
    except ValueError as error:
        return Raised(type(error).__name__)


@misconception(
    "softmax_backward",
    "the sign is flipped: y ⊙ (Σ dy ⊙ y − dy)",
    explanation="The softmax's vector-Jacobian product is y ⊙ (dy − Σ dy ⊙ y): the gradient of each input is its own dy minus the weighted mean of dy. The other order points every gradient the wrong way.",
    hint="weights * (grad_weights - np.sum(grad_weights * weights, axis=axis, keepdims=True)).",
)
def softmax_backward_sign_flipped(weights, grad_weights, axis=-1):
    weights, grad_weights = np.asarray(weights), np.asarray(grad_weights)
    return weights * (np.sum(grad_weights * weights, axis=axis, keepdims=True) - grad_weights)


@misconception(
    "softmax_backward",
    "the axis argument is ignored (the sum always runs over the last axis)",
    explanation="softmax_backward must undo the softmax along the axis it was taken: a softmax over axis 1 has its rows along axis 1, and the correction term Σ dy ⊙ y must be summed along that axis too.",
    hint="Pass axis to the sum: np.sum(..., axis=axis, keepdims=True).",
)
def softmax_backward_ignores_axis(weights, grad_weights, axis=-1):
    weights, grad_weights = np.asarray(weights), np.asarray(grad_weights)
    return weights * (grad_weights - np.sum(grad_weights * weights, axis=-1, keepdims=True))


@misconception(
    "softmax_backward",
    "dy − Σ dy ⊙ y, without multiplying by y",
    explanation="The Jacobian diag(y) − y yᵀ multiplies both terms by y: dx = y ⊙ (dy − Σ dy ⊙ y). Without the leading y, a key with almost no weight would still get a full-size gradient.",
    hint="Multiply the bracket by the weights: weights * (grad_weights - ...).",
)
def softmax_backward_forgets_y(weights, grad_weights, axis=-1):
    weights, grad_weights = np.asarray(weights), np.asarray(grad_weights)
    return grad_weights - np.sum(grad_weights * weights, axis=axis, keepdims=True)


@misconception(
    "attention_backward",
    "dq and dk divided by d_k instead of √d_k",
    explanation="The scores are q kᵀ / √d_k, so the chain rule brings one factor 1/√d_k into dq and dk. Dividing by d_k (or by √d_k twice) makes them √d_k times too small.",
    hint="grad_scores / np.sqrt(d_k), once.",
)
def attention_backward_scaled_by_d_k(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, scale=q.shape[-1])


@misconception(
    "attention_backward",
    "dq or dk multiplies dS by the wrong matrix (dq = dS k, dk = dSᵀ q)",
    explanation="S = q kᵀ / √d_k is linear in q with k fixed and in k with q fixed: dq = dS k / √d_k and dk = dSᵀ q / √d_k. Each gradient is the other operand times dS; using q for dq or k for dk computes nothing of the kind.",
    hint="dq = dS @ k and dk = dSᵀ @ q (with dS already divided by √d_k).",
)
def attention_backward_wrong_operand(q, k, v, grad_out, mask=None):
    answers = [
        _backward(q, k, v, grad_out, mask, grad_k=lambda ds, q, k: _t(ds) @ k),
        _backward(q, k, v, grad_out, mask, grad_q=lambda ds, q, k: ds @ q),
        _backward(q, k, v, grad_out, mask, grad_q=lambda ds, q, k: ds @ q, grad_k=lambda ds, q, k: _t(ds) @ k),
    ]
    return Alternatives([a for each in answers for a in (each if isinstance(each, Alternatives) else (each,))])


@misconception(
    "attention_backward",
    "dv = A d_out, without the transpose",
    explanation="out = A v, so value j's gradient collects d_out of every query i weighted by A[i, j]: dv = Aᵀ d_out, (L_k, d_v). A d_out needs L_q == L_k even to run, and then sums over the wrong index.",
    hint="np.swapaxes(weights, -1, -2) @ grad_out.",
)
def attention_backward_dv_untransposed(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, grad_v=lambda a, g: a @ g)


@misconception(
    "attention_backward",
    "dA = v d_outᵀ, the transpose of d_out vᵀ",
    explanation="out = A v, so dA = d_out vᵀ, (L_q, L_k), the shape of A. v d_outᵀ is its transpose, (L_k, L_q): it fails unless L_q == L_k, and then gives each weight the gradient of its mirror cell.",
    hint="grad_weights = grad_out @ np.swapaxes(v, -1, -2).",
)
def attention_backward_grad_weights_transposed(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, grad_weights=lambda g, v: v @ _t(g))


@misconception(
    "attention_backward",
    "the softmax's Jacobian reduced to its diagonal (dS = A ⊙ dA)",
    explanation="Each weight depends on every score of its row, through the normalisation, so dS = A ⊙ (dA − Σ dA ⊙ A). A ⊙ dA keeps only the diagonal of the Jacobian: the rows of dS no longer sum to 0.",
    hint="Use softmax_backward(weights, grad_weights) for dS.",
)
def attention_backward_diagonal_jacobian(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, jacobian="diagonal")


@misconception(
    "attention_backward",
    ".T on batched arrays reverses every axis, not only the last two",
    explanation="On (L, d) arrays .T is the transpose, but on (B, L, d) it gives (d, L, B): the batch moves to the end, so the products fail or mix sequences.",
    hint="np.swapaxes(x, -1, -2) swaps only the last two axes, whatever the leading ones.",
)
def attention_backward_full_transpose(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, grad_v=lambda a, g: a.T @ g, grad_weights=lambda g, v: g @ v.T, grad_k=lambda ds, q, k: ds.T @ q)


def attention_backward_minus_1e9(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, fill=-1e9)


def attention_backward_nan_for_blind_query(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, blind="nan")


# Left padding under a causal mask: query 0 of sequence 0 is padding and sees no key.
_BLIND = np.array([[[False, False, False], [False, True, False], [False, True, True]], [[True, False, False], [True, True, False], [True, True, True]]])
misconception(
    "attention_backward",
    "masked with -1e9 in the recomputed forward pass: a query that may see no key gets gradients",
    explanation="The backward pass must differentiate the forward pass as it is: a query that may see no key has zero weights and a zero output, so it sends no gradient anywhere. With -1e9 its recomputed weights are uniform over keys it must not see, and dq, dk and dv all get gradient through them.",
    hint="Recompute the weights exactly as scaled_dot_product_attention does: -inf where masked, and zero weights for a row with no visible key.",
)(attention_backward_minus_1e9)
misconception(
    "attention_backward",
    "a query that may see no key makes nan gradients",
    explanation="A row whose every score is -inf softmaxes to 0 / 0 = nan, and the nan reaches every gradient it touches: dv and dk of every key, through Aᵀ, not only the blind query's own dq. Such a query has zero weights in the forward pass and must get zero gradients.",
    hint="Recompute the weights as scaled_dot_product_attention does: give a row with no visible key finite scores before the softmax and zero weights after it.",
)(attention_backward_nan_for_blind_query)


@misconception(
    "attention_backward",
    "the softmax's D = Σ dA ⊙ A summed over the queries (axis −2), not over the keys",
    explanation="Each row of the weights is one softmax over the keys, so its backward subtracts one number per query: D_i = Σ_j dA_ij A_ij, a sum along the keys (the last axis). Summing along axis −2 mixes the rows of different queries, and the rows of dS no longer sum to 0.",
    hint="dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)), or softmax_backward(A, dA, axis=-1).",
)
def attention_backward_d_over_queries(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, jacobian="over the queries")


@misconception(
    "attention_backward",
    "the softmax's backward with its sign flipped: A ⊙ (D − dA)",
    explanation="The softmax's backward is dS = A ⊙ (dA − D), with D = Σ dA ⊙ A along the keys: a score's gradient grows with its own dA. Written the other way round, dq and dk point the opposite way (dv, which does not go through the softmax, is right).",
    hint="dS = A * (dA - np.sum(dA * A, axis=-1, keepdims=True)).",
)
def attention_backward_sign_flipped(q, k, v, grad_out, mask=None):
    return _backward(q, k, v, grad_out, mask, jacobian="sign flipped")



@misconception(
    "attention_backward",
    "dk = dS q without the transpose of dS (or dq = dSᵀ k)",
    explanation="dS is (L_q, L_k): row i holds query i's gradients over the keys. dq collects along the keys, dq = dS k (L_q × d_k), and dk along the queries, dk = dSᵀ q (L_k × d_k): the transpose turns dS to the keys' side. Without it the product only runs when L_q == L_k, and then gives key j the gradient of query j.",
    hint="dk = np.swapaxes(dS, -1, -2) @ q and dq = dS @ k, each divided by √d_k.",
)
def attention_backward_gradient_untransposed(q, k, v, grad_out, mask=None):
    answers = [
        _backward(q, k, v, grad_out, mask, grad_k=lambda ds, q, k: ds @ q),
        _backward(q, k, v, grad_out, mask, grad_q=lambda ds, q, k: _t(ds) @ k),
    ]
    return Alternatives(answers)


_RNG = np.random.default_rng(50)
_Y = softmax(_RNG.normal(size=(2, 3, 4)), axis=-1)
probe("softmax_backward", "a 2 x 3 x 4 softmax along the last axis", _Y, _RNG.normal(size=(2, 3, 4)))
probe("softmax_backward", "the same shape along axis 1", softmax(_RNG.normal(size=(2, 3, 4)), axis=1), _RNG.normal(size=(2, 3, 4)), axis=1)
_MASK = np.array([[True, False, False, False], [True, True, False, False], [True, True, True, False]])
probe("attention_backward", "L_q != L_k and d_k != d_v, no mask", _RNG.normal(size=(3, 2)), _RNG.normal(size=(4, 2)), _RNG.normal(size=(4, 3)), _RNG.normal(size=(3, 3)))
probe("attention_backward", "the same with a mask that hides the last key", _RNG.normal(size=(3, 2)), _RNG.normal(size=(4, 2)), _RNG.normal(size=(4, 3)), _RNG.normal(size=(3, 3)), _MASK)
probe("softmax_backward", "a square array: a sum without keepdims still broadcasts", softmax(_RNG.normal(size=(3, 3)), axis=-1), _RNG.normal(size=(3, 3)))
probe("attention_backward", "left padding under a causal mask: a query that sees no key", _RNG.normal(size=(2, 3, 2)), _RNG.normal(size=(2, 3, 2)), _RNG.normal(size=(2, 3, 3)), _RNG.normal(size=(2, 3, 3)), _BLIND)
probe("attention_backward", "a batch of two, L_q == L_k and d_k == d_v: transposes still run", _RNG.normal(size=(2, 3, 3)), _RNG.normal(size=(2, 3, 3)), _RNG.normal(size=(2, 3, 3)), _RNG.normal(size=(2, 3, 3)), np.tril(np.ones((3, 3), dtype=bool)))
probe("attention_backward", "B = L_q = L_k = d_k = d_v = 3: arrays transposed whole still line up", _RNG.normal(size=(3, 3, 3)), _RNG.normal(size=(3, 3, 3)), _RNG.normal(size=(3, 3, 3)), _RNG.normal(size=(3, 3, 3)))


@misconception(
    "softmax_backward",
    "the gradient it is given is changed in place",
    explanation="grad_weights -= ... (or *=) writes into the caller's upstream gradient: a caller that uses it again (to accumulate, or for the next head) reads the softmax's own gradient instead. The returned array is right, which is why this goes unnoticed.",
    hint="Compute into a new array: weights * (grad_weights - np.sum(grad_weights * weights, axis=axis, keepdims=True)).",
    changes_its_arguments=True,
)
def softmax_backward_changes_its_input(weights, grad_weights, axis=-1):
    grad_weights -= np.sum(grad_weights * weights, axis=axis, keepdims=True)
    grad_weights *= weights
    return grad_weights


@misconception(
    "attention_backward",
    "the 1/√d_k in only one of dq and dk",
    explanation="The scores are q kᵀ / √d_k: the same 1/√d_k reaches q and k, so the chain rule puts it in both dq = dS k / √d_k and dk = dSᵀ q / √d_k. Dividing only one of them leaves the other √d_k times too large.",
    hint="Divide dS by √d_k once, before both products.",
)
def attention_backward_scale_on_one_side(q, k, v, grad_out, mask=None):
    root = np.sqrt(q.shape[-1])
    return Alternatives(
        [
            _backward(q, k, v, grad_out, mask, scale=1.0, grad_k=lambda ds, q, k: _t(ds) @ q / root),
            _backward(q, k, v, grad_out, mask, scale=1.0, grad_q=lambda ds, q, k: ds @ k / root),
        ]
    )
