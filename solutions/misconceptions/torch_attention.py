"""Known wrong versions of the PyTorch track's MultiHeadSelfAttention.

Each entry is a module class built like the reference, with one thing done the
way students get it wrong. ``_Configurable`` holds the shared body; an entry
changes one switch or one method. A query that may see no key is a rule of its own: a student
whose mistake is elsewhere leaves its row nan (-inf everywhere) or zero, so each entry gives both
answers where they differ (``_both_ways_for_a_blind_query``).
"""

import math

import numpy as np
import torch
from torch import nn
from torch_attention import MultiHeadSelfAttention

from attnlab.misconceptions import Alternatives, misconception, probe
from attnlab.sandbox.inside.module_harness import drive


class _Configurable(MultiHeadSelfAttention):
    """The reference, written out with one switch per known mistake (all off: the reference)."""

    mask_on_input_device = True
    softmax_dim = -1
    heads_transposed = True
    rope_on_values = False
    rope_adjacent_pairs = True
    linear_transposed = True
    padding_on_keys = True
    scale_width = "d_head"
    values_detached = False
    table_in_input_dtype = False
    blind_rows_zeroed = False
    """A query that may see no key: its row nan (False), or finite scores and a zero output (True)."""
    projection_slip = None
    """A copy-paste slip, {"v": "k_proj"}: a projection made with another's layer."""
    with_output_projection = True
    rope_exponent_step = 2
    """2: pair i turns at theta^(-2i/d); 1: theta^(-i/d)."""
    rope_turn = 1.0
    """+1: each pair turns by +angle; -1: the other way."""
    masked_score = float("-inf")

    def _project(self, layer, x):
        return layer(x) if self.linear_transposed else x @ layer.weight

    def _split(self, y, batch, t):
        if self.heads_transposed:
            return y.view(batch, t, self.n_heads, self.d_head).transpose(1, 2)
        return y.view(batch, self.n_heads, t, self.d_head)

    def _merge(self, y, batch, t, d_model):
        if self.heads_transposed:
            return y.transpose(1, 2).reshape(batch, t, d_model)
        return y.reshape(batch, t, d_model)

    def _rotate(self, y, t, x):
        d = self.d_head
        table = x.dtype if self.table_in_input_dtype else torch.promote_types(x.dtype, torch.float32)
        exponents = torch.arange(0, d, 2, device=x.device, dtype=table) * (self.rope_exponent_step / 2)
        frequencies = self.rope_theta ** (-exponents / d)
        angles = torch.arange(t, device=x.device, dtype=table)[:, None] * frequencies[None, :]
        cos, sin = torch.cos(angles).to(x.dtype), (self.rope_turn * torch.sin(angles)).to(x.dtype)
        if self.rope_adjacent_pairs:
            even, odd = y[..., 0::2], y[..., 1::2]
            return torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1).flatten(-2)
        first, second = y[..., : d // 2], y[..., d // 2 :]
        return torch.cat([first * cos - second * sin, first * sin + second * cos], dim=-1)

    def _allowed(self, t, x):
        device = x.device if self.mask_on_input_device else None
        allowed = torch.ones(t, t, dtype=torch.bool, device=device)
        return torch.tril(allowed) if self.causal else allowed

    def forward(self, x, key_padding_mask=None):
        batch, t, d_model = x.shape
        layers = {"q": self.q_proj, "k": self.k_proj, "v": self.v_proj}
        for name, other in (self.projection_slip or {}).items():
            layers[name] = getattr(self, other)
        q, k, v = (self._split(self._project(layers[name], x), batch, t) for name in ("q", "k", "v"))
        if self.values_detached:
            v = v.detach()
        if self.rope_theta is not None:
            q, k = self._rotate(q, t, x), self._rotate(k, t, x)
            if self.rope_on_values:
                v = self._rotate(v, t, x)
        width = {"d_head": self.d_head, "d_model": d_model, "none": 1, "d_head_squared": self.d_head**2}[self.scale_width]
        scores = q @ k.transpose(-1, -2) / math.sqrt(width)
        allowed = self._allowed(t, x)
        if key_padding_mask is not None:
            axis = key_padding_mask[:, None, None, :] if self.padding_on_keys else key_padding_mask[:, None, :, None]
            allowed = allowed & axis
        if self.blind_rows_zeroed:
            sees = allowed.any(dim=-1, keepdim=True)
            weights = torch.softmax(scores.masked_fill(~allowed & sees, self.masked_score), dim=self.softmax_dim)
            heads = (weights @ v).masked_fill(~sees, 0.0)
        else:
            weights = torch.softmax(scores.masked_fill(~allowed, self.masked_score), dim=self.softmax_dim)
            heads = weights @ v
        merged = self._merge(heads, batch, t, d_model)
        return self._project(self.o_proj, merged) if self.with_output_projection else merged


def _both_ways_for_a_blind_query(entry):
    """The entry as a call of one request: its answer, and where a query may see no key, also the
    answer of the same mistake with that row zeroed (the course's rule kept)."""
    zeroed = type(entry.__name__, (entry,), {"blind_rows_zeroed": True})

    def answer(request):
        first = drive(entry, request)
        output = first.get("output") if isinstance(first, dict) else None
        if output is None or not np.isnan(np.asarray(output, dtype=float)).any():
            return first
        return Alternatives([first, drive(zeroed, request)])

    answer.__name__ = entry.__name__
    return answer


@misconception(
    "MultiHeadSelfAttention",
    "a mask or position table is built on the CPU instead of on x.device",
    explanation="torch.ones(T, T) and torch.arange(T) make CPU tensors. On a GPU (or the meta device the grader uses to check) they meet x's tensors on another device and forward fails. The module must work wherever .to(device) moved it.",
    hint="Pass device=x.device to every tensor forward creates: torch.ones(T, T, dtype=torch.bool, device=x.device); build angle tables in float32 on x.device and cast them to x.dtype.",
    about_raising=True,
)
@_both_ways_for_a_blind_query
class torch_mask_on_cpu(_Configurable):
    mask_on_input_device = False


@misconception(
    "MultiHeadSelfAttention",
    "the RoPE angle table is computed in the input's half-precision dtype",
    explanation="float16 has 11 significant bits: past position 512 an angle p·θ_i is rounded by up to a quarter radian, and at T = 2048 cosines are off by up to 0.78; bfloat16 cannot even count the positions past 256. The rotation, and with it every score, is wrong at large positions.",
    hint="Build positions, frequencies and angles in float32 (torch.promote_types(x.dtype, torch.float32)), then cast cos and sin to x.dtype.",
)
@_both_ways_for_a_blind_query
class torch_rope_table_in_half(_Configurable):
    table_in_input_dtype = True


@misconception(
    "MultiHeadSelfAttention",
    "the causal mask is made once, at a fixed size",
    explanation="A mask registered in __init__ for some maximum length (say 512 or 1024) breaks for any longer sequence; a self-attention module has no maximum T.",
    hint="Build the mask in forward for this T: torch.tril(torch.ones(T, T, dtype=torch.bool, device=x.device)).",
    about_raising=True,
)
@_both_ways_for_a_blind_query
class torch_fixed_size_mask(_Configurable):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register_buffer("mask", torch.tril(torch.ones(512, 512, dtype=torch.bool)), persistent=False)

    def _allowed(self, t, x):
        return self.mask[:t, :t] if self.causal else torch.ones(t, t, dtype=torch.bool, device=x.device)


@misconception(
    "MultiHeadSelfAttention",
    "the softmax runs over dim=-2, the queries",
    explanation="Scores are (B, h, T_queries, T_keys). Each query's weights must sum to 1 over the keys, the last axis; dim=-2 normalises each key's column over the queries instead.",
    hint="torch.softmax(scores, dim=-1).",
)
@_both_ways_for_a_blind_query
class torch_softmax_over_queries(_Configurable):
    softmax_dim = -2


@misconception(
    "MultiHeadSelfAttention",
    "heads are split with view(B, n_heads, T, d_head), without the transpose",
    explanation="(B, T, d_model) viewed as (B, n_heads, T, d_head) cuts the flat memory in order, so a 'head' gets pieces of several tokens. A head must take its own d_head feature columns of every token.",
    hint="view(B, T, n_heads, d_head).transpose(1, 2), and transpose back before merging.",
)
@_both_ways_for_a_blind_query
class torch_heads_view_without_transpose(_Configurable):
    heads_transposed = False


@misconception(
    "MultiHeadSelfAttention",
    "RoPE is applied to the values too",
    explanation="RoPE encodes position in the *scores*: rotating queries and keys makes q·k depend on i - j. Values carry content into the output; rotating them mixes position into what is averaged.",
    hint="Rotate q and k only; leave v as the projection made it.",
)
@_both_ways_for_a_blind_query
class torch_rope_on_values(_Configurable):
    rope_on_values = True


@misconception(
    "MultiHeadSelfAttention",
    "RoPE rotates the two halves (i, i + d/2) instead of adjacent pairs",
    explanation="The course's RoPE (docs/contract.md, as positions.rope) turns adjacent pairs (x[2i], x[2i+1]). The GPT-NeoX 'rotate half' layout pairs x[i] with x[i + d/2]: also a rotation, but not the same one.",
    hint="even, odd = q[..., 0::2], q[..., 1::2]; interleave the rotated pairs back with stack(..., dim=-1).flatten(-2).",
)
@_both_ways_for_a_blind_query
class torch_rope_halves(_Configurable):
    rope_adjacent_pairs = False


@misconception(
    "MultiHeadSelfAttention",
    "an nn.Linear weight is used without its transpose (x @ W)",
    explanation="nn.Linear stores its weight as (out, in) and computes x @ W.T. Multiplying x @ self.q_proj.weight uses the transposed map: the transpose of the numpy track's W_Q.",
    hint="Call the layer, self.q_proj(x), or write x @ self.q_proj.weight.T.",
)
@_both_ways_for_a_blind_query
class torch_linear_weight_untransposed(_Configurable):
    linear_transposed = False


@misconception(
    "MultiHeadSelfAttention",
    "the projections keep nn.Linear's default bias",
    explanation="nn.Linear(d_model, d_model) has a bias unless told otherwise; the contract's projections have none, so the state dict gains q_proj.bias ... and every output is shifted.",
    hint="nn.Linear(d_model, d_model, bias=False) for all four projections.",
)
@_both_ways_for_a_blind_query
class torch_linear_with_bias(_Configurable):
    def __init__(self, d_model, n_heads, causal=True, rope_theta=None):
        nn.Module.__init__(self)
        self.n_heads, self.d_head, self.causal, self.rope_theta = n_heads, d_model // n_heads, causal, rope_theta
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (nn.Linear(d_model, d_model) for _ in range(4))


@misconception(
    "MultiHeadSelfAttention",
    "the padding mask hides padded queries instead of padded keys",
    explanation="key_padding_mask says which *keys* are real: every real query must give padded keys weight 0. Masking along the query axis blanks padded rows (all -inf: nan) and lets real queries still read the padding.",
    hint="allowed & key_padding_mask[:, None, None, :]: (B, 1, 1, T) broadcasts over heads and queries.",
)
@_both_ways_for_a_blind_query
class torch_padding_masks_queries(_Configurable):
    padding_on_keys = False


@misconception(
    "MultiHeadSelfAttention",
    "scores are scaled by √d_model instead of √d_head",
    explanation="Each head's dot products are over d_head = d_model / n_heads features, so their variance grows with d_head, and that is what the scale undoes.",
    hint="Divide by math.sqrt(self.d_head) (d_model // n_heads).",
)
@_both_ways_for_a_blind_query
class torch_scaled_by_d_model(_Configurable):
    scale_width = "d_model"


@misconception(
    "MultiHeadSelfAttention",
    "no 1/√d_head scale",
    explanation="A dot product of d_head unit-variance terms has variance d_head; unscaled, the softmax saturates as heads widen (almost one-hot at d_head = 256) and its gradients vanish. In float16 the unscaled scores also lose precision first, so the half-precision tests fail with it.",
    hint="Divide the scores by math.sqrt(self.d_head) before the softmax.",
)
@_both_ways_for_a_blind_query
class torch_no_scale(_Configurable):
    scale_width = "none"


@misconception(
    "MultiHeadSelfAttention",
    "the values are detached from the autograd graph",
    explanation="v.detach() (or .data, or a numpy round trip) gives the right forward output but no gradient flows back through the values: v_proj never learns and x's gradient is wrong.",
    hint="Keep every step in torch operations on the tensors forward received; never detach inside forward.",
)
@_both_ways_for_a_blind_query
class torch_values_detached(_Configurable):
    values_detached = True


@misconception(
    "MultiHeadSelfAttention",
    "key_padding_mask read the way nn.MultiheadAttention reads it (True = padding)",
    explanation="nn.MultiheadAttention's key_padding_mask is True at the padding, to be ignored; this course's (like F.scaled_dot_product_attention's attn_mask) is True at the real tokens. Filling where the mask is True hides the real keys and lets queries read the padding.",
    hint="Hide the keys where the mask is False: scores.masked_fill(~key_padding_mask[:, None, None, :], float('-inf')).",
)
@_both_ways_for_a_blind_query
class torch_padding_mask_as_nn_mha(_Configurable):
    def forward(self, x, key_padding_mask=None):
        return super().forward(x, None if key_padding_mask is None else ~key_padding_mask)


@misconception(
    "MultiHeadSelfAttention",
    "causal=True is ignored",
    explanation="A decoder's token t must not see tokens after it; without the causal mask it reads the future, in training and at every generation step.",
    hint="When self.causal, mask the scores with torch.tril(torch.ones(T, T, dtype=torch.bool, device=x.device)).",
)
@_both_ways_for_a_blind_query
class torch_ignores_causal(_Configurable):
    def _allowed(self, t, x):
        return torch.ones(t, t, dtype=torch.bool, device=x.device)


@misconception(
    "MultiHeadSelfAttention",
    "heads are merged without moving the head axis back (reshape of (B, n_heads, T, d_head))",
    explanation="The per-head outputs are (B, n_heads, T, d_head). Reshaped straight to (B, T, d_model), the flat memory runs head by head, so each 'token' row gathers pieces of several tokens of one head.",
    hint="out.transpose(1, 2).reshape(B, T, d_model): tokens first, then each token's heads side by side.",
)
@_both_ways_for_a_blind_query
class torch_merge_without_transpose(_Configurable):
    def _merge(self, y, batch, t, d_model):
        return y.reshape(batch, t, d_model)


@misconception(
    "MultiHeadSelfAttention",
    "scores are divided by d_head instead of √d_head",
    explanation="The scale is 1/√d_head: a dot product of d_head unit-variance terms has variance d_head, so its standard deviation is √d_head. Dividing by d_head itself shrinks the scores too much and flattens every softmax.",
    hint="scores / math.sqrt(self.d_head).",
)
@_both_ways_for_a_blind_query
class torch_scaled_by_d_head(_Configurable):
    scale_width = "d_head_squared"


@misconception(
    "MultiHeadSelfAttention",
    "the softmax runs over dim=1, the heads",
    explanation="Scores are (B, n_heads, T_queries, T_keys): each query's weights must sum to 1 over its keys, the last axis. dim=1 normalises every cell across the heads instead, so no query's row is a distribution.",
    hint="torch.softmax(scores, dim=-1).",
)
@_both_ways_for_a_blind_query
class torch_softmax_over_heads(_Configurable):
    softmax_dim = 1


@misconception(
    "MultiHeadSelfAttention",
    "the causal mask is inverted (True on the future)",
    explanation="The mask's True cells are those a query may attend to: the lower triangle with its diagonal. torch.triu(..., diagonal=1) is the future: each query sees only later tokens, and the last one none at all.",
    hint="allowed = torch.tril(torch.ones(T, T, dtype=torch.bool, device=x.device)).",
)
@_both_ways_for_a_blind_query
class torch_causal_inverted(_Configurable):
    def _allowed(self, t, x):
        allowed = torch.ones(t, t, dtype=torch.bool, device=x.device)
        return torch.triu(allowed, diagonal=1) if self.causal else allowed


@misconception(
    "MultiHeadSelfAttention",
    "the output projection o_proj is never applied",
    explanation="After the heads are merged back to (B, T, d_model), o_proj mixes what they found: without it the layer only concatenates, and o_proj's weight gets no gradient.",
    hint="return self.o_proj(merged).",
)
@_both_ways_for_a_blind_query
class torch_no_output_projection(_Configurable):
    with_output_projection = False


def _projection_slips(request):
    """One of q, k, v made with another's layer: every such copy-paste slip, as alternatives."""
    answers = []
    for slip in ({"v": "k_proj"}, {"v": "q_proj"}, {"k": "q_proj"}, {"q": "k_proj"}, {"k": "v_proj"}, {"q": "v_proj"}):
        entry = type("torch_projection_slip", (_Configurable,), {"projection_slip": slip})
        answers.append(_both_ways_for_a_blind_query(entry)(request))
    return Alternatives(answers)


def torch_projection_slip(request):
    return _projection_slips(request)


misconception(
    "MultiHeadSelfAttention",
    "one of q, k, v is made with another's projection (a copy-paste slip among q_proj, k_proj, v_proj)",
    explanation="Each of the three views has its own layer: q = q_proj(x), k = k_proj(x), v = v_proj(x). Using one layer twice runs (they all have the same shape) and gives other numbers; the layer left out gets no gradient.",
    hint="Check each line: q from q_proj, k from k_proj, v from v_proj.",
)(torch_projection_slip)



@misconception(
    "MultiHeadSelfAttention",
    "RoPE frequencies theta^(-i/d) instead of theta^(-2i/d)",
    explanation="Pair i turns at theta^(-2i/d_head): the exponent runs over the even indices 0, 2, …, d_head − 2, so the slowest pair turns at almost 1/theta. torch.arange(d_head // 2) / d_head stops at about 1/2, and every pair but the first turns too fast.",
    hint="self.rope_theta ** (-torch.arange(0, d_head, 2) / d_head).",
)
@_both_ways_for_a_blind_query
class torch_rope_frequencies_halved(_Configurable):
    rope_exponent_step = 1


@misconception(
    "MultiHeadSelfAttention",
    "RoPE turns the other way: the sine's sign flipped",
    explanation="Pair (x[2i], x[2i+1]) turns by +angle: out[2i] = x[2i] cos − x[2i+1] sin, out[2i+1] = x[2i] sin + x[2i+1] cos. With the signs of the sine swapped, every pair turns by −angle, and the queries and keys are not the contract's (or those of positions.rope).",
    hint="even * cos - odd * sin, then even * sin + odd * cos.",
)
@_both_ways_for_a_blind_query
class torch_rope_wrong_direction(_Configurable):
    rope_turn = -1.0


@misconception(
    "MultiHeadSelfAttention",
    "masked scores set to 0 (scores * mask, or masked_fill with 0) instead of -inf",
    explanation="A score of 0 is not 'no weight': exp(0) = 1, so a hidden key still gets as much weight as any key of score 0, and the causal or padding mask leaks. The masked scores must be -inf before the softmax, so that exp gives exactly 0.",
    hint="scores.masked_fill(~allowed, float('-inf')), with allowed True where a query may attend.",
)
@_both_ways_for_a_blind_query
class torch_masked_scores_zero(_Configurable):
    masked_score = 0.0


def _request(x, *, n_heads=2, causal=True, rope_theta=None, mask=None, device="cpu", weights=None, grad_output=None, dtype="float64"):
    d_model = x.shape[-1]
    rng = np.random.default_rng(80 + d_model)
    if weights is None:
        weights = {name: rng.normal(size=(d_model, d_model)) / math.sqrt(d_model) for name in ("q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight")}
    return {
        "init": {"d_model": d_model, "n_heads": n_heads, "causal": causal, "rope_theta": rope_theta},
        "weights": weights, "x": list(x.shape) if device == "meta" else x, "key_padding_mask": mask,
        "dtype": dtype, "device": device, "grad_output": grad_output,
    }


_RNG = np.random.default_rng(81)
_X = _RNG.normal(size=(2, 3, 4))
_PADDED = np.array([[True, True, False], [True, True, True]])
probe("MultiHeadSelfAttention", "causal, a padded sequence, with gradients", _request(_X, mask=_PADDED, grad_output=_RNG.normal(size=(2, 3, 4))))
probe("MultiHeadSelfAttention", "RoPE, not causal, d_head = 4", _request(_RNG.normal(size=(1, 4, 8)), rope_theta=100.0, causal=False))
probe("MultiHeadSelfAttention", "on the meta device, causal and padded", _request(_X, mask=_PADDED, device="meta"))
probe("MultiHeadSelfAttention", "T = 600, longer than a mask fixed at 512", _request(_RNG.normal(size=(1, 600, 2)), n_heads=1))
probe("MultiHeadSelfAttention", "RoPE in float16 at T = 1024, one head of 16", _request(_RNG.normal(size=(1, 1024, 16)), n_heads=1, rope_theta=10000.0, causal=False, dtype="float16"))
