"""Known wrong versions of the mask functions: causal, padding (right and left), sliding window, packed documents,
attention sinks, and ALiBi's slopes and bias."""

import numpy as np
from masks import alibi_slopes

from attnlab.misconceptions import Alternatives, misconception, probe


@misconception(
    "causal_mask",
    "the diagonal is masked too",
    explanation="A token may attend to itself: query i sees keys 0..i, the diagonal included. Masking the diagonal also leaves the first query with no key at all.",
    hint="np.tril keeps the diagonal with its default k=0.",
)
def causal_diagonal_masked(n):
    return np.tril(np.ones((n, n), dtype=bool), k=-1)


@misconception(
    "causal_mask",
    "the upper triangle is kept (the future instead of the past)",
    explanation="With True = may attend, the allowed cells are on and below the diagonal; the upper triangle lets every query read later tokens, which is exactly what a causal mask forbids.",
    hint="Use np.tril, not np.triu.",
)
def causal_upper_triangular(n):
    return np.triu(np.ones((n, n), dtype=bool))


@misconception(
    "padding_mask",
    "off by one: the first padding position counts as real",
    explanation="A sequence of length L has real tokens at positions 0..L-1; position L is already padding.",
    hint="Compare positions with `<` lengths, not `<=`.",
)
def padding_off_by_one(lengths, max_len):
    return np.arange(max_len)[None, :] <= np.asarray(lengths)[:, None]


@misconception(
    "padding_mask",
    "inverted: True at the padding",
    explanation="In this course True means 'may attend': real tokens are True and padding is False (PyTorch's scaled_dot_product_attention convention).",
    hint="Real positions are those below the length: arange(max_len) < lengths.",
)
def padding_inverted(lengths, max_len):
    return np.arange(max_len)[None, :] >= np.asarray(lengths)[:, None]


@misconception(
    "causal_mask",
    "True marks the masked cells (the future), not the visible ones",
    explanation="In this course True means the query may attend to the key (PyTorch's scaled_dot_product_attention convention). np.triu(..., k=1) marks the future, the exact complement of what is wanted: read as 'may attend', every query sees only later tokens.",
    hint="Return np.tril(np.ones((n, n), dtype=bool)): True on and below the diagonal.",
)
def causal_mask_marks_the_future(n):
    return np.triu(np.ones((n, n), dtype=bool), k=1)


@misconception(
    "causal_mask",
    "a mask of ones and zeros (floats or integers) instead of a bool one",
    explanation="np.tril(np.ones((n, n))) has the right pattern but holds numbers. np.where(mask, ...) happens to work, but ~mask gives -1 and -2 on integers and raises on floats, and mask * scores is not masking: the contract asks for dtype bool.",
    hint="np.tril(np.ones((n, n), dtype=bool)).",
)
def causal_mask_float(n):
    return Alternatives([np.tril(np.ones((n, n))), np.tril(np.ones((n, n), dtype=int))])


@misconception(
    "padding_mask",
    "the mask comes out as (max_len, B), transposed",
    explanation="Comparing arange(max_len)[:, None] with lengths[None, :] puts positions on the rows. A padding mask is (B, max_len): one row per sequence, True at its real tokens.",
    hint="np.arange(max_len)[None, :] < lengths[:, None].",
)
def padding_transposed(lengths, max_len):
    return np.arange(max_len)[:, None] < np.asarray(lengths)[None, :]


@misconception(
    "padding_mask",
    "a mask of ones and zeros (floats or integers) instead of a bool one",
    explanation="The pattern is right but the dtype is float, so ~mask and mask & other raise, and the mask cannot select with np.where's True/False meaning the contract gives it.",
    hint="Return the comparison itself: it is already a bool array.",
)
def padding_float(lengths, max_len):
    right = np.arange(max_len)[None, :] < np.asarray(lengths)[:, None]
    return Alternatives([right.astype(float), right.astype(int)])


@misconception(
    "padding_mask",
    "off by one: the last real token counts as padding",
    explanation="A sequence of length L has L real tokens, at positions 0..L-1: the last real one is at L - 1, and it must be True. Stopping at L - 1 (a slice [:L - 1], or `< L - 1`) hides it.",
    hint="Positions below the length are real: np.arange(max_len)[None, :] < lengths[:, None] (a slice [:L] is L long).",
)
def padding_one_short(lengths, max_len):
    return np.arange(max_len)[None, :] < np.asarray(lengths)[:, None] - 1


@misconception(
    "padding_mask",
    "the mask is as wide as the longest sequence, not max_len",
    explanation="The batch is padded to max_len, which may be longer than every sequence in it (a fixed context, or padding to a multiple of 8). The mask must line up with the padded batch: (B, max_len), whatever the lengths.",
    hint="Build the positions from max_len: np.arange(max_len), not np.arange(lengths.max()).",
)
def padding_width_from_lengths(lengths, max_len):
    lengths = np.asarray(lengths)
    return np.arange(lengths.max())[None, :] < lengths[:, None]


probe("causal_mask", "an 11 x 11 mask: the diagonal, the triangle and the complement differ", 11)
probe("padding_mask", "B != max_len, a full sequence and a length-1 one", np.array([3, 1, 5]), 5)
probe("padding_mask", "max_len longer than every sequence", np.array([2, 4, 1]), 6)


@misconception(
    "sliding_window_mask",
    "one key too many: the window reaches i − window",
    explanation="A window of w keys is the query itself and the w − 1 keys before it: keys i − w + 1 … i. Allowing j ≥ i − w lets every query see w + 1 keys.",
    hint="Keep keys with j > i − window (strictly), and j ≤ i.",
)
def sliding_window_one_too_wide(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j <= i) & (j >= i - window)


@misconception(
    "document_mask",
    "earlier documents stay visible",
    explanation="Packed documents are unrelated texts: a token may see its own document only. Comparing ids with ≥ (as a causal mask compares positions) lets every document read the ones packed before it.",
    hint="Compare the ids for equality: ids[:, None] == ids[None, :].",
)
def document_mask_sees_earlier_documents(document_ids):
    ids = np.asarray(document_ids)
    return ids[:, None] >= ids[None, :]


@misconception(
    "left_padding_mask",
    "the padding is put on the right",
    explanation="With left padding the real tokens come last: row b is False for its first max_len − lengths[b] positions and True after. Marking the first lengths[b] positions real is right padding's mask.",
    hint="The real tokens of row b start at position max_len − lengths[b].",
)
def left_padding_on_the_right(lengths, max_len):
    return np.arange(max_len)[None, :] < np.asarray(lengths)[:, None]


@misconception(
    "sliding_window_mask",
    "one key too few: the window stops at i − window + 2",
    explanation="A window of w keys is the query itself and the w − 1 keys before it: keys i − w + 1 … i. Requiring j > i − w + 1 leaves only w − 1 keys (a window of 1 then hides every key, even the query's own).",
    hint="Keep keys with j > i − window and j ≤ i: that is exactly window keys.",
)
def sliding_window_one_too_narrow(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j <= i) & (j > i - window + 1)


@misconception(
    "sliding_window_mask",
    "the window reaches into the future (|i − j| < window)",
    explanation="This course's sliding window is local *causal* attention: query i sees itself and the keys just before it, never a later one. A symmetric band |i − j| < window (Longformer's local attention) lets each query read window − 1 future tokens.",
    hint="Combine both conditions: j ≤ i (causal) and j > i − window (local).",
)
def sliding_window_sees_the_future(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return np.abs(i - j) < window


@misconception(
    "sliding_window_mask",
    "the query is left out of its own window",
    explanation="The window holds the query itself and the window − 1 keys before it. Counting window keys strictly before i (j < i) hides the query from itself and leaves query 0 with no key at all.",
    hint="j ≤ i, not j < i: a window of 1 is the diagonal.",
)
def sliding_window_hides_itself(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j < i) & (j >= i - window)


@misconception(
    "document_mask",
    "the mask is made causal inside each document",
    explanation="document_mask is the block-diagonal mask alone: a token sees every token of its own document. A decoder combines it with the causal mask (document_mask(ids) & causal_mask(T)); building the causal part in makes it unusable for an encoder, and a decoder that combines them as the docstring says gets it twice.",
    hint="Return ids[:, None] == ids[None, :] only; the caller adds causality with &.",
)
def document_mask_made_causal(document_ids):
    ids = np.asarray(document_ids)
    return (ids[:, None] == ids[None, :]) & np.tril(np.ones((len(ids), len(ids)), dtype=bool))


@misconception(
    "document_mask",
    "inverted: True between different documents",
    explanation="In this course True means the query may attend to the key. ids[:, None] != ids[None, :] marks the pairs of different documents, the exact complement: every token would read only the other documents.",
    hint="Compare for equality: ids[:, None] == ids[None, :].",
)
def document_mask_inverted(document_ids):
    ids = np.asarray(document_ids)
    return ids[:, None] != ids[None, :]


@misconception(
    "left_padding_mask",
    "off by one: the first real token counts as padding",
    explanation="With left padding, row b's real tokens are its last lengths[b] positions: they start at max_len − lengths[b], which must be True. Comparing with > instead of ≥ hides the first of them.",
    hint="np.arange(max_len)[None, :] >= (max_len - lengths)[:, None].",
)
def left_padding_one_short(lengths, max_len):
    return np.arange(max_len)[None, :] > (max_len - np.asarray(lengths))[:, None]


@misconception(
    "left_padding_mask",
    "off by one: the last padding position counts as real",
    explanation="Row b has max_len − lengths[b] padding positions, 0 … max_len − lengths[b] − 1; the real tokens start right after. Starting them one earlier lets every query read one padding token.",
    hint="np.arange(max_len)[None, :] >= (max_len - lengths)[:, None].",
)
def left_padding_one_too_many(lengths, max_len):
    return np.arange(max_len)[None, :] >= (max_len - np.asarray(lengths) - 1)[:, None]


@misconception(
    "left_padding_mask",
    "the right-padding mask flipped with np.flip, which also reverses the batch",
    explanation="Flipping the right-padding mask left to right is the left-padding mask, but np.flip without an axis flips every axis: the rows come out in reverse order, so sequence 0 gets the mask of the last one.",
    hint="Flip the positions only: np.flip(mask, axis=-1), or compare with max_len − lengths directly.",
)
def left_padding_flips_the_batch(lengths, max_len):
    return np.flip(np.arange(max_len)[None, :] < np.asarray(lengths)[:, None])


@misconception(
    "left_padding_mask",
    "inverted: True at the padding",
    explanation="In this course True means 'may attend': real tokens are True and padding is False, on the left as on the right.",
    hint="The real tokens are the last lengths[b]: np.arange(max_len)[None, :] >= (max_len - lengths)[:, None].",
)
def left_padding_inverted(lengths, max_len):
    return np.arange(max_len)[None, :] < (max_len - np.asarray(lengths))[:, None]


probe("sliding_window_mask", "a window of 3 over 6 positions", 6, 3)
probe("sliding_window_mask", "a window of 1 over 10 positions: the diagonal", 10, 1)
probe("sliding_window_mask", "a window longer than the sequence", 10, 13)
probe("document_mask", "three documents, ids not in order", np.array([4, 4, 1, 1, 1, 7]))
probe("left_padding_mask", "B != max_len, a full sequence and a length-1 one", np.array([3, 1, 5]), 5)
probe("left_padding_mask", "max_len longer than every sequence, lengths all different", np.array([2, 4, 1]), 6)


# ---------------------------------------------------------------- ALiBi and attention sinks (issue 39)


def _geometric(n):
    return 2.0 ** (-8.0 * np.arange(1, n + 1) / n)


@misconception(
    "alibi_slopes",
    "the slopes in reverse order: the shallowest head first",
    explanation="Head 1 has the steepest slope, 2^(-8/n) (1/2 for 8 heads), and each later head a gentler one, down to 2^(-8) = 1/256: the first heads look locally, the last ones far. Reversed (or sorted ascending), every head gets another head's slope.",
    hint="h runs from 1 to n in 2^(-8h/n): the slopes decrease.",
)
def alibi_slopes_reversed(n_heads):
    slopes = alibi_slopes(n_heads)
    return Alternatives([slopes[::-1], np.sort(slopes)])


@misconception(
    "alibi_slopes",
    "2^(-8h/n) for every n, also when n is not a power of two",
    explanation="The formula is the paper's for a power of two. For other n (12 heads, say) the paper takes the 8 slopes of 8 heads and then every other slope of 16 heads (√½, √⅛, ...), so that the slopes keep the power-of-two sequence's values instead of a new ratio.",
    hint="Let b = 2^floor(log2 n): the slopes of b heads, then the slopes of 2b heads [0::2], the first n − b of them.",
)
def alibi_slopes_plain_formula(n_heads):
    return _geometric(n_heads)


@misconception(
    "alibi_slopes",
    "heads counted from 0: the first slope is 1",
    explanation="The slopes are 2^(-8h/n) for h = 1 … n: the first is 2^(-8/n) and the last 2^(-8). Counting h from 0 gives the first head a slope of 1 and leaves out the gentlest one.",
    hint="np.arange(1, n + 1), not np.arange(n).",
)
def alibi_slopes_from_zero(n_heads):
    def from_zero(n):
        return 2.0 ** (-8.0 * np.arange(n) / n)

    below = 2 ** int(np.floor(np.log2(n_heads)))
    return Alternatives([from_zero(n_heads), np.concatenate([from_zero(below), from_zero(2 * below)[0::2][: n_heads - below]])])


def _distance(n):
    return np.arange(n)[:, None] - np.arange(n)[None, :]  # (n, n), i - j


@misconception(
    "alibi_bias",
    "the bias has the wrong sign: distant keys are rewarded",
    explanation="ALiBi penalises distance: the bias is −slope · (i − j), 0 on the diagonal and more negative the further back the key is, so the softmax leans towards recent tokens. +slope · (i − j) gives distant keys the largest scores.",
    hint="bias[h, i, j] = −slopes[h] · (i − j): negative below the diagonal.",
)
def alibi_bias_sign_flipped(n, n_heads):
    return alibi_slopes(n_heads)[:, None, None] * _distance(n)[None]


@misconception(
    "alibi_bias",
    "−slope · |i − j|: a penalty for future keys too",
    explanation="The contract's bias is the plain linear −slope · (i − j) on every cell: above the diagonal it is positive, and the causal mask hides those keys. |i − j| is the symmetric bias of encoders (and of no causal model): above the diagonal it differs.",
    hint="Use i − j, not its absolute value, and leave the future keys to the causal mask.",
)
def alibi_bias_absolute_distance(n, n_heads):
    return -alibi_slopes(n_heads)[:, None, None] * np.abs(_distance(n))[None]


@misconception(
    "alibi_bias",
    "the bias is masked above the diagonal (0 or −inf there)",
    explanation="alibi_bias returns the bias alone: the plain linear −slope · (i − j) on every cell. Masking is the causal mask's job (combined when the scores are masked); zeroing or filling the future cells here mixes the two, and a −inf in a bias breaks every use without a causal mask.",
    hint="Return −slopes[:, None, None] · (i − j) for every (i, j), above the diagonal too.",
)
def alibi_bias_masked_above_the_diagonal(n, n_heads):
    bias = -alibi_slopes(n_heads)[:, None, None] * _distance(n)[None]
    future = _distance(n) < 0
    return Alternatives([np.where(future, 0.0, bias), np.where(future, -np.inf, bias)])


probe("alibi_slopes", "64 heads, a power of two", 64)
probe("alibi_slopes", "48 heads: the 32 slopes of 32 heads, then 16 of 64 heads", 48)
probe("alibi_bias", "12 positions, 4 heads", 12, 4)
probe("alibi_bias", "13 positions, 3 heads (not a power of two)", 13, 3)


def _query_key(n):
    return np.arange(n)[:, None], np.arange(n)[None, :]


@misconception(
    "sink_window_mask",
    "the sinks are counted inside the window",
    explanation="StreamingLLM keeps the first n_sinks tokens on top of a window of the most recent ones: the window's window keys (the query and the window − 1 before it) are all recent tokens. Taking the sinks out of the window leaves only window − n_sinks recent keys.",
    hint="Keep j > i − window for the recent keys, and OR in j < n_sinks.",
)
def sink_window_sinks_inside_the_window(n, n_sinks, window):
    i, j = _query_key(n)
    return (j <= i) & ((j < n_sinks) | (j > i - (window - n_sinks)))


@misconception(
    "sink_window_mask",
    "the sinks are visible to every query, the earlier ones too",
    explanation="Sinks are the first tokens of the sequence, but attention stays causal: query 0 sees only key 0, even when there are 4 sinks. OR-ing the sink columns in after the causal condition lets the first queries read sinks that come after them.",
    hint="Put j ≤ i around both parts: (j ≤ i) & ((j < n_sinks) | (j > i − window)).",
)
def sink_window_sinks_see_the_future(n, n_sinks, window):
    i, j = _query_key(n)
    return (j < n_sinks) | ((j <= i) & (j > i - window))


@misconception(
    "sink_window_mask",
    "one key too many: the window reaches i − window",
    explanation="The window is the query itself and the window − 1 keys before it, as in sliding_window_mask: keys i − window + 1 … i. Allowing j ≥ i − window gives every query window + 1 recent keys.",
    hint="Keep keys with j > i − window (strictly).",
)
def sink_window_one_too_wide(n, n_sinks, window):
    i, j = _query_key(n)
    return (j <= i) & ((j < n_sinks) | (j >= i - window))


probe("sink_window_mask", "12 tokens, 2 sinks, a window of 4", 12, 2, 4)
probe("sink_window_mask", "13 tokens, 3 sinks, a window of 2 (fewer than the sinks)", 13, 3, 2)


@misconception(
    "causal_mask",
    "off by one: each query also sees the key right after it (np.tril with k=1)",
    explanation="Query i may see keys 0..i: np.tril with its default k=0 keeps the diagonal and what is below it. k=1 keeps one diagonal more, above: every query reads the next token, the first step of a leak of the future.",
    hint="np.tril(np.ones((n, n), dtype=bool)), k=0.",
)
def causal_sees_the_next_key(n):
    return np.tril(np.ones((n, n), dtype=bool), k=1)


@misconception(
    "sliding_window_mask",
    "the window mask as floats (0.0 and 1.0) instead of booleans",
    explanation="A mask in this course is boolean, True = may attend: it is used with np.where, &, ~. A float mask of 0 and 1 breaks ~ (it raises on floats) and np.where treats every nonzero float as True only by accident.",
    hint="Build it from comparisons, which are boolean already, or .astype(bool).",
)
def sliding_window_mask_float(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return ((j <= i) & (j > i - window)).astype(float)


@misconception(
    "document_mask",
    "the document mask as floats (0.0 and 1.0) instead of booleans",
    explanation="A mask in this course is boolean, True = may attend; combined with a causal mask by & it must be boolean too (& on floats raises).",
    hint="ids[:, None] == ids[None, :] is boolean already: return it as it is.",
)
def document_mask_float(document_ids):
    ids = np.asarray(document_ids)
    return (ids[:, None] == ids[None, :]).astype(float)


@misconception(
    "left_padding_mask",
    "the left padding mask as floats (0.0 and 1.0) instead of booleans",
    explanation="A padding mask is boolean, True at real tokens: the attention functions hide keys with it through np.where and &, which a float mask breaks.",
    hint="Return the comparison itself: np.arange(max_len)[None, :] >= (max_len - lengths)[:, None].",
)
def left_padding_float(lengths, max_len):
    lengths = np.asarray(lengths)
    return (np.arange(max_len)[None, :] >= (max_len - lengths)[:, None]).astype(float)


@misconception(
    "sink_window_mask",
    "off by one: j <= n_sinks keeps one sink too many",
    explanation="The sinks are the first n_sinks tokens, positions 0..n_sinks-1: j < n_sinks. With <= the token after the last sink stays visible to every later query as if it were a sink.",
    hint="(j < n_sinks) | (j > i - window), and j <= i for both.",
)
def sink_window_one_sink_too_many(n, n_sinks, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (j <= i) & ((j <= n_sinks) | (j > i - window))


@misconception(
    "alibi_bias",
    "the heads on the last axis: (n, n, n_heads) instead of (n_heads, n, n)",
    explanation="The bias is added to scores of shape (..., n_heads, n, n): the head axis comes first. Multiplying the (n, n) distances by the slopes on a new last axis gives (n, n, n_heads), which lines the heads up with the keys.",
    hint="slopes[:, None, None] * (j - i)[None, :, :].",
)
def alibi_bias_heads_last(n, n_heads):
    distance = np.arange(n)[:, None] - np.arange(n)[None, :]
    return -distance[:, :, None] * alibi_slopes(n_heads)[None, None, :]


def _alibi_with_extra(n_heads, pick):
    below = 2 ** int(np.floor(np.log2(n_heads)))
    return np.concatenate([_geometric(below), pick(_geometric(2 * below))[: n_heads - below]])


@misconception(
    "alibi_slopes",
    "the extra slopes of 2n' heads taken at [1::2] (the 2nd, 4th, …), which repeat the first n' slopes",
    explanation="For n heads not a power of two, the extra slopes are the 1st, 3rd, 5th, … of the 2n'-head sequence, [0::2] in 0-based indexing: the ones that fall between the n'-head slopes. The 2nd, 4th, … ([1::2]) are 2^(-8h/n') again, the n'-head slopes themselves, so some heads end up with the same slope.",
    hint="slopes_of(2 * n')[0::2][: n - n'].",
)
def alibi_slopes_odd_extras(n_heads):
    return _alibi_with_extra(n_heads, lambda slopes: slopes[1::2])


@misconception(
    "alibi_slopes",
    "the extra slopes are the first n − n' of 2n' heads, not every other one",
    explanation="The paper takes every other slope of the 2n'-head sequence (its 1st, 3rd, 5th, …) so that the extra heads spread over the whole range of slopes. The first n − n' of that sequence in a row are all steep ones, and half of them repeat slopes the first n' heads already have.",
    hint="slopes_of(2 * n')[0::2][: n - n'], with the stride of 2.",
)
def alibi_slopes_extras_without_stride(n_heads):
    return _alibi_with_extra(n_heads, lambda slopes: slopes)


@misconception(
    "document_mask",
    "ids == ids.T on a 1-D array: .T changes nothing, and the mask is one row of True",
    explanation="The transpose of a 1-D array is the same array, so ids == ids.T compares each position with itself and gives T values, all True, not a (T, T) matrix. A column against a row needs the length-1 axes: ids[:, None] == ids[None, :].",
    hint="ids[:, None] == ids[None, :] (or np.equal.outer(ids, ids)).",
)
def document_mask_transpose_of_1d(document_ids):
    ids = np.asarray(document_ids)
    return ids == ids.T
