"""The student's copies of a quiz: an exam copy with nothing to check against, and a practice copy.

An **exam copy** (``"sitting": "exam"``) holds what each student of a roster
reads and nothing else: each question's id, type, points, concepts and whether
it takes arithmetic, and for each rostered student (filed under a short tag of
their id) the prompt and options of their exam variant, already drawn, with
the size of a vector or matrix answer (which its prompt states: a wrong size is
refused as it is typed, as in practice). No
parameter spec is in it (a parameter the prompt does not show could be the
answer itself), nor any key, hash, ciphertext, hint, explanation or tolerance:
there is nothing to test a guess against. Answers are recorded, handed in and
marked by the instructor from the quiz's YAML.

A **practice copy** (``"sitting": "practice"``) holds, per question, a pool of
variants no exam asks: drawn from seeds no student id can produce (see
``params``), or, for a question with a pool of items, the practice items only
(their text is in the copy; the exam items are not). Each variant keeps, for
every accepted form of a right answer (one, or a few where the question's
slack lets rounding along the way land on a neighbouring grid point: see
``kinds``), a *lock*: a scrypt hash (memory-hard, one per whole answer) of the
form, and a random content key wrapped under another part of the same derived
key; the explanation is encrypted under the content key, so any right answer
unlocks it. Each common mistake is kept the same way (its locks under the same
salt, its name and note encrypted), so one scrypt per guess says right, which
mistake, or wrong. A single-number question also keeps hashes of the accepted
answers on the grid ``kinds.COARSER`` (10) times wider, so a wrong answer can
be told it is close; those cost ten times a guess (scrypt's p × 10), so
finding the key through them (a tenth of the guesses, each ten times dearer,
then ten on the fine grid) costs what guessing the key does. For a vector or
matrix of k numbers the coarse route would be 10^k times cheaper than guessing
and no affordable cost makes up for it, so their copies keep no such hash and
practice does not tell them "close". A practice copy can be brute-forced (one
scrypt per guess); what it gives away is practice answers, which everyone may
see once they get them right anyway. A question practice does not check (one
with neither parameters nor a pool, whose only variant is the exam's; lint
refuses it) has no variants in the copy: nothing to test a guess against.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from attnlab.quiz import params as drawing
from attnlab.quiz.errors import QuizError
from attnlab.quiz.kinds import COARSER, close_note, coarser, kind_named

FORMAT = "attnlab-student-quiz/3"
SITTINGS = ("practice", "exam")
SCRYPT = {"n": 2**14, "r": 8, "p": 1}
"""16 MiB and one CPU-bound pass per guess: what each guess against a practice copy costs."""
EXAM_FIELDS = ("id", "type", "points", "concepts", "expressions")
"""Everything an exam copy's question holds besides each student's text: nothing to check against."""
_CHECK_BYTES, _KEY_BYTES = 16, 32


def _letters(data: bytes) -> str:
    """Bytes as letters a-p (no digits, so a number can never appear inside a hash by chance)."""
    return "".join("abcdefghijklmnop"[b >> 4] + "abcdefghijklmnop"[b & 15] for b in data)


def _bytes(text: str) -> bytes:
    return bytes(
        ("abcdefghijklmnop".index(text[i]) << 4) | "abcdefghijklmnop".index(text[i + 1]) for i in range(0, len(text), 2)
    )


def derive(question_id: str, answer_form: str, salt: bytes, cost: dict) -> tuple[bytes, bytes]:
    """(check, explanation key) of one whole answer: one scrypt, split in two independent parts."""
    derived = hashlib.scrypt(
        f"{question_id}\0{answer_form}".encode(),
        salt=salt,
        n=cost["n"],
        r=cost["r"],
        p=cost["p"],
        maxmem=2**26,
        dklen=_CHECK_BYTES + _KEY_BYTES,
    )
    return derived[:_CHECK_BYTES], derived[_CHECK_BYTES:]


def close_cost(cost: dict) -> dict:
    """The cost of the close check: ``COARSER`` times a guess's, as its grid holds ``COARSER`` times fewer cells."""
    return {**cost, "p": cost["p"] * COARSER}


def _close_form(kind, value, tolerance: float) -> str:
    """The answer on the wider grid, in a domain of its own (no answer's form starts with a letter)."""
    return "close\0" + kind.answer_form(value, coarser(tolerance))


def _keystream(key: bytes, length: int) -> bytes:
    blocks = (hmac.new(key, counter.to_bytes(8, "big"), "sha256").digest() for counter in range((length + 31) // 32))
    return b"".join(blocks)[:length]


def _encrypt(text: str, key: bytes) -> str:
    data = text.encode()
    return _letters(bytes(a ^ b for a, b in zip(data, _keystream(key, len(data)))))


def _decrypt(cipher: str, key: bytes) -> str:
    data = _bytes(cipher)
    return bytes(a ^ b for a, b in zip(data, _keystream(key, len(data)))).decode("utf-8", "replace")


def roster_tag(quiz_id: str, student: str) -> str:
    """A short tag of a rostered id: finds a student's questions without a list of names to read."""
    return _letters(hashlib.sha256(f"attnlab-roster\0{quiz_id}\0{student}".encode()).digest()[:8])


def _question_text(question) -> dict:
    return {
        "id": question.id,
        "type": question.type,
        "prompt": question.prompt or "",
        "options": question.options or [],
        "points": question.points,
        "concepts": question.concepts,
        "expressions": question.expressions,
        "params": {k: v.model_dump(exclude_none=True) for k, v in question.params.items()},
        "where": question.where,
    }


def _wrap(content_key: bytes, derived: bytes) -> str:
    return _letters(bytes(a ^ b for a, b in zip(content_key, derived)))


def _locks(question_id: str, forms: list[str], salt: bytes, cost: dict) -> tuple[list[dict], bytes]:
    """A lock per accepted form (its check, and the content key wrapped under its derived key), sorted
    by check so that their order says nothing; and the content key, to encrypt what they unlock."""
    content_key = secrets.token_bytes(_KEY_BYTES)
    locks = []
    for form in forms:
        check, key = derive(question_id, form, salt, cost)
        locks.append({"check": _letters(check), "wrapped": _wrap(content_key, key)})
    return sorted(locks, key=lambda lock: lock["check"]), content_key


def build_exam(quiz, roster: list[str], reference_factory, on_student=None) -> dict:
    """The exam copy of ``quiz`` for ``roster``: each student's questions as text, and the size of
    each vector and matrix answer (which the prompt states), so that another size is refused as
    it is typed; no key material. ``on_student`` is called after each student's questions."""
    from attnlab.quiz.variant import asked_question, compute_key, drawn_values

    if not roster:
        raise QuizError(f"{quiz.id}: an exam copy is made for a roster: give the class's student ids (--roster)")
    students = {}
    for student in roster:
        texts = []
        for question in quiz.questions:
            asked = asked_question(quiz, question, student, "exam")
            text = {"prompt": asked.prompt, "options": list(asked.options)}
            if asked.kind.sized:
                try:
                    key = compute_key(question, drawn_values(quiz, question, student, "exam"), reference_factory)
                except (ValueError, TypeError, ArithmeticError, IndexError, KeyError, AttributeError) as error:
                    raise QuizError(
                        f"{quiz.id}: question {question.id}: the answer cannot be computed for {student!r}: {error}"
                    ) from None
                text["layout"] = asked.kind.shape(key)
            texts.append(text)
        students[roster_tag(quiz.id, student)] = texts
        if on_student is not None:
            on_student()
    return {
        "format": FORMAT,
        "sitting": "exam",
        "id": quiz.id,
        "title": quiz.title,
        "description": quiz.description,
        "questions": [{field: getattr(q, field) for field in EXAM_FIELDS} for q in quiz.questions],
        "students": students,
    }


def build_practice(quiz, reference_factory, cost: dict = SCRYPT, on_question=None) -> dict:
    """The practice copy of ``quiz``: a pool of practice variants per question, each checkable by hash.

    Its questions are built on every core: scrypt leaves the interpreter's lock while it hashes,
    and a course's practice copies hash thousands of answers. ``on_question`` is called (from the
    builder's threads) after each question."""
    lock = threading.Lock()

    def one_reference():
        with lock:  # loaded once, whichever question asks first
            return reference_factory()

    def one_question(question) -> dict:
        entry = _practice_question(quiz, question, one_reference, cost)
        if on_question is not None:
            on_question()
        return entry

    with ThreadPoolExecutor(max_workers=min(len(quiz.questions), os.cpu_count() or 1) or 1) as pool:
        questions = list(pool.map(one_question, quiz.questions))
    return {
        "format": FORMAT,
        "sitting": "practice",
        "id": quiz.id,
        "title": quiz.title,
        "description": quiz.description,
        "scrypt": dict(cost),
        "questions": questions,
    }


def _practice_question(quiz, question, reference_factory, cost: dict) -> dict:
    """One question of the practice copy: its practice variants, each with its locks."""
    from attnlab.quiz.variant import keyed_for_values, practice_variants

    variants, items = [], []
    kind = kind_named(question.type)
    for who, values in practice_variants(quiz, question):
        keyed = keyed_for_values(quiz, question, values, who, reference_factory, "practice")
        salt = secrets.token_bytes(16)
        try:
            forms = kind.accepted_forms(keyed.key, keyed.tolerance, keyed.slack)
        except ValueError as error:
            raise QuizError(f"{quiz.id}: question {question.id}: {error}") from None
        locks, content_key = _locks(question.id, forms, salt, cost)
        mistakes = []
        for mistake in keyed.mistakes:  # as secret as the answer: locks under the same salt, the note encrypted
            # A mistake is named at its own grid point only.
            taken = [f for f in kind.accepted_forms(mistake.key, keyed.tolerance) if f not in forms]
            mistake_locks, mistake_key = _locks(question.id, taken, salt, cost)
            note = _encrypt(f"{mistake.name}\n{mistake.explanation}", mistake_key)
            mistakes.append({"locks": mistake_locks, "note": note})
        variant = {
            "tolerance": keyed.tolerance,
            "layout": kind.shape(keyed.key),
            "salt": _letters(salt),
            "locks": locks,
            "explanation": _encrypt(keyed.explanation, content_key),
            "mistakes": mistakes,
        }
        if kind.tells_close("practice"):
            wide = sorted({_close_form(kind, value, keyed.tolerance) for value in _close_values(kind, keyed)})
            variant["close"] = sorted(_letters(_close_check(question.id, form, salt, cost)) for form in wide)
        variants.append(variant)
        if question.pool is not None:
            asked = keyed.asked
            items.append({"prompt": asked.prompt, "options": list(asked.options), "hint": asked.hint})
    entry = {**_question_text(question), "hint": question.hint, "variants": variants}
    if question.pool is not None:
        entry["items"] = items  # the practice items' text; the exam's items are not in the copy
    return entry


def _close_check(question_id: str, form: str, salt: bytes, cost: dict) -> bytes:
    return derive(question_id, form, salt, close_cost(cost))[0]


def _close_values(kind, keyed) -> list:
    """Values whose coarse form is accepted as close: each coarse grid point the slack reaches."""
    from attnlab.quiz.kinds import cells, per_element

    step = 2 * coarser(keyed.tolerance)
    return [point * step for point in cells(keyed.key, coarser(keyed.tolerance), per_element(keyed.slack, 1)[0])]


def build(quiz, sitting: str, reference_factory, roster: list[str] = (), cost: dict = SCRYPT, on_done=None) -> dict:
    """The student copy of ``quiz`` for ``sitting`` (``practice`` or ``exam``) as JSON-able data;
    ``on_done`` is called after each question of a practice copy, each student of an exam copy."""
    return (
        build_exam(quiz, roster, reference_factory, on_done)
        if sitting == "exam"
        else build_practice(quiz, reference_factory, cost, on_done)
    )


@dataclass(frozen=True)
class HashedCheck:
    """Checks one answer to one practice variant against the copy's hash."""

    question_id: str
    kind_name: str
    variant: dict | None
    cost: dict
    sitting: str = "exam"
    size: list[int] | None = None
    """An exam copy's size of the answer (a vector's length, a matrix's rows and columns), where the
    kind has one; a practice variant keeps its own (``layout``)."""

    def check(self, value):
        """The ``Verdict`` of one answer, from one scrypt: right (with the explanation), a known
        mistake (with its note), or wrong (and, for a single number, a second, dearer scrypt says
        whether it is close); right is None when this copy has nothing to check against."""
        from attnlab.quiz.verdict import NOT_CHECKED_IN_PRACTICE, Verdict

        if self.variant is None:
            return Verdict(None, NOT_CHECKED_IN_PRACTICE if self.sitting == "practice" else None)
        kind = kind_named(self.kind_name)
        if kind.shape(value) != self.variant["layout"]:
            return Verdict(False, kind.layout_reason(value, self.variant["layout"]))
        check, key = derive(
            self.question_id,
            kind.answer_form(value, self.variant["tolerance"]),
            _bytes(self.variant["salt"]),
            self.cost,
        )
        opened = _open(self.variant["locks"], check, key)
        if opened is not None:
            return Verdict(True, _decrypt(self.variant["explanation"], opened))
        for mistake in self.variant.get("mistakes", []):
            opened = _open(mistake["locks"], check, key)
            if opened is not None:
                name, _, explanation = _decrypt(mistake["note"], opened).partition("\n")
                return Verdict(False, f"{name}: {explanation}", name)
        if self.variant.get("close"):
            close, _ = derive(
                self.question_id,
                _close_form(kind, value, self.variant["tolerance"]),
                _bytes(self.variant["salt"]),
                close_cost(self.cost),
            )
            if any(hmac.compare_digest(close, _bytes(wide)) for wide in self.variant["close"]):
                return Verdict(False, close_note(self.variant["tolerance"]), None, True)
        return Verdict(False, None)

    def layout(self) -> list[int] | None:
        """The size of a right answer, where its kind has one and the copy holds it (else None)."""
        if not kind_named(self.kind_name).sized:
            return None
        return self.variant["layout"] if self.variant is not None else self.size

    def refuse(self, value) -> str | None:
        """Why an answer of another size than the variant's cannot be taken (None where the size is
        not known: an exam copy made before copies held it)."""
        layout = self.layout()
        return None if layout is None else kind_named(self.kind_name).size_refusal(value, layout)


def _open(locks: list[dict], check: bytes, key: bytes) -> bytes | None:
    """The content key of the lock whose check is ``check``, unwrapped with ``key``; None if none is."""
    for lock in locks:
        if hmac.compare_digest(check, _bytes(lock["check"])):
            return bytes(a ^ b for a, b in zip(_bytes(lock["wrapped"]), key))
    return None


def load(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise QuizError(f"{path}: no such quiz file") from None
    except (ValueError, UnicodeDecodeError):
        raise QuizError(f"{path}: not a student quiz (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("sitting") not in SITTINGS:
        raise QuizError(
            f"{path}: not an attnlab student quiz (format {FORMAT!r} expected; ask your instructor for a new copy)"
        )
    cost = data.get("scrypt", SCRYPT)
    if not (
        isinstance(cost, dict)
        and all(isinstance(cost.get(k), int) and 0 < cost[k] <= 2**16 for k in ("n", "r", "p"))
        and cost["n"] & (cost["n"] - 1) == 0
        and 128 * cost["r"] * cost["n"] <= 2**26
    ):
        raise QuizError(f"{path}: this quiz copy is damaged (its check settings); ask your instructor for a new copy")
    return data


def questions_for(copy: dict, student: str):
    """(AskedQuestion, HashedCheck) for each question of the copy, in this student's variant of its sitting."""
    from attnlab.quiz.asked import AskedQuestion  # light: no numpy, no reference

    if copy["sitting"] == "exam":
        texts = copy["students"].get(roster_tag(copy["id"], student))
        if texts is None:
            raise QuizError(
                f"{student!r} is not on this exam's roster: give your student id as your instructor has it (--student)"
            )
        return [
            (
                AskedQuestion(
                    entry["id"],
                    entry["type"],
                    text["prompt"],
                    tuple(text["options"]),
                    entry["points"],
                    "",
                    tuple(entry["concepts"]),
                    0.0,
                    bool(entry.get("expressions")),
                ),
                HashedCheck(entry["id"], entry["type"], None, SCRYPT, size=text.get("layout")),
            )
            for entry, text in zip(copy["questions"], texts)
        ]
    items = []
    for entry in copy["questions"]:
        variants = entry["variants"]  # none: practice does not check this question (the exam's own)
        pool = entry.get("items")
        drawn = entry["params"] or pool
        index = drawing.practice_index(copy["id"], entry["id"], student, max(len(variants), 1)) if drawn else 0
        variant = variants[index] if variants else None
        text = pool[index] if pool else entry
        seed = drawing.practice_seed(copy["id"], entry["id"], index)
        values = {} if pool else drawing.draw(entry["params"], seed, entry.get("where", []))
        asked = AskedQuestion(
            id=entry["id"],
            type=entry["type"],
            prompt=drawing.render(text["prompt"], values),
            options=tuple(drawing.render(o, values) for o in text["options"]),
            points=entry["points"],
            hint=drawing.render(text["hint"], values),
            concepts=tuple(entry["concepts"]),
            tolerance=variant["tolerance"] if variant else 0.0,
            expressions=bool(entry.get("expressions")),
        )
        items.append((asked, HashedCheck(entry["id"], entry["type"], variant, copy.get("scrypt", SCRYPT), "practice")))
    return items
