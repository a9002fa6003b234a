"""The quiz package's one error: a quiz, copy or answers file that cannot be used."""


class QuizError(Exception):
    """Each line of the message is ``file:line: field: what is wrong`` or another one-line reason."""
