"""A quiz as Moodle XML, for an LMS's question bank: one fixed variant, or a pool of N per question.

Question types map to Moodle's own: ``integer`` and ``number`` to *numerical*
(with the question's tolerance), ``vector`` and ``matrix`` to *cloze* with one
numerical blank per entry, ``shape`` to *shortanswer* (the usual spellings),
``single``/``multiple`` to *multichoice*, ``truefalse`` to *truefalse*. With
``variants`` > 1 each parameterized question becomes a category holding that
many variants, for Moodle's "random question from category"; the keys are the
ones ``attnlab quiz key`` gives the pseudo-students ``variant-1`` … ``variant-N``.
"""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from typing import Callable

from attnlab.quiz.kinds import LETTERS
from attnlab.quiz.variant import KeyedQuestion, keyed_question

FIXED_VARIANT = "moodle"


def _text(parent: ET.Element, tag: str, text: str, **attributes) -> ET.Element:
    element = ET.SubElement(parent, tag, attributes)
    ET.SubElement(element, "text").text = text
    return element


def _html(text: str) -> str:
    # Moodle reads the text as HTML: escape it once for HTML (ElementTree escapes it for XML).
    return "".join(f"<p>{html.escape(paragraph, quote=False)}</p>" for paragraph in text.split("\n\n")).replace("\n", "<br>")


def _number(value: float) -> str:
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


def _fraction(k: int) -> str:
    return f"{100 / k:.5f}".rstrip("0").rstrip(".")


def _question(parent: ET.Element, name: str, keyed: KeyedQuestion) -> None:
    asked = keyed.asked
    kind = asked.type
    moodle_type = {
        "integer": "numerical", "number": "numerical", "vector": "cloze", "matrix": "cloze",
        "shape": "shortanswer", "single": "multichoice", "multiple": "multichoice", "truefalse": "truefalse",
    }[kind]
    question = ET.SubElement(parent, "question", {"type": moodle_type})
    _text(question, "name", name)
    prompt = asked.prompt.rstrip()
    if moodle_type == "cloze":
        prompt += "\n\n" + _cloze_blanks(kind, keyed)
    _text(question, "questiontext", _html(prompt), format="html")
    _text(question, "generalfeedback", _html(keyed.explanation), format="html")
    ET.SubElement(question, "defaultgrade").text = f"{asked.points:g}"
    ET.SubElement(question, "penalty").text = "0"
    ET.SubElement(question, "hidden").text = "0"
    if asked.hint:
        _text(question, "hint", _html(asked.hint), format="html")
    if moodle_type == "numerical":
        answer = _text(question, "answer", _number(keyed.key), fraction="100", format="moodle_auto_format")
        ET.SubElement(answer, "tolerance").text = "0" if kind == "integer" else _number(keyed.tolerance)
    elif kind == "shape":
        sizes = [str(int(x)) for x in keyed.key]
        spellings = dict.fromkeys(["(" + ", ".join(sizes) + ")", "(" + ",".join(sizes) + ")", ", ".join(sizes), " x ".join(sizes), "x".join(sizes), " × ".join(sizes)])
        for spelling in spellings:
            _text(question, "answer", spelling, fraction="100", format="moodle_auto_format")
        ET.SubElement(question, "usecase").text = "0"
    elif kind in ("single", "multiple"):
        right = {keyed.key} if kind == "single" else set(keyed.key)
        wrong = len(asked.options) - len(right)
        ET.SubElement(question, "single").text = "true" if kind == "single" else "false"
        ET.SubElement(question, "shuffleanswers").text = "false"  # options may refer to each other ("both a and b")
        ET.SubElement(question, "answernumbering").text = "abc"
        for index, option in enumerate(asked.options):
            if LETTERS[index] in right:
                fraction = _fraction(len(right))
            else:
                fraction = "0" if kind == "single" or not wrong else "-" + _fraction(wrong)
            _text(question, "answer", _html(option), fraction=fraction, format="html")
    elif kind == "truefalse":
        for word in ("true", "false"):
            _text(question, "answer", word, fraction="100" if (word == "true") == bool(keyed.key) else "0")


def _cloze_blanks(kind: str, keyed: KeyedQuestion) -> str:
    """One {1:NUMERICAL:=value:tolerance} blank per entry, laid out as the vector or the matrix."""
    def blank(x: float) -> str:
        return "{1:NUMERICAL:=" + _number(x) + ":" + _number(keyed.tolerance) + "}"

    rows = keyed.key if kind == "matrix" else [keyed.key]
    return "\n".join("  ".join(blank(x) for x in row) for row in rows)


def moodle_xml(quiz, reference_factory: Callable, variants: int = 1) -> str:
    """The quiz as a Moodle XML question bank (a string)."""
    if variants < 1:
        raise ValueError("variants must be at least 1")
    root = ET.Element("quiz")
    category_base = f"$course$/top/attnlab/{quiz.id}"
    _category(root, category_base, quiz.title)
    for question in quiz.questions:
        pooled = variants > 1 and bool(question.params)
        if pooled:
            _category(root, f"{category_base}/{question.id}", f"{variants} variants of {question.id}")
        students = [f"variant-{n}" for n in range(1, variants + 1)] if pooled else [FIXED_VARIANT]
        for number, student in enumerate(students, start=1):
            name = f"{quiz.id}: {question.id}" + (f" (variant {number})" if pooled else "")
            _question(root, name, keyed_question(quiz, question, student, reference_factory))
        if pooled:
            _category(root, category_base, quiz.title)  # back to the quiz's own category
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _category(root: ET.Element, path: str, info: str) -> None:
    question = ET.SubElement(root, "question", {"type": "category"})
    _text(question, "category", path)
    _text(question, "info", info, format="plain_text")

