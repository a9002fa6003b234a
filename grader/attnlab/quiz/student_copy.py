"""The student's copies of a quiz: an exam copy with nothing to check against, and a practice copy.

An **exam copy** (``"sitting": "exam"``) holds what each student of a roster
reads and nothing else: each question's id, type, points and concepts, and for
each rostered student (filed under a short tag of their id) the prompt and
options of their exam variant, already drawn. No parameter spec is in it (a
parameter the prompt does not show could be the answer itself), nor any key,
hash, ciphertext, hint, explanation or tolerance: there is nothing to test a
guess against. Answers are recorded, handed in and marked by the instructor
from the quiz's YAML.

A **practice copy** (``"sitting": "practice"``) holds, per question, a pool of
variants drawn from seeds no student id can produce (see ``params``), so
practising says nothing about an exam variant. Each variant keeps a scrypt
hash (memory-hard, one per whole answer) of the key's canonical form (see
``kinds``) and the explanation encrypted with another part of the same
derived key, readable once the answer is right; each common mistake is kept
the same way (its hash under the same salt, its name and note encrypted), so
one scrypt per guess says right, which mistake, or wrong. A single-number
question also keeps a hash of the key on the grid ``kinds.COARSER`` (10) times
wider, so a wrong answer can be told it is close; that hash costs ten times a
guess (scrypt's p × 10), so finding the key through it (a tenth of the
guesses, each ten times dearer, then ten on the fine grid) costs what guessing
the key does. For a vector or matrix of k numbers the coarse route would be
10^k times cheaper than guessing and no affordable cost makes up for it, so
their copies keep no such hash and practice does not tell them "close". A
practice copy can be brute-forced (one scrypt per guess); what it gives away
is practice answers, which everyone may see once they get them right anyway. A question practice
does not check (by default one without parameters, whose only variant is the
exam's) has no variants in the copy: nothing to test a guess against.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from attnlab.quiz import params as drawing
from attnlab.quiz.errors import QuizError
from attnlab.quiz.kinds import COARSER, KINDS, TELLS_CLOSE, close_note, coarser

FORMAT = "attnlab-student-quiz/2"
SITTINGS = ("practice", "exam")
SCRYPT = {"n": 2**14, "r": 8, "p": 1}
"""16 MiB and one CPU-bound pass per guess: what each guess against a practice copy costs."""
EXAM_FIELDS = ("id", "type", "points", "concepts")
"""Everything an exam copy's question holds besides each student's text: nothing to check against."""
_CHECK_BYTES, _KEY_BYTES = 16, 32


def _letters(data: bytes) -> str:
    """Bytes as letters a-p (no digits, so a number can never appear inside a hash by chance)."""
    return "".join("abcdefghijklmnop"[b >> 4] + "abcdefghijklmnop"[b & 15] for b in data)


def _bytes(text: str) -> bytes:
    return bytes(("abcdefghijklmnop".index(text[i]) << 4) | "abcdefghijklmnop".index(text[i + 1]) for i in range(0, len(text), 2))


def derive(question_id: str, answer_form: str, salt: bytes, cost: dict) -> tuple[bytes, bytes]:
    """(check, explanation key) of one whole answer: one scrypt, split in two independent parts."""
    derived = hashlib.scrypt(f"{question_id}\0{answer_form}".encode(), salt=salt, n=cost["n"], r=cost["r"], p=cost["p"], maxmem=2**26, dklen=_CHECK_BYTES + _KEY_BYTES)
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
        "prompt": question.prompt,
        "options": question.options or [],
        "points": question.points,
        "concepts": question.concepts,
        "params": {k: v.model_dump(exclude_none=True) for k, v in question.params.items()},
        "where": question.where,
    }


def build_exam(quiz, roster: list[str]) -> dict:
    """The exam copy of ``quiz`` for ``roster``: each student's questions as text, no key material
    (and no key is computed)."""
    from attnlab.quiz.variant import asked_question

    if not roster:
        raise QuizError(f"{quiz.id}: an exam copy is made for a roster: give the class's student ids (--roster)")
    students = {}
    for student in roster:
        asked = [asked_question(quiz, question, student, "exam") for question in quiz.questions]
        students[roster_tag(quiz.id, student)] = [{"prompt": a.prompt, "options": list(a.options)} for a in asked]
    return {
        "format": FORMAT,
        "sitting": "exam",
        "id": quiz.id,
        "title": quiz.title,
        "description": quiz.description,
        "questions": [{field: getattr(q, field) for field in EXAM_FIELDS} for q in quiz.questions],
        "students": students,
    }


def build_practice(quiz, reference_factory, cost: dict = SCRYPT) -> dict:
    """The practice copy of ``quiz``: a pool of practice variants per question, each checkable by hash."""
    from attnlab.quiz.variant import keyed_for_values, values_for_seed

    questions = []
    for question in quiz.questions:
        indices = range(drawing.PRACTICE_VARIANTS) if question.params else [0]
        if not question.checked_in_practice:
            indices = []  # the exam asks it as practice would: keep nothing that could check its answer
        variants = []
        for index in indices:
            who = f"practice variant {index}"
            keyed = keyed_for_values(quiz, question, values_for_seed(quiz, question, drawing.practice_seed(quiz.id, question.id, index), who), who, reference_factory, "practice")
            kind = KINDS[question.type]
            salt = secrets.token_bytes(16)
            check, key = derive(question.id, kind.answer_form(keyed.key, keyed.tolerance), salt, cost)
            mistakes = []
            for mistake in keyed.mistakes:  # as secret as the answer: the same hash, the note encrypted under it
                mistake_check, mistake_key = derive(question.id, kind.answer_form(mistake.key, keyed.tolerance), salt, cost)
                mistakes.append({"check": _letters(mistake_check), "note": _encrypt(f"{mistake.name}\n{mistake.explanation}", mistake_key)})
            variant = {"tolerance": keyed.tolerance, "layout": kind.shape(keyed.key), "salt": _letters(salt), "check": _letters(check), "explanation": _encrypt(keyed.explanation, key), "mistakes": mistakes}
            if question.type in TELLS_CLOSE["practice"]:
                variant["close"] = _letters(derive(question.id, _close_form(kind, keyed.key, keyed.tolerance), salt, close_cost(cost))[0])
            variants.append(variant)
        questions.append({**_question_text(question), "hint": question.hint, "variants": variants})
    return {"format": FORMAT, "sitting": "practice", "id": quiz.id, "title": quiz.title, "description": quiz.description, "scrypt": dict(cost), "questions": questions}


def build(quiz, sitting: str, reference_factory, roster: list[str] = (), cost: dict = SCRYPT) -> dict:
    """The student copy of ``quiz`` for ``sitting`` (``practice`` or ``exam``) as JSON-able data."""
    return build_exam(quiz, roster) if sitting == "exam" else build_practice(quiz, reference_factory, cost)


@dataclass(frozen=True)
class HashedCheck:
    """Checks one answer to one practice variant against the copy's hash."""

    question_id: str
    kind_name: str
    variant: dict | None
    cost: dict
    sitting: str = "exam"

    def check(self, value):
        """The ``Verdict`` of one answer, from one scrypt: right (with the explanation), a known
        mistake (with its note), or wrong (and, for a single number, a second, dearer scrypt says
        whether it is close); right is None when this copy has nothing to check against."""
        from attnlab.quiz.verdict import NOT_CHECKED_IN_PRACTICE, Verdict

        if self.variant is None:
            return Verdict(None, NOT_CHECKED_IN_PRACTICE if self.sitting == "practice" else None)
        kind = KINDS[self.kind_name]
        if kind.shape(value) != self.variant["layout"]:
            return Verdict(False, kind.layout_reason(value, self.variant["layout"]))
        check, key = derive(self.question_id, kind.answer_form(value, self.variant["tolerance"]), _bytes(self.variant["salt"]), self.cost)
        if hmac.compare_digest(check, _bytes(self.variant["check"])):
            return Verdict(True, _decrypt(self.variant["explanation"], key))
        for mistake in self.variant.get("mistakes", []):
            if hmac.compare_digest(check, _bytes(mistake["check"])):
                name, _, explanation = _decrypt(mistake["note"], key).partition("\n")
                return Verdict(False, f"{name}: {explanation}", name)
        if "close" in self.variant:
            close, _ = derive(self.question_id, _close_form(kind, value, self.variant["tolerance"]), _bytes(self.variant["salt"]), close_cost(self.cost))
            if hmac.compare_digest(close, _bytes(self.variant["close"])):
                return Verdict(False, close_note(self.variant["tolerance"]), None, True)
        return Verdict(False, None)


def load(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise QuizError(f"{path}: no such quiz file") from None
    except (ValueError, UnicodeDecodeError):
        raise QuizError(f"{path}: not a student quiz (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("sitting") not in SITTINGS:
        raise QuizError(f"{path}: not an attnlab student quiz (format {FORMAT!r} expected; ask your instructor for a new copy)")
    cost = data.get("scrypt", SCRYPT)
    if not (isinstance(cost, dict) and all(isinstance(cost.get(k), int) and 0 < cost[k] <= 2**16 for k in ("n", "r", "p")) and cost["n"] & (cost["n"] - 1) == 0 and 128 * cost["r"] * cost["n"] <= 2**26):
        raise QuizError(f"{path}: this quiz copy is damaged (its check settings); ask your instructor for a new copy")
    return data


def questions_for(copy: dict, student: str):
    """(AskedQuestion, HashedCheck) for each question of the copy, in this student's variant of its sitting."""
    from attnlab.quiz.asked import AskedQuestion  # light: no numpy, no reference

    if copy["sitting"] == "exam":
        texts = copy["students"].get(roster_tag(copy["id"], student))
        if texts is None:
            raise QuizError(f"{student!r} is not on this exam's roster: give your student id as your instructor has it (--student)")
        return [
            (AskedQuestion(entry["id"], entry["type"], text["prompt"], tuple(text["options"]), entry["points"], "", tuple(entry["concepts"]), 0.0), HashedCheck(entry["id"], entry["type"], None, SCRYPT))
            for entry, text in zip(copy["questions"], texts)
        ]
    items = []
    for entry in copy["questions"]:
        variants = entry["variants"]  # none: practice does not check this question (the exam's own)
        index = drawing.practice_index(copy["id"], entry["id"], student, max(len(variants), 1)) if entry["params"] else 0
        variant = variants[index] if variants else None
        values = drawing.draw(entry["params"], drawing.practice_seed(copy["id"], entry["id"], index), entry.get("where", []))
        asked = AskedQuestion(
            id=entry["id"],
            type=entry["type"],
            prompt=drawing.render(entry["prompt"], values),
            options=tuple(drawing.render(o, values) for o in entry["options"]),
            points=entry["points"],
            hint=drawing.render(entry["hint"], values),
            concepts=tuple(entry["concepts"]),
            tolerance=variant["tolerance"] if variant else 0.0,
        )
        items.append((asked, HashedCheck(entry["id"], entry["type"], variant, copy.get("scrypt", SCRYPT), "practice")))
    return items
