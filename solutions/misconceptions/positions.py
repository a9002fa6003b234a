"""Known wrong versions of sinusoidal_encoding, rope and equivariance_gap, and of learned positions,
the half-split RoPE and RoPE's scaled frequencies."""

import numpy as np
from attention import self_attention
from positions import rope, rope_half_split, sinusoidal_encoding

from attnlab.misconceptions import Alternatives, Raised, misconception, probe


def _angles(n_positions, d_model, exponent):
    return np.arange(n_positions)[:, None] / 10000.0 ** (exponent(np.arange(d_model // 2)) / d_model)[None, :]


def _table(sin_part, cos_part, d_model):
    table = np.empty((sin_part.shape[0], d_model))
    table[:, 0::2], table[:, 1::2] = sin_part, cos_part
    return table


@misconception(
    "sinusoidal_encoding",
    "sin and cos swapped",
    explanation="PE[p, 2i] is the sine and PE[p, 2i+1] the cosine of p / 10000^(2i/d_model); position 0 is then [0, 1, 0, 1, ...].",
    hint="Fill the even columns (0::2) with np.sin and the odd ones (1::2) with np.cos.",
)
def sinusoidal_sin_cos_swapped(n_positions, d_model):
    angles = _angles(n_positions, d_model, lambda i: 2 * i)
    return _table(np.cos(angles), np.sin(angles), d_model)


@misconception(
    "sinusoidal_encoding",
    "exponent i/d_model instead of 2i/d_model",
    explanation="The frequency of pair i is 1 / 10000^(2i/d_model): the exponent uses the column index 2i, so the wavelengths run from 2π to 10000·2π across the pairs.",
    hint="Use 2i (the even column index) in the exponent.",
)
def sinusoidal_wrong_exponent(n_positions, d_model):
    angles = _angles(n_positions, d_model, lambda i: i)
    return _table(np.sin(angles), np.cos(angles), d_model)


@misconception(
    "rope",
    "NeoX-style pairs (the two halves) instead of adjacent features",
    explanation="This course's RoPE rotates adjacent pairs (x[2i], x[2i+1]). Pairing feature i with feature i + d/2 is another (GPT-NeoX) convention, so the numbers differ.",
    hint="Rotate x[..., 0::2] with x[..., 1::2], then interleave them back.",
)
def rope_neox_pairs(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]
    first, second = x[..., : d // 2], x[..., d // 2 :]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.concatenate([first * cos - second * sin, first * sin + second * cos], axis=-1)


@misconception(
    "rope",
    "rotation in the wrong direction",
    explanation="out[2i] = x[2i]·cos θ − x[2i+1]·sin θ and out[2i+1] = x[2i]·sin θ + x[2i+1]·cos θ: a turn by +θ. Swapping the signs turns by −θ.",
    hint="Check the signs of the sin terms against the formula.",
)
def rope_wrong_sign(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.stack([even * cos + odd * sin, -even * sin + odd * cos], axis=-1).reshape(x.shape)


@misconception(
    "equivariance_gap",
    "with positions the gap is still 0: the positions are added before permuting (they travel with the tokens), or not added at all",
    explanation="Positions belong to slots, not to tokens: f(P X) = attention(P X + PE). Adding PE before permuting moves the positions along with the tokens, and leaving add_positions unused adds none: either way attention stays equivariant and the gap is 0.",
    hint="Permute X first, then, if add_positions, add sinusoidal_encoding(T, d_model) inside f.",
)
def equivariance_positions_follow_tokens(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    if add_positions:
        x = x + sinusoidal_encoding(*x.shape)
    out = self_attention(x, w_q, w_k, w_v)[0]
    return float(np.linalg.norm(self_attention(x[perm], w_q, w_k, w_v)[0] - out[perm]))


@misconception(
    "sinusoidal_encoding",
    "positions counted from 1 instead of 0",
    explanation="The first token is at position 0, so row 0 of the table is sin(0) = 0 and cos(0) = 1: [0, 1, 0, 1, ...]. Counting from 1 shifts every row down by one position.",
    hint="positions = np.arange(n_positions), which starts at 0.",
)
def sinusoidal_positions_from_one(n_positions, d_model):
    angles = _angles(n_positions + 1, d_model, lambda i: 2 * i)[1:]
    return _table(np.sin(angles), np.cos(angles), d_model)


@misconception(
    "sinusoidal_encoding",
    "sines in the first half of the columns, cosines in the second",
    explanation="Concatenating [sin, cos] is another layout (tensor2tensor's); the contract interleaves them: PE[p, 2i] is the sine and PE[p, 2i+1] the cosine of the same angle.",
    hint="Fill table[:, 0::2] with the sines and table[:, 1::2] with the cosines.",
)
def sinusoidal_halves(n_positions, d_model):
    angles = _angles(n_positions, d_model, lambda i: 2 * i)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=-1)


@misconception(
    "rope",
    "frequencies theta^(-i/d) instead of theta^(-2i/d)",
    explanation="Pair i (features 2i and 2i+1) turns at the frequency theta^(-2i/d), so the frequencies run from 1 down to about 1/theta across the pairs. With i/d they only reach 1/√theta: the slow pairs turn too fast.",
    hint="Use the even feature index in the exponent: theta ** (-np.arange(0, d, 2) / d).",
)
def rope_frequencies_halved(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(d // 2) / d)[None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1).reshape(x.shape)


@misconception(
    "equivariance_gap",
    "P f(X) permuted with the inverse permutation",
    explanation="(P X)[i] = X[perm[i]], so P f(X) is f(X)[perm] too. Indexing with argsort(perm) applies P⁻¹, and the gap is no longer 0 without positions, unless perm is its own inverse.",
    hint="Permute both sides the same way: f(x[perm]) - f(x)[perm].",
)
def equivariance_inverse_permutation(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)

    def attend(tokens):
        if add_positions:
            tokens = tokens + sinusoidal_encoding(*tokens.shape)
        return self_attention(tokens, w_q, w_k, w_v)[0]

    return float(np.linalg.norm(attend(x[perm]) - attend(x)[np.argsort(perm)]))


@misconception(
    "sinusoidal_encoding",
    "integer division in the exponent (2i // d_model): every frequency is 1",
    explanation="2i // d_model is 0 for every column below d_model, so 10000 ** 0 = 1 and every pair turns at the same frequency: the table repeats sin(p), cos(p) across its width and the positions cannot be told apart beyond 2π.",
    hint="A true division: 10000 ** (2i / d_model).",
)
def sinusoidal_integer_division(n_positions, d_model):
    angles = _angles(n_positions, d_model, lambda i: (2 * i) // d_model * d_model)
    return _table(np.sin(angles), np.cos(angles), d_model)


@misconception(
    "sinusoidal_encoding",
    "the position multiplied by 10000^(2i/d_model) instead of divided",
    explanation="The angle is p / 10000^(2i/d_model): the first pair turns once per 2π positions and the last almost not at all. Multiplying makes the later pairs spin faster and faster instead.",
    hint="angles = positions / 10000 ** (2i / d_model).",
)
def sinusoidal_multiplied(n_positions, d_model):
    two_i = np.arange(0, d_model, 2)
    angles = np.arange(n_positions)[:, None] * 10000.0 ** (two_i / d_model)[None, :]
    return _table(np.sin(angles), np.cos(angles), d_model)


def _rotate_pairs(x, angles):
    even, odd = x[..., 0::2], x[..., 1::2]
    cos, sin = np.cos(angles), np.sin(angles)
    return even * cos - odd * sin, even * sin + odd * cos


@misconception(
    "rope",
    "the positions argument is ignored (np.arange(T) instead)",
    explanation="RoPE turns each vector by its own position, which the caller gives: a KV cache's newest token sits at position t, not 0, and a packed or left-padded batch has positions of its own. np.arange(T) assumes every sequence starts at 0 in order.",
    hint="angles = np.asarray(positions)[:, None] * frequencies[None, :].",
)
def rope_ignores_positions(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.arange(x.shape[-2])[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]
    return np.stack(_rotate_pairs(x, angles), axis=-1).reshape(x.shape)


@misconception(
    "rope",
    "adjacent pairs rotated, but written back as two halves",
    explanation="Pair i is (x[2i], x[2i+1]) and its rotated values go back to the same two places. np.concatenate([new_even, new_odd]) puts all the even results first and the odd ones after: the features come back shuffled.",
    hint="Interleave them back: np.stack([new_even, new_odd], axis=-1).reshape(x.shape), or assign out[..., 0::2] and out[..., 1::2].",
)
def rope_written_back_as_halves(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]
    return np.concatenate(_rotate_pairs(x, angles), axis=-1)


def _attend_slots(x, w_q, w_k, w_v, add_positions):
    if add_positions:
        x = x + sinusoidal_encoding(*x.shape)
    return self_attention(x, w_q, w_k, w_v)[0]


@misconception(
    "equivariance_gap",
    "the squared norm (the sum of squares), not the norm",
    explanation="The gap is the Frobenius norm ‖f(P X) − P f(X)‖_F, the square root of the sum of squared differences: what np.linalg.norm gives. The sum of squares is its square, smaller than the norm below 1 and larger above.",
    hint="np.linalg.norm(difference), or the square root of the sum of squares.",
)
def equivariance_squared_norm(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    difference = _attend_slots(x[perm], w_q, w_k, w_v, add_positions) - _attend_slots(x, w_q, w_k, w_v, add_positions)[perm]
    return float(np.sum(difference**2))


@misconception(
    "equivariance_gap",
    "f(P X) compared with f(X), not with P f(X)",
    explanation="Equivariance says permuting the input permutes the output the same way: f(P X) = P f(X). Comparing f(P X) with the unpermuted f(X) measures how much the output rows moved, which is large even for a perfectly equivariant function.",
    hint="Permute the output of the original too: f(x[perm]) - f(x)[perm].",
)
def equivariance_output_not_permuted(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    return float(np.linalg.norm(_attend_slots(x[perm], w_q, w_k, w_v, add_positions) - _attend_slots(x, w_q, w_k, w_v, add_positions)))


_RNG = np.random.default_rng(60)
_X, _W = _RNG.normal(size=(4, 6)), [_RNG.normal(size=(6, 6)) for _ in range(3)]
probe("sinusoidal_encoding", "5 positions, 6 columns (3 pairs)", 5, 6)
probe("sinusoidal_encoding", "7 positions, 10 columns (5 pairs)", 7, 10)
probe("rope", "positions out of order, d = 6", _RNG.normal(size=(2, 3, 6)), np.array([0, 3, 1]))
probe("rope", "a small theta, so every pair turns visibly", _RNG.normal(size=(4, 4)), np.array([1, 2, 5, 9]), theta=100.0)
probe("equivariance_gap", "a permutation that is not its own inverse, no positions", _X, np.array([2, 0, 3, 1]), *_W)
probe("equivariance_gap", "the same, with positions", _X, np.array([2, 0, 3, 1]), *_W, add_positions=True)


# ---------------------------------------------------------------- learned positions, half-split RoPE, scaling (issue 39)


@misconception(
    "learned_positions",
    "the position table indexed by the token ids",
    explanation="The position table has a row per position: slot t adds position_table[t], whatever token sits there. Indexing it with the token ids gives each token a second, fixed embedding, so 'bank' gets the same vector at every position and the order is lost again.",
    hint="position_table[:T], with T = token_ids.shape[-1].",
)
def learned_positions_indexed_by_token(token_ids, token_table, position_table):
    token_ids = np.asarray(token_ids)
    return token_table[token_ids] + position_table[token_ids]


@misconception(
    "learned_positions",
    "positions counted from 1: row t + 1 for slot t",
    explanation="The first token is at position 0 and takes row 0 of the table. Starting at row 1 shifts every position by one and never uses row 0; a sequence as long as the table then runs past its last row.",
    hint="position_table[:T] (rows 0 … T − 1), not position_table[1:T + 1].",
)
def learned_positions_from_one(token_ids, token_table, position_table):
    token_ids = np.asarray(token_ids)
    n_tokens = token_ids.shape[-1]
    if n_tokens > len(position_table):
        raise ValueError("longer than the table")
    if n_tokens == len(position_table):  # row T is past the table: an index or a broadcast fails, as written
        return Alternatives([Raised("IndexError"), Raised("ValueError")])
    return token_table[token_ids] + position_table[1 : n_tokens + 1]


@misconception(
    "learned_positions",
    "the sequence length read off the first axis: len(token_ids)",
    explanation="A batch (B, T) of ids needs the first T rows of the table, one per slot: T is the last axis of token_ids. len(token_ids) is the batch size B, which lines up only for a single sequence or when B happens to equal T.",
    hint="T = token_ids.shape[-1]; add position_table[:T].",
)
def learned_positions_wrong_length(token_ids, token_table, position_table):
    token_ids = np.asarray(token_ids)
    if len(token_ids) > len(position_table):
        raise ValueError("longer than the table")
    return token_table[token_ids] + position_table[: len(token_ids)]


def _rope_angles(positions, d, theta):
    return np.asarray(positions)[:, None] * theta ** (-np.arange(0, d, 2) / d)[None, :]  # (T, d/2)


@misconception(
    "rope_half_split",
    "adjacent pairs (2i, 2i + 1), the course's rope, instead of the two halves",
    explanation="Checkpoints of GPT-NeoX and Llama pair feature i with feature i + d/2 (rotate_half); the course's rope pairs features 2i and 2i + 1. The two are the same rotation of permuted features, but a checkpoint's W_Q and W_K were trained for one layout: the other gives different numbers.",
    hint="x1, x2 = x[..., :d//2], x[..., d//2:]; rotate (x1[i], x2[i]) by pair i's angle.",
)
def rope_half_split_adjacent_pairs(x, positions, theta=10000.0):
    return rope(x, positions, theta=theta)


@misconception(
    "rope_half_split",
    "rotate_half with the wrong sign: [x2, −x1] instead of [−x2, x1]",
    explanation="out = x · cos + rotate_half(x) · sin with rotate_half(x) = [−x2, x1] gives out[i] = x1·cos − x2·sin and out[i + d/2] = x2·cos + x1·sin: a turn by +θ. [x2, −x1] turns by −θ.",
    hint="rotate_half(x) = np.concatenate([-x2, x1], axis=-1).",
)
def rope_half_split_rotate_half_sign(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.concatenate([_rope_angles(positions, d, theta)] * 2, axis=-1)
    first, second = x[..., : d // 2], x[..., d // 2 :]
    return x * np.cos(angles) + np.concatenate([second, -first], axis=-1) * np.sin(angles)


@misconception(
    "rope_half_split",
    "the angles repeated in place (np.repeat) instead of tiled over the two halves",
    explanation="In the half-split layout feature i and feature i + d/2 share pair i's angle, so the angle table is [angles, angles] (concatenated). np.repeat(angles, 2) gives [a0, a0, a1, a1, ...], the interleaved layout's table: most features turn at another pair's frequency.",
    hint="np.concatenate([angles, angles], axis=-1), not np.repeat(angles, 2, axis=-1).",
)
def rope_half_split_angles_interleaved(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.repeat(_rope_angles(positions, d, theta), 2, axis=-1)
    first, second = x[..., : d // 2], x[..., d // 2 :]
    return x * np.cos(angles) + np.concatenate([-second, first], axis=-1) * np.sin(angles)


def _plain_frequencies(d, theta):
    return theta ** (-np.arange(0, d, 2) / d)


def _scaled(head_dim, theta, scaling, factor, linear, ntk_base):
    if scaling == "linear":
        return linear(_plain_frequencies(head_dim, theta), factor)
    if scaling == "ntk":
        return _plain_frequencies(head_dim, ntk_base(theta, factor, head_dim))
    return _plain_frequencies(head_dim, theta)


@misconception(
    "rope_frequencies",
    "linear scaling multiplies the frequencies by factor instead of dividing",
    explanation="Position interpolation squeezes a long sequence into the trained range: position p is used as p / factor, so every angle p · f becomes p · f / factor, i.e. each frequency is divided by factor. Multiplying makes every pair turn factor times faster, further out of the trained range.",
    hint="scaling='linear': frequencies / factor.",
)
def rope_frequencies_linear_multiplied(head_dim, theta=10000.0, scaling=None, factor=1.0):
    return _scaled(head_dim, theta, scaling, factor, lambda f, s: f * s, lambda t, s, d: t * s ** (d / (d - 2)))


@misconception(
    "rope_frequencies",
    "NTK: the base multiplied by factor, without the exponent d/(d − 2)",
    explanation="NTK-aware scaling raises the base to theta · factor^(d/(d−2)), chosen so that the slowest pair, theta^(-(d−2)/d), slows down by exactly factor while the fastest keeps its frequency 1. With theta · factor the slowest pair slows by factor^((d−2)/d) only: not quite enough.",
    hint="theta * factor ** (head_dim / (head_dim - 2)).",
)
def rope_frequencies_ntk_without_the_exponent(head_dim, theta=10000.0, scaling=None, factor=1.0):
    return _scaled(head_dim, theta, scaling, factor, lambda f, s: f / s, lambda t, s, d: t * s)


@misconception(
    "rope_frequencies",
    "NTK: the exponent upside down, factor^((d − 2)/d)",
    explanation="The exponent d/(d−2) is just above 1: raising the base by factor^(d/(d−2)) slows the slowest pair, theta^(-(d−2)/d), by exactly factor. factor^((d−2)/d) slows it by factor^(((d−2)/d)²), less than factor.",
    hint="theta * factor ** (head_dim / (head_dim - 2)): head_dim on top.",
)
def rope_frequencies_ntk_exponent_inverted(head_dim, theta=10000.0, scaling=None, factor=1.0):
    return _scaled(head_dim, theta, scaling, factor, lambda f, s: f / s, lambda t, s, d: t * s ** ((d - 2) / d))


@misconception(
    "rope_frequencies",
    "NTK scales the frequencies like linear scaling (divided by factor)",
    explanation="The two methods differ on purpose: position interpolation divides every frequency by factor, which blurs the fast pairs that tell neighbouring tokens apart; NTK-aware scaling changes the base instead, so the fastest pair keeps frequency 1 and only the slow ones are stretched.",
    hint="scaling='ntk': (theta * factor ** (d / (d - 2))) ** (-2i/d), not frequencies / factor.",
)
def rope_frequencies_ntk_as_linear(head_dim, theta=10000.0, scaling=None, factor=1.0):
    if scaling in ("linear", "ntk"):
        return _plain_frequencies(head_dim, theta) / factor
    return _plain_frequencies(head_dim, theta)


_IDS = np.array([[3, 0, 3], [1, 1, 2]])  # (B=2, T=3): B != T, a token repeated
_TOKENS, _POSITIONS = _RNG.normal(size=(4, 2)), _RNG.normal(size=(5, 2))  # V = 4, P = 5, d = 2
probe("learned_positions", "B = 2, T = 3, a table of 5 positions", _IDS, _TOKENS, _POSITIONS)
probe("learned_positions", "one sequence of 4, a table of 5 positions", np.array([2, 2, 0, 1]), _TOKENS, _POSITIONS)
probe("learned_positions", "one sequence as a (1, 3) batch", np.array([[1, 0, 2]]), _TOKENS, _POSITIONS)
probe("learned_positions", "a sequence exactly as long as the table (5 of 5)", np.array([0, 1, 2, 3, 0]), _TOKENS, _POSITIONS)
probe("rope_half_split", "positions out of order, d = 6", _RNG.normal(size=(2, 3, 6)), np.array([0, 3, 1]))
probe("rope_half_split", "a small theta, so every pair turns visibly", _RNG.normal(size=(4, 8)), np.array([1, 2, 5, 9]), theta=100.0)
probe("rope_frequencies", "linear scaling, factor 3", 8, theta=10000.0, scaling="linear", factor=3.0)
probe("rope_frequencies", "NTK scaling, factor 3", 8, theta=10000.0, scaling="ntk", factor=3.0)
probe("rope_frequencies", "NTK scaling, factor 6, head_dim 16, Llama 3's theta", 16, theta=500000.0, scaling="ntk", factor=6.0)


@misconception(
    "rope",
    "x is rotated in place",
    explanation="Assigning the rotated pairs back into x[..., 0::2] and x[..., 1::2] writes into the caller's array: the caller's queries or keys are rotated after the call, and a second call rotates them twice. The returned array is right, which is why this goes unnoticed.",
    hint="Build the output in a new array (np.empty_like(x), or np.stack of the rotated pairs) and leave x as it was.",
    changes_its_arguments=True,
)
def rope_changes_its_input(x, positions, theta=10000.0):
    x[...] = rope(np.array(x), positions, theta)
    return x


@misconception(
    "rope_half_split",
    "x is rotated in place",
    explanation="Assigning the rotated halves back into x[..., :d/2] and x[..., d/2:] writes into the caller's array: the caller's queries or keys are rotated after the call, and a second call rotates them twice. The returned array is right, which is why this goes unnoticed.",
    hint="Build the output in a new array (np.concatenate of the rotated halves) and leave x as it was.",
    changes_its_arguments=True,
)
def rope_half_split_changes_its_input(x, positions, theta=10000.0):
    x[...] = rope_half_split(np.array(x), positions, theta)
    return x


@misconception(
    "rope",
    "theta ignored: the frequencies always use 10000",
    explanation="theta is RoPE's base: the frequencies are theta^(-2i/d). Llama 3 uses 500000, a long-context model more; a hard-coded 10000 is right only for the default.",
    hint="frequencies = theta ** (-np.arange(0, d, 2) / d), with the theta given.",
)
def rope_ignores_theta(x, positions, theta=10000.0):
    return rope(x, positions)


@misconception(
    "rope_half_split",
    "theta ignored: the frequencies always use 10000",
    explanation="theta is RoPE's base, the same in both layouts: frequencies theta^(-2i/d). A hard-coded 10000 is right only for the default, not for Llama 3's 500000.",
    hint="frequencies = theta ** (-np.arange(0, d, 2) / d), with the theta given.",
)
def rope_half_split_ignores_theta(x, positions, theta=10000.0):
    return rope_half_split(x, positions)


@misconception(
    "rope_frequencies",
    "factor ignored: scaling changes nothing",
    explanation="Linear scaling divides every frequency by factor; NTK scaling raises the base by factor^(d/(d-2)). Returning the unscaled frequencies whatever the factor stretches nothing: positions past the training length get angles the model never saw.",
    hint="Use factor: inv_freq / factor for linear, (theta * factor ** (d / (d - 2))) ** -exponents for ntk.",
)
def rope_frequencies_ignores_factor(head_dim, theta=10000.0, scaling=None, factor=1.0):
    if scaling not in (None, "linear", "ntk") or (scaling == "ntk" and head_dim < 4):
        raise ValueError("cannot scale")
    return theta ** -(np.arange(0, head_dim, 2) / head_dim)


@misconception(
    "learned_positions",
    "off by one: a sequence as long as the table is refused (T >= P)",
    explanation="A table of P rows knows positions 0..P-1: a sequence of exactly P tokens fits. Raising when T >= P refuses it.",
    hint="Raise only when T > P.",
    about_raising=True,
)
def learned_positions_refuses_a_full_table(token_ids, token_table, position_table):
    token_ids = np.asarray(token_ids)
    if token_ids.shape[-1] >= len(position_table):
        raise ValueError("too long")
    return token_table[token_ids] + position_table[: token_ids.shape[-1]]


@misconception(
    "sinusoidal_encoding",
    "the table made in an integer dtype: every sine and cosine truncated",
    explanation="The table holds sines and cosines, floats in [-1, 1]. Made with np.zeros_like of the integer positions (or any integer array), every value written into it is truncated to -1, 0 or 1.",
    hint="table = np.zeros((n_positions, d_model)) (float64).",
)
def sinusoidal_integer_table(n_positions, d_model):
    return sinusoidal_encoding(n_positions, d_model).astype(int)


# ---------------------------------------------------------------- frequencies and positions, once more


@misconception(
    "sinusoidal_encoding",
    "each column gets its own frequency, 10000^(j/d_model) for column j: the cosines turn at the next pair's rate",
    explanation="The sine and the cosine of a pair share one angle, p / 10000^(2i/d_model), for columns 2i and 2i + 1. Building the angles from every column index j gives the sine column the right angle but the cosine column 10000^((2i + 1)/d_model): the pair is no longer a point on a circle, and a shift of position is no longer a rotation.",
    hint="Build the (n_positions, d_model/2) angle table from 2i = np.arange(0, d_model, 2), and take sin and cos of the same table.",
)
def sinusoidal_frequency_per_column(n_positions, d_model):
    angles = np.arange(n_positions)[:, None] / 10000.0 ** (np.arange(d_model)[None, :] / d_model)
    return _table(np.sin(angles[:, 0::2]), np.cos(angles[:, 1::2]), d_model)


@misconception(
    "rope_half_split",
    "frequencies theta^(-i/d) instead of theta^(-2i/d)",
    explanation="Pair i turns at theta^(-2i/d): the exponent runs over the even indices 0, 2, …, d − 2, so the slowest pair turns at almost 1/theta. With i/d the exponent stops at about 1/2, and every pair but the first turns too fast.",
    hint="frequencies = theta ** (-np.arange(0, d, 2) / d).",
)
def rope_half_split_frequencies_halved(x, positions, theta=10000.0):
    d = x.shape[-1]
    angles = np.asarray(positions)[:, None] * theta ** (-np.arange(d // 2) / d)[None, :]
    angles = np.concatenate([angles, angles], axis=-1)
    first, second = x[..., : d // 2], x[..., d // 2 :]
    return x * np.cos(angles) + np.concatenate([-second, first], axis=-1) * np.sin(angles)


@misconception(
    "rope_half_split",
    "the positions argument is ignored (np.arange(T) instead)",
    explanation="RoPE turns each vector by its own position, which the caller gives: a KV cache's newest token sits at position t, not 0, and a packed or left-padded batch has positions of its own. np.arange(T) assumes every sequence starts at 0 in order.",
    hint="angles = np.asarray(positions)[:, None] * frequencies[None, :].",
)
def rope_half_split_ignores_positions(x, positions, theta=10000.0):
    return rope_half_split(x, np.arange(x.shape[-2]), theta=theta)


@misconception(
    "rope_frequencies",
    "exponent i/d instead of 2i/d (np.arange(d // 2) / d)",
    explanation="inv_freq[i] = theta^(-2i/d): the exponents are the even indices 0, 2, …, d − 2 over d, so the slowest pair turns at almost 1/theta. np.arange(d // 2) / d stops at about 1/2: every pair but the first turns too fast, and the long wavelengths the model relies on for distant tokens are gone.",
    hint="np.arange(0, d, 2) / d, the even indices.",
)
def rope_frequencies_exponent_halved(head_dim, theta=10000.0, scaling=None, factor=1.0):
    d = head_dim
    exponents = np.arange(d // 2) / d
    if scaling is None:
        return theta**-exponents
    if scaling == "linear":
        return theta**-exponents / factor
    if scaling == "ntk":
        if d < 4:
            raise ValueError(f"NTK scaling needs head_dim ≥ 4, got {head_dim}")
        return (theta * factor ** (d / (d - 2))) ** -exponents
    raise ValueError(f"scaling must be None, 'linear' or 'ntk', got {scaling!r}")


@misconception(
    "equivariance_gap",
    "another size than the Frobenius norm: the spectral norm (ord=2), the largest |difference|, a mean, or one norm per row summed",
    explanation="The gap is ‖f(P X) − P f(X)‖_F, the square root of the sum of every squared difference: np.linalg.norm of the matrix with no ord. np.linalg.norm(D, 2) of a matrix is its largest singular value, and the largest entry, a mean or a sum of row norms are other sizes again: each is 0 exactly when the Frobenius norm is, but not the same number.",
    hint="float(np.linalg.norm(difference)), with no ord and no axis.",
)
def equivariance_another_norm(x, perm, w_q, w_k, w_v, add_positions=False):
    perm = np.asarray(perm)
    difference = (
        _attend_slots(x[perm], w_q, w_k, w_v, add_positions) - _attend_slots(x, w_q, w_k, w_v, add_positions)[perm]
    )
    sizes = (
        np.linalg.norm(difference, 2),
        np.abs(difference).max(),
        np.mean(np.abs(difference)),
        np.mean(difference**2),
        np.sqrt(np.mean(difference**2)),
        np.linalg.norm(difference, axis=-1).sum(),
        np.linalg.norm(difference, axis=-1).mean(),
    )
    return Alternatives([float(size) for size in sizes])
