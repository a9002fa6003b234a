"""The student's copy of a quiz: everything needed to take it, and no answer to read off.

For each question the copy keeps the prompt and hint templates, the
parameter specs (so the student's variant is drawn locally from their id) and
a *check*: a salted PBKDF2 hash of each element of the key's canonical form
(see ``kinds``), and the explanation encrypted with a key derived from the
right answer, so it can be read once the question is answered correctly.
Neither the key's value nor the expression that computes it is in the copy.

A question without parameters has one check for everyone. A parameterized
question has one check per student of the roster given when the copy is
built, filed under a keyed hash of the student id; a student outside the
roster can still take the quiz, but those questions are recorded, not checked.

Small answer spaces (true/false, a choice, a small integer) can always be
brute-forced offline; the copy prevents reading answers, not guessing them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from pathlib import Path

from attnlab.quiz import params as drawing
from attnlab.quiz.kinds import KINDS
from attnlab.quiz.errors import QuizError

FORMAT = "attnlab-student-quiz/1"
ITERATIONS = 1000
EVERYONE = "*"


def _letters(data: bytes) -> str:
    """Bytes as letters a-p (no digits, so a number can never appear inside a hash by chance)."""
    return "".join("abcdefghijklmnop"[b >> 4] + "abcdefghijklmnop"[b & 15] for b in data)


def _bytes(text: str) -> bytes:
    return bytes(("abcdefghijklmnop".index(text[i]) << 4) | "abcdefghijklmnop".index(text[i + 1]) for i in range(0, len(text), 2))


def _element_hash(salt: bytes, question_id: str, index: int, canonical: str) -> str:
    return _letters(hashlib.pbkdf2_hmac("sha256", f"{question_id}\0{index}\0{canonical}".encode(), salt, ITERATIONS, dklen=12))


def _keystream(key: bytes, length: int) -> bytes:
    blocks = (hashlib.sha256(key + counter.to_bytes(8, "big")).digest() for counter in range((length + 31) // 32))
    return b"".join(blocks)[:length]


def _explanation_key(salt: bytes, canonical: list[str]) -> bytes:
    return hashlib.pbkdf2_hmac("sha256", "\0".join(canonical).encode(), salt + b"explanation", ITERATIONS)


def _encrypt(text: str, key: bytes) -> str:
    data = text.encode()
    return _letters(bytes(a ^ b for a, b in zip(data, _keystream(key, len(data)))))


def _decrypt(cipher: str, key: bytes) -> str:
    data = _bytes(cipher)
    return bytes(a ^ b for a, b in zip(data, _keystream(key, len(data)))).decode("utf-8", "replace")


def student_tag(salt: bytes, student: str) -> str:
    return _letters(hmac.new(salt, student.encode(), "sha256").digest()[:8])


def _check(question_id: str, kind_name: str, key, explanation: str, tolerance: float, salt: bytes) -> dict:
    kind = KINDS[kind_name]
    canonical = kind.canonical(key, tolerance)
    return {
        "tolerance": tolerance,
        "layout": kind.shape(key),
        "hashes": [_element_hash(salt, question_id, i, form) for i, form in enumerate(canonical)],
        "explanation": _encrypt(explanation, _explanation_key(salt, canonical)),
    }


def build(quiz, roster: list[str], reference_factory) -> dict:
    """The student copy of ``quiz`` as JSON-able data; parameterized checks for ``roster``."""
    from attnlab.quiz.variant import keyed_question

    questions = []
    for question in quiz.questions:
        salt = secrets.token_bytes(16)
        students = roster if question.params else [EVERYONE]
        variants = {}
        for student in students:
            keyed = keyed_question(quiz, question, student if student != EVERYONE else "", reference_factory)
            tag = EVERYONE if student == EVERYONE else student_tag(salt, student)
            variants[tag] = _check(question.id, question.type, keyed.key, keyed.explanation, keyed.tolerance, salt)
        questions.append(
            {
                "id": question.id,
                "type": question.type,
                "prompt": question.prompt,
                "options": question.options or [],
                "points": question.points,
                "hint": question.hint,
                "concepts": question.concepts,
                "tolerance": question.tolerance,
                "params": {k: v.model_dump(exclude_none=True) for k, v in question.params.items()},
                "salt": _letters(salt),
                "variants": variants,
            }
        )
    return {"format": FORMAT, "id": quiz.id, "title": quiz.title, "description": quiz.description, "questions": questions}


@dataclass(frozen=True)
class HashedCheck:
    """Checks one student's answer to one question against the copy's hashes."""

    question_id: str
    kind_name: str
    tolerance: float
    salt: bytes
    variant: dict | None

    def check(self, value) -> tuple[bool | None, str | None]:
        """(right?, explanation if right); (None, None) when this copy cannot check the variant."""
        if self.variant is None:
            return None, None
        kind = KINDS[self.kind_name]
        if kind.shape(value) != self.variant["layout"]:
            return False, None
        tolerance = self.variant.get("tolerance", self.tolerance)
        matched = []
        for index, (candidates, expected) in enumerate(zip(kind.candidates(value, tolerance), self.variant["hashes"])):
            form = next((c for c in candidates if _element_hash(self.salt, self.question_id, index, c) == expected), None)
            if form is None:
                return False, None
            matched.append(form)
        return True, _decrypt(self.variant["explanation"], _explanation_key(self.salt, matched))


def load(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise QuizError(f"{path}: no such quiz file") from None
    except (ValueError, UnicodeDecodeError):
        raise QuizError(f"{path}: not a student quiz (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise QuizError(f"{path}: not an attnlab student quiz (format {FORMAT!r} expected)")
    return data


def questions_for(copy: dict, student: str):
    """(AskedQuestion, HashedCheck) for each question of the copy, in this student's variant."""
    from attnlab.quiz.asked import AskedQuestion  # light: no numpy, no reference

    items = []
    for entry in copy["questions"]:
        values = drawing.draw(entry["params"], drawing.variant_seed(copy["id"], entry["id"], student))
        salt = _bytes(entry["salt"])
        variant = entry["variants"].get(EVERYONE) or entry["variants"].get(student_tag(salt, student))
        asked = AskedQuestion(
            id=entry["id"],
            type=entry["type"],
            prompt=drawing.render(entry["prompt"], values),
            options=tuple(drawing.render(o, values) for o in entry["options"]),
            points=entry["points"],
            hint=drawing.render(entry["hint"], values),
            concepts=tuple(entry["concepts"]),
            tolerance=entry["tolerance"],
        )
        items.append((asked, HashedCheck(entry["id"], entry["type"], entry["tolerance"], salt, variant)))
    return items
