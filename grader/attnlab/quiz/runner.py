"""The quiz loop: ask, read, check, save; a function over an ``ask`` callable, so tests need no terminal.

Practice mode says right or wrong at once (with the explanation when right, or
when the student skips and the source may show it) and lets the student try
again; exam mode records each answer and moves on, and shows no hint, no
verdict and no explanation. At any prompt ``hint`` (practice), ``skip``,
``back`` and ``quit`` work; input that cannot be read is asked for
again with the reason and an example of the expected form, and so is an answer
of the wrong size (two numbers for three). Progress is saved after every
answer, so Ctrl-C or a closed terminal loses nothing: the next run resumes.
"""

from __future__ import annotations

import json
import os
import select
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from attnlab.quiz.items import Item
from attnlab.quiz.kinds import AnswerFormatError
from attnlab.wording import count

COMMANDS = "hint, skip, back, quit"
EXAM_COMMANDS = "skip, back, quit"


@dataclass
class Progress:
    """What a student has done in one quiz; saved as JSON after every answer."""

    quiz: str
    student: str
    mode: str
    position: int = 0
    answers: dict[str, str | None] = field(default_factory=dict)
    """The last answer given to each question, as typed (None when skipped)."""
    attempts: dict[str, int] = field(default_factory=dict)
    finished: bool = False
    handed_in: str | None = None
    """Exam mode: the answers file written at the end (the exam is then over)."""


def state_dir() -> Path:
    return Path(os.environ.get("ATTNLAB_STATE_DIR") or Path.home() / ".local" / "state" / "attnlab")


def progress_path(quiz_id: str, student: str, mode: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in student)
    return state_dir() / "quizzes" / f"{quiz_id}--{safe}--{mode}.json"


def load_progress(path: Path, quiz_id: str, student: str, mode: str) -> Progress:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Progress(**data)
    except (FileNotFoundError, ValueError, TypeError):
        return Progress(quiz_id, student, mode)


def save_progress(path: Path, progress: Progress) -> None:
    from attnlab.atomic import write_json_atomically

    write_json_atomically(path, asdict(progress))


def ask_terminal(prompt: str) -> str:
    """Read one answer from stdin; raise EOFError at end of input.

    Unlike input(), it waits in select() with a short timeout, so a Ctrl-C that lands between
    the prompt and the read is handled within 0.2 s instead of when the next key is typed.
    """
    if getattr(sys.stdin, "errors", None) == "strict" and hasattr(sys.stdin, "reconfigure"):
        # Bytes that are not UTF-8 (a paste, a terminal in another encoding) are an answer that
        # cannot be read, as any other, not the end of the quiz (a UTF-8 locale reads strictly).
        try:
            sys.stdin.reconfigure(errors="surrogateescape")
        except (ValueError, OSError):  # not once input has been read ahead: as it was, then
            pass
    sys.stdout.write(prompt)
    sys.stdout.flush()
    while not select.select([sys.stdin], [], [], 0.2)[0]:
        pass  # returning to Python between waits lets a pending KeyboardInterrupt be raised
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return shown_bytes(line.rstrip("\n"))


def shown_bytes(text: str) -> str:
    """Bytes that were not UTF-8 (kept as surrogates) written as ``\\xe9``, so they can be shown and saved."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def run(
    items: list[Item],
    progress: Progress,
    ask: Callable[[str], str],
    say: Callable[[str], None],
    save: Callable[[Progress], None],
) -> bool:
    """Take the quiz from ``progress.position``; return True when every question has been passed.

    ``ask`` raises EOFError when input ends (the quiz is left, progress kept).
    """
    practice = progress.mode == "practice"
    total = len(items)
    if progress.position:
        say(f"Resuming at question {progress.position + 1} of {total} ({len(progress.answers)} answered so far).")
    while progress.position < total:
        item = items[progress.position]
        asked = item.asked
        say(
            f"\nQuestion {progress.position + 1} of {total} · {count(asked.points, 'point')} · {', '.join(asked.concepts)}"
        )
        say(asked.text())
        if progress.answers.get(asked.id) is not None:
            say(f"(your answer so far: {progress.answers[asked.id]})")
        while True:
            text = ask(f"answer ({COMMANDS if practice else EXAM_COMMANDS}) > ").strip()
            command = text.lower()
            if command == "hint":
                say(f"Hint: {asked.hint}" if practice else "No hints in an exam.")
                continue
            if command == "quit":
                save(progress)
                raise EOFError
            if command == "back":
                progress.position = max(0, progress.position - 1)
                break
            if command == "skip":
                progress.answers.setdefault(asked.id, None)
                if practice and item.explanation is not None:
                    say(f"Skipped. {item.explanation.get().explanation}")
                else:  # a student copy unlocks an explanation only with the right answer
                    say("Skipped: type back to return to it.")
                progress.position += 1
                break
            if not text:
                continue
            try:
                value = asked.read(text)
            except AnswerFormatError as error:
                say(f"Could not read that ({error}). Answer like this: {asked.kind.example}")
                continue
            refused = item.refuse(value)
            if refused:  # a wrong size is refused, not marked: nothing is recorded or counted
                say(f"Could not take that ({refused}). Type the whole answer again.")
                continue
            progress.answers[asked.id] = text
            progress.attempts[asked.id] = progress.attempts.get(asked.id, 0) + 1
            if not practice:
                progress.position += 1
                break
            verdict = item.check(value)
            if verdict.right is None:
                say(verdict.text or "Recorded: your instructor checks this answer.")
                progress.position += 1
                break
            if verdict.right:
                say(f"✓ Right. {verdict.text or ''}".rstrip())
                progress.position += 1
                break
            say(f"✗ Not right{f' ({verdict.text})' if verdict.text else ''}. Try again, or type hint or skip.")
            save(progress)
        save(progress)
    progress.finished = True
    save(progress)
    return True
