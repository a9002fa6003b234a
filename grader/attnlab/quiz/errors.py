"""The quiz package's one error, and where a YAML file's error is, in words."""


class QuizError(Exception):
    """Each line of the message is ``file:line: field: what is wrong`` or another one-line reason."""


_UNCLOSED = {
    "while scanning a quoted scalar": "a quoted text that is never closed",
    "while parsing a flow sequence": "a [ list that is never closed with ]",
    "while parsing a flow mapping": "a { mapping that is never closed with }",
    "while scanning a block scalar": "a block of text that never ends",
}


def yaml_place(error, text: str) -> tuple[int, str]:
    """(line, what is wrong) of a YAML error in ``text``. An error found only at the end of the file
    (a quote or bracket never closed) is placed where the unclosed thing begins, not past the end."""
    problem = getattr(error, "problem", None) or type(error).__name__
    mark, context = getattr(error, "problem_mark", None), getattr(error, "context_mark", None)
    if mark is None:
        return 1, problem
    at_end = mark.index >= len(text.rstrip())
    if at_end and context is not None:
        what = _UNCLOSED.get(getattr(error, "context", None) or "", f"{error.context} ({problem})")
        return context.line + 1, what
    lines = max(1, len(text.splitlines()))
    return min(mark.line + 1, lines), problem
