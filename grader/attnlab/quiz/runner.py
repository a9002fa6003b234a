"""The quiz loop: ask, read, check, save; a function over an ``ask`` callable, so tests need no terminal.

Practice mode says right or wrong at once (with the explanation when right, or
when the student skips and the source may show it) and lets the student try
again; exam mode records each answer and moves on, and shows no hint, no
verdict and no explanation. An exam ends on a review (``_review``) that lists
every question with its answer, or that it has none; a question's number goes
back to it (an answer then leads back to the review), and ``hand in`` hands
the exam in once the student confirms. At any prompt ``hint`` (practice),
``skip``, ``back``, ``review`` (exam) and ``quit`` work; input that cannot be
read is asked for again with the reason and an example of the expected form,
and so is an answer of the wrong size (two numbers for three). A matrix may be
typed one row a line (each row checked as it comes, where the size is known) or
on one line with ``;`` between the rows. Progress is saved after every answer,
so Ctrl-C or a closed terminal loses nothing: the next run resumes.
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
EXAM_COMMANDS = "skip, back, review, quit"
ALL_COMMANDS = ("hint", "skip", "back", "review", "quit")
ROWS_ON_ONE_LINE = ", or the whole matrix on one line with ; between the rows"


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
    reviewing: bool = False
    """Exam mode: the review was reached, so an answer given after it leads back to it."""


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
    """Take the quiz from ``progress.position``; return True when it is over (practice: every question
    passed; exam: handed in on the review screen, the student having confirmed).

    ``ask`` raises EOFError when input ends (the quiz is left, progress kept).
    """
    practice = progress.mode == "practice"
    total = len(items)
    if progress.position >= total and not practice:
        say("Resuming at the review of your answers.")
    elif progress.position:
        say(f"Resuming at question {progress.position + 1} of {total} ({len(progress.answers)} answered so far).")
    while True:
        if progress.position >= total:
            if practice or _review(items, progress, ask, say, save):
                break
            continue
        item = items[progress.position]
        asked = item.asked
        say(
            f"\nQuestion {progress.position + 1} of {total} · {count(asked.points, 'point')} · {', '.join(asked.concepts)}"
        )
        say(asked.text())
        if asked.kind.how_to_type:
            say(asked.kind.how_to_type)
        if progress.answers.get(asked.id) is not None:
            say(f"(your answer so far: {_one_line(progress.answers[asked.id])})")
        while True:
            text = ask(f"answer ({COMMANDS if practice else EXAM_COMMANDS}) > ").strip()
            if asked.kind.in_rows and text.lower() not in ALL_COMMANDS:
                text = _matrix_rows(item, text, ask, say)
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
            if command == "review" and not practice:
                progress.position = total
                break
            if command == "skip":
                progress.answers.setdefault(asked.id, None)
                last = progress.position == total - 1
                if practice and item.explanation is not None:
                    say(f"Skipped. {item.explanation.get().explanation}")
                elif not practice:
                    say("Skipped: the review at the end lists it, and takes you back to it.")
                elif last:  # a student copy unlocks an explanation only with the right answer
                    say("Skipped.")
                else:
                    say("Skipped: type back at the next question to return to it.")
                _next(progress, total)
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
                _next(progress, total)
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


def _next(progress: Progress, total: int) -> None:
    """The question after this one; in an exam whose review was reached, the review again."""
    progress.position = total if progress.reviewing else progress.position + 1


def _one_line(text: str) -> str:
    """An answer as one line: a matrix typed one row a line with ``;`` between its rows."""
    return "; ".join(line.strip() for line in str(text).splitlines() if line.strip())


def _matrix_rows(item: Item, text: str, ask: Callable[[str], str], say: Callable[[str], None]) -> str:
    """A matrix typed one row a line: ``text`` is its first row, and the next rows are asked for, one a
    line, until the matrix has as many as its size says (where the size is unknown, until an empty
    line). Text that is not one row of numbers (rows with ``;``, brackets, a command) is returned as it
    is, and so is a command typed at a row's prompt, which then ends the matrix."""
    from attnlab.quiz import reading

    asked = item.asked
    layout = item.layout()
    rows: list[str] = []
    line = text
    while True:
        if not rows and (not line or ";" in line or line.lstrip()[:1] in "[("):
            return line  # the whole matrix on one line (or nothing): read as it is
        try:
            entries = len(reading.number_list(line, asked.expressions))
        except AnswerFormatError as error:
            if not rows:
                return text  # not a row: read as a whole answer, and refused with the reason
            say(f"Could not read that row ({error}). Type row {len(rows) + 1} again.")
        else:
            if layout is not None and entries != layout[1]:
                what = f"{count(layout[1], 'number')} {'is' if layout[1] == 1 else 'are'} expected in each row, not {entries}"
                say(
                    f"Could not take that row ({what}). Type row {len(rows) + 1} again{ROWS_ON_ONE_LINE if not rows else ''}."
                )
            else:
                rows.append(line)
        if layout is not None and len(rows) >= layout[0]:
            break
        shown = (
            f"row {len(rows) + 1} of {layout[0]}"
            if layout is not None
            else f"row {len(rows) + 1} (an empty line ends the matrix)"
        )
        line = ask(f"{shown} > ").strip()
        if line.lower() in ALL_COMMANDS:
            return line
        if not line and rows:
            break
    return "\n".join(rows) if len(rows) > 1 else f"{rows[0]};"


HAND_IN = ("hand in", "handin", "hand-in")


def _review(
    items: list[Item],
    progress: Progress,
    ask: Callable[[str], str],
    say: Callable[[str], None],
    save: Callable[[Progress], None],
) -> bool:
    """The exam's last screen: every question, answered or skipped; a number goes back to that
    question, and ``hand in`` hands the exam in once the student confirms. True when handed in."""
    progress.reviewing = True
    save(progress)
    skipped = [n for n, item in enumerate(items, 1) if progress.answers.get(item.asked.id) is None]
    unseen = sum(item.asked.id not in progress.answers for item in items)
    not_reached = f", {unseen} not reached" if unseen else ""
    say(
        f"\nReview: {len(items) - len(skipped)} of {count(len(items), 'question')} answered,"
        f" {len(skipped) - unseen} skipped{not_reached}."
    )
    for number, item in enumerate(items, 1):
        answer = progress.answers.get(item.asked.id)
        if answer is not None:
            shown = _one_line(answer)
        else:
            shown = "skipped" if item.asked.id in progress.answers else "not reached"
        say(f"  {number:>{len(str(len(items)))}}. {item.asked.id}: {shown if len(shown) <= 60 else shown[:57] + '...'}")
    say("Type a question's number to go back to it, or hand in to hand in your answers.")
    while True:
        text = " ".join(ask("review (a number, hand in, quit) > ").lower().split())
        if text == "quit":
            raise EOFError
        if text.isdigit() and 1 <= int(text) <= len(items):
            progress.position = int(text) - 1
            return False
        if text == "back":
            progress.position = len(items) - 1
            return False
        if text in HAND_IN:
            if skipped:
                numbers = ", ".join(map(str, skipped))
                have, scores = ("has", "it scores") if len(skipped) == 1 else ("have", "each scores")
                say(f"{count(len(skipped), 'question')} {have} no answer ({numbers}): {scores} 0.")
            confirmed = ask("Hand in now? Your answers cannot be changed after. (yes/no) > ").strip().lower()
            if confirmed in ("yes", "y"):
                return True
            say("Not handed in: type a question's number to go back to it, or hand in.")
            continue
        if text:
            say(f"Type a question's number (1 to {len(items)}) to go back to it, hand in, or quit.")
