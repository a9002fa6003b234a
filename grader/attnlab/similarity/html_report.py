"""The pairs worth a look as one HTML page: each pair's files side by side, the matching passages
marked, the stubs' own lines greyed.

One file that reads offline: its style inline, no script, no outside resource. Every student's
text and id goes through Jinja's autoescaping (student code is untrusted: it may hold
``</script>`` or an ``<img onerror=...>``).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import jinja2

from attnlab.similarity.scoring import FileMatch, Pair, Similarity
from attnlab.similarity.terminal import SIGNAL, percent

CONTEXT_LINES = 3
"""Lines shown around a matching passage; the others are folded into one line saying how many."""


@dataclass(frozen=True)
class Line:
    number: int
    parts: tuple[tuple[str, bool], ...]
    """The line's text in parts, each marked True where it is in a matching passage."""
    stub: bool
    """The line is one of the stub's own lines: greyed, and never marked."""


@dataclass(frozen=True)
class Folded:
    lines: int
    """Lines left out here: no passage of them matches."""


def code_lines(text: str, passages: tuple[tuple[int, int], ...], stub_lines: frozenset[str]) -> list[Line | Folded]:
    """``text`` as numbered lines, its ``passages`` (character offsets) marked but for the stub's
    own lines (a passage runs over the docstrings between the code it matches), lines far from any
    passage folded."""
    spans = sorted(passages)
    starts = [s for s, _ in spans]
    rows: list[Line] = []
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        end = offset + len(line)
        body = line.rstrip("\r\n")
        parts, at = [], offset
        index = max(0, bisect.bisect_right(starts, offset) - 1)
        for start, stop in spans[index:]:
            if start >= offset + len(body):
                break
            start, stop = max(start, at), min(stop, offset + len(body))
            if stop <= start:
                continue
            if start > at:
                parts.append((text[at:start], False))
            parts.append((text[start:stop], True))
            at = stop
        if at < offset + len(body):
            parts.append((text[at : offset + len(body)], False))
        if body.strip() in stub_lines:  # the stub's own line: subtracted, never shown as shared
            rows.append(Line(number, ((body, False),), True))
        else:
            rows.append(Line(number, tuple(parts), False))
        offset = end
    near = {
        row.number + shift
        for row in rows
        if any(marked for _, marked in row.parts)
        for shift in range(-CONTEXT_LINES, CONTEXT_LINES + 1)
    }
    shown: list[Line | Folded] = []
    for row in rows:
        if row.number in near:
            shown.append(row)
        elif shown and isinstance(shown[-1], Folded):
            shown[-1] = Folded(shown[-1].lines + 1)
        else:
            shown.append(Folded(1))
    return shown


def _stub_lines(stub: str) -> frozenset[str]:
    return frozenset(line.strip() for line in stub.splitlines() if line.strip())


TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>{{ title }}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 90em; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 2.5em; border-top: 1px solid #ccc; padding-top: 1em; }
h3 { font-size: 1em; }
.signal { background: #fff8e1; border-left: 4px solid #f9a825; padding: .5em 1em; }
table.pairs { border-collapse: collapse; } table.pairs td, table.pairs th { padding: .2em .8em; border-bottom: 1px solid #ddd; text-align: left; }
td.num { text-align: right; }
.sides { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1em; }
.side h4 { margin: .3em 0; font-size: .95em; }
pre { font-size: .82em; background: #fafafa; border: 1px solid #e0e0e0; padding: .5em; overflow-x: auto; margin: 0; }
pre span.n { display: inline-block; width: 3.5em; color: #999; user-select: none; }
mark { background: #ffe082; }
.stub { color: #aaa; }
.folded { color: #888; font-style: italic; }
</style></head><body>
<h1>{{ title }}</h1>
<p class="signal">{{ signal }}</p>
<p>{{ students }} compared, file by file. Not counted as shared: the stubs' own text (signatures,
docstrings, hints; greyed below) and passages found in more than {{ common_in }} students' files.
A file's score is the smaller of two shares: the part of each student's own code in that file
found in the other's. Names, strings, comments and spacing are ignored, so a copy with its
variables renamed still matches. Pairs shown: those scoring {{ threshold }} or more{% if more %}
(the first {{ pairs|length }}; {{ more }} more scored as much){% endif %}.</p>
{% if not pairs %}<p><strong>No pair scores {{ threshold }} or more.</strong></p>{% else %}
<table class="pairs"><thead><tr><th>#</th><th>students</th><th>score</th><th>files alike</th><th>own code shared</th></tr></thead><tbody>
{% for pair in pairs %}<tr><td class="num">{{ loop.index }}</td><td><a href="#pair-{{ loop.index }}">{{ pair.a }} and {{ pair.b }}</a></td>
<td class="num">{{ percent(pair.score) }}</td><td>{{ files_cell(pair) }}</td><td class="num">{{ percent(pair.share_a) }} / {{ percent(pair.share_b) }}</td></tr>
{% endfor %}</tbody></table>
{% for pair in pairs %}<h2 id="pair-{{ loop.index }}">{{ loop.index }}. {{ pair.a }} and {{ pair.b }}: {{ percent(pair.score) }}</h2>
{% for file in pair.files %}<h3>{{ file.module }}.py: {{ percent(file.score) }}</h3>
<div class="sides">
{% for who, share, lines in sides(pair, file) %}<div class="side"><h4>{{ who }}: {{ share }} of their own code here is in the other's file</h4>
<pre>{% for line in lines %}{% if line.lines is defined %}<span class="folded">⋯ {{ line.lines }} line{{ '' if line.lines == 1 else 's' }} with no matching passage</span>
{% else %}<span class="n">{{ line.number }}</span><span{% if line.stub %} class="stub"{% endif %}>{% for text, marked in line.parts %}{% if marked %}<mark>{{ text }}</mark>{% else %}{{ text }}{% endif %}{% endfor %}</span>
{% endif %}{% endfor %}</pre></div>
{% endfor %}</div>
{% endfor %}{% endfor %}{% endif %}
{% if not_compared %}<h2>Found and not compared ({{ not_compared|length }})</h2><ul>{% for line in not_compared %}<li>{{ line }}</li>{% endfor %}</ul>{% endif %}
</body></html>
"""

_environment = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)


def render_html(
    similarity: Similarity,
    *,
    title: str,
    threshold: float,
    top: int,
    not_compared: list[str] = (),
) -> str:
    """The page of the ``top`` pairs at or above ``threshold``."""
    from attnlab.similarity.terminal import files_cell
    from attnlab.wording import count

    flagged = similarity.above(threshold)
    stub_lines = {module: _stub_lines(text) for module, text in similarity.stubs.items()}

    def sides(pair: Pair, file: FileMatch):
        return [
            (
                student,
                percent(share),
                code_lines(similarity.code[student][file.module], passages, stub_lines.get(file.module, frozenset())),
            )
            for student, share, passages in (
                (pair.a, file.share_a, file.passages_a),
                (pair.b, file.share_b, file.passages_b),
            )
        ]

    return _environment.from_string(TEMPLATE).render(
        title=title,
        signal=SIGNAL,
        students=count(len(similarity.students), "student"),
        common_in=similarity.common_in,
        threshold=percent(threshold),
        pairs=flagged[:top],
        more=max(0, len(flagged) - top),
        percent=percent,
        files_cell=files_cell,
        sides=sides,
        not_compared=list(not_compared),
    )
