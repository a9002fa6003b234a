"""The one place terminal output is configured.

Markup is off everywhere: quiz text, feedback and student output are full of
``[brackets]`` that rich would otherwise eat. Results go to stdout; progress,
status and errors to stderr. Whatever is printed through these consoles reaches
the terminal inert (``inert.terminal_text``): rich itself passes escape sequences
in text through, and student text is in tables, titles and messages built all over.
"""

from __future__ import annotations

from rich.console import Console, RenderHook
from rich.measure import Measurement
from rich.segment import Segment

from attnlab.inert import terminal_text


class _Inert:
    """A renderable shown as ``renderable`` is, but with the text of its segments made inert
    (rich's own control segments, the cursor moves of a progress bar, pass as they are)."""

    def __init__(self, renderable):
        self.renderable = renderable

    def __rich_console__(self, console, options):
        for segment in console.render(self.renderable, options):
            if segment.control or not segment.text:
                yield segment
            else:
                yield Segment(terminal_text(segment.text.replace("\r", "")), segment.style)

    def __rich_measure__(self, console, options):
        return Measurement.get(console, options, self.renderable)


class InertText(RenderHook):
    def process_renderables(self, renderables):
        return [_Inert(renderable) for renderable in renderables]


class _InertConsole(Console):
    def status(self, status, **options):
        # A status line is drawn by a live display, which render hooks never see.
        return super().status(_Inert(status), **options)


def _console(**options) -> Console:
    console = _InertConsole(markup=False, highlight=False, **options)
    console.push_render_hook(InertText())
    return console


out = _console(soft_wrap=False)
err = _console(stderr=True)
