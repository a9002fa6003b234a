"""The one place terminal output is configured.

Markup is off everywhere: quiz text, feedback and student output are full of
``[brackets]`` that rich would otherwise eat. Results go to stdout; progress,
status and errors to stderr.
"""

from __future__ import annotations

from rich.console import Console

out = Console(markup=False, highlight=False, soft_wrap=False)
err = Console(markup=False, highlight=False, stderr=True)
