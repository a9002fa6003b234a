"""The lab's three files: ``induction.json`` (every logged number), ``induction.png`` (the losses
and every head's scores over the steps) and ``induction.html`` (the figure, a table of the final
scores and what happened, in words). ``summary`` picks out the heads that matter and says what
they did; the terminal's summary and the page both read it.
"""

from __future__ import annotations

import base64
import html
import io
import math
from dataclasses import dataclass
from pathlib import Path

from attnlab.atomic import write_bytes_atomically, write_json_atomically, write_text_atomically
from attnlab.lab.training import Run

NO_MATPLOTLIB = "matplotlib is not installed, so there is no figure: pip install 'matplotlib>=3.7,<4' (the JSON and the page's table are written)"


@dataclass(frozen=True)
class Summary:
    """The run's story: the strongest heads of layer 1 and layer 2, and the final losses."""

    previous_head: str
    previous_score: float
    induction_head: str
    induction_score: float
    loss_first: float
    loss_repeated: float
    chance: float
    """ln V: the loss of a uniform guess, the best possible on random tokens."""
    steps: int
    seconds: float


def summary(run: Run) -> Summary:
    last = run.records[-1]
    heads = len(last.previous[0])
    layer1 = max(range(heads), key=lambda h: last.previous[0][h])
    layer2 = max(range(heads), key=lambda h: last.induction[-1][h])
    n_layers = len(last.induction)
    return Summary(
        f"L1H{layer1}",
        last.previous[0][layer1],
        f"L{n_layers}H{layer2}",
        last.induction[-1][layer2],
        last.loss_first,
        last.loss_repeated,
        math.log(run.settings.vocab),
        last.step,
        run.seconds,
    )


def summary_lines(found: Summary) -> list[str]:
    """Three to five lines for the terminal."""
    lines = [
        f"induction head: {found.induction_head}, induction score {found.induction_score:.2f} (1.0: all its weight on the token after the earlier copy)",
        f"previous-token head: {found.previous_head}, previous-token score {found.previous_score:.2f}",
        f"loss on the repeated half {found.loss_repeated:.2f}, on the first half {found.loss_first:.2f} (chance: ln V = {found.chance:.2f})",
    ]
    if not formed(found):
        lines.append("no clear induction head yet: try more --steps, or another --seed")
    lines.append(f"{found.steps} steps in {found.seconds:.0f} s")
    return lines


FORWARD_RTOL = 1e-4
"""The trained model computes in float32: a forward within this share of the logits' scale is it."""


def forward_line(run: Run) -> tuple[str, bool]:
    """What the check of the student's ``attention_only_forward`` on the trained weights found, in
    one line, and whether it reproduced the model (``("", True)`` when it was not run)."""
    if run.forward_problem:
        return (
            f"your attention_only_forward raised {run.forward_problem} on the trained weights "
            "(attnlab check --only induction says what differs)",
            False,
        )
    if run.forward_difference is None:
        return "", True
    if run.forward_difference <= FORWARD_RTOL:
        return (
            f"your numpy attention_only_forward gives the trained model's logits (to {run.forward_difference:.1e} of "
            "their scale): it is this model",
            True,
        )
    return (
        f"your attention_only_forward does not give the trained model's logits (off by {run.forward_difference:.3g} of "
        "their scale): attnlab check --only induction says what differs",
        False,
    )


def formed(found: Summary) -> bool:
    """Whether the run shows an induction head: a layer-2 head mostly on its targets, and the repeat predicted."""
    return found.induction_score > 0.5 and found.loss_repeated < found.loss_first / 2


def figure_png(run: Run) -> bytes:
    """The losses of both halves and every head's two scores over the steps, as a PNG (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    steps = [r.step for r in run.records]
    figure = Figure(figsize=(13, 3.8), layout="constrained")
    loss, previous, induction = figure.subplots(1, 3)
    loss.plot(steps, [r.loss_first for r in run.records], label="first half (random)")
    loss.plot(steps, [r.loss_repeated for r in run.records], label="repeated half")
    loss.axhline(math.log(run.settings.vocab), color="grey", linestyle=":", label="chance (ln V)")
    loss.set(title="Loss", xlabel="step", ylabel="cross-entropy (nats)")
    loss.legend(fontsize=8)
    n_heads = len(run.records[0].previous[0])
    for axes, key, title in (
        (previous, "previous", "Previous-token score"),
        (induction, "induction", "Induction score"),
    ):
        for index, name in enumerate(run.heads):
            layer, head = divmod(index, n_heads)
            values = [getattr(r, key)[layer][head] for r in run.records]
            axes.plot(steps, values, label=name, linestyle="-" if layer == 0 else "--")
        axes.set(title=title, xlabel="step", ylim=(0, 1))
        axes.legend(fontsize=7, ncol=2)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def story(found: Summary) -> list[str]:
    """A few sentences a student reads on the page."""
    said = [
        f"Each sequence was a random half, then the same half again. The first half cannot be predicted: "
        f"its loss stays near chance (ln V = {found.chance:.2f}; it ends at {found.loss_first:.2f}, a little "
        "above where the model bets on a copy that does not come). The repeated half can be, by looking back: "
        f"its loss ends at {found.loss_repeated:.2f}.",
        f"In layer 1, {found.previous_head} became a previous-token head: each token attends to the token just "
        f"before it (score {found.previous_score:.2f}), and so writes into the residual stream which token preceded it.",
        f"In layer 2, {found.induction_head} became an induction head (score {found.induction_score:.2f}): a token "
        "attends to the token that followed an earlier copy of itself, and copies it as its prediction.",
        "Neither head could do it alone. The layer-2 head finds its target by a key that layer 1 wrote (\"the token "
        "before me was X\"): the layers compose, and a one-layer model cannot form an induction head.",
    ]
    if not formed(found):
        return [
            said[0],
            f"In this run no head clearly became an induction head yet (an induction score above 0.5, and the "
            f"repeated half's loss well below the first half's): so far the strongest are {found.previous_head} in "
            f"layer 1 (previous-token score {found.previous_score:.2f}) and {found.induction_head} in layer 2 "
            f"(induction score {found.induction_score:.2f}). Try more steps, or another seed.",
            said[3],
        ]
    return said


def page(run: Run, png: bytes | None, notes: list[str]) -> str:
    """The self-contained HTML page."""
    found = summary(run)
    last = run.records[-1]
    n_heads = len(last.previous[0])
    rows = []
    for index, name in enumerate(run.heads):
        layer, head = divmod(index, n_heads)
        mark = " ← " if name in (found.previous_head, found.induction_head) else ""
        rows.append(
            f"<tr><td>{name}{mark}</td><td>{last.previous[layer][head]:.3f}</td><td>{last.induction[layer][head]:.3f}</td></tr>"
        )
    figure = (
        f'<img alt="losses and head scores over the steps" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
        if png
        else "<p><em>No figure: matplotlib is not installed.</em></p>"
    )
    settings = run.settings
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>attnlab lab: induction heads</title>
<style>body{{font-family:sans-serif;max-width:70em;margin:2em auto;line-height:1.45}}img{{max-width:100%}}
table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:.2em .7em;text-align:right}}td:first-child{{text-align:left}}</style>
</head><body>
<h1>Induction heads, formed by your attention</h1>
{"".join(f"<p><em>{html.escape(note)}</em></p>" for note in notes)}
{"".join(f"<p>{html.escape(line[:1].upper() + line[1:])}.</p>" for line, ok in [forward_line(run)] if line and ok)}
{"".join(f"<p>{html.escape(sentence)}</p>" for sentence in story(found))}
{figure}
<h2>Final scores, step {last.step}</h2>
<table><tr><th>head</th><th>previous-token</th><th>induction</th></tr>
{"".join(rows)}
</table>
<p>A two-layer, attention-only model (d_model {settings.d_model}, {settings.n_heads} heads a layer) of your
MultiHeadSelfAttention, trained for {found.steps} steps ({found.seconds:.0f} s) on vocabulary {settings.vocab},
halves of {settings.half} tokens, seed {settings.seed}. Scores on {settings.eval_batch} held-out sequences.</p>
</body></html>
"""


def write_outputs(run: Run, out: Path, notes: list[str]) -> tuple[list[Path], str]:
    """Write the three files into ``out`` (made if need be); the paths written, and a line when there is no figure."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "induction.json"]
    write_json_atomically(written[0], run.to_json())
    try:
        png = figure_png(run)
    except ImportError:
        png, missing = None, NO_MATPLOTLIB
    else:
        missing = ""
        written.append(out / "induction.png")
        write_bytes_atomically(written[-1], png)
    written.append(out / "induction.html")
    write_text_atomically(written[-1], page(run, png, notes + ([missing] if missing else [])))
    return written, missing
