"""A quiz as Moodle XML, for an LMS's question bank: one fixed variant, or a pool of N per question.

Each answer kind's form of question (``kinds.lms_forms``) maps to a type of Moodle's own
(``FORMS``): ``Numerical`` (``integer``, ``number``) to *numerical* (keyed at the grid point
attnlab rounds to, with the question's tolerance: ``lms_text``), ``Blanks`` (``vector``,
``matrix``) to *cloze* with one numerical blank per entry, ``ShortAnswer`` (``shape``) to
*shortanswer* (every spelling the terminal quiz reads), ``OneChoice`` and ``EveryRightChoice``
(``single``, ``multiple``) to *multichoice*, ``TrueOrFalse`` to *truefalse*. With ``variants`` > 1
each parameterized question becomes a category holding that many variants, for Moodle's "random question from category"
(the keys ``attnlab quiz key`` gives the pseudo-students ``variant-1`` … ``variant-N``), and a
question with a pool a category of its exam items (never its practice items). A number is keyed
at the centre of the answers attnlab marks right, with the half width of that interval as its
tolerance (the grid point ± tolerance, widened by the question's slack).

A cloze question's mark is not its ``defaultgrade``: Moodle's import
(``qtype_multianswer_extract_question``) sets it to the sum of its blanks' weights, each a
positive whole number (``{N:NUMERICAL:...}``). So a question of P points with n entries gets
weights P/n when n divides P, and is worth exactly P; otherwise each blank weighs 1 and the
question n marks, which Moodle cannot bring to P: ``MoodleExport.marks_to_set`` lists those
questions, and the instructor sets each one's maximum mark to P in the quiz (Moodle scales
the fraction). Moodle also gives part marks per right entry where attnlab gives all or
nothing; no Moodle question type checks a vector within a tolerance all at once.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Callable

from attnlab.export.quiz.lms_text import accepted_interval, explanation, export_variants, key_number, to_html
from attnlab.quiz.errors import QuizError
from attnlab.quiz.kinds import LETTERS, lms_forms
from attnlab.quiz.variant import KeyedQuestion, keyed_for_values
from attnlab.wording import with_article

FIXED_VARIANT = "moodle"


@dataclass
class MoodleExport:
    xml: str
    marks_to_set: dict[str, tuple[float, list[int]]] = field(default_factory=dict)
    """Question id -> (attnlab's points, the marks its variants have in Moodle) where they differ."""


def _text(parent: ET.Element, tag: str, text: str, **attributes) -> ET.Element:
    element = ET.SubElement(parent, tag, attributes)
    ET.SubElement(element, "text").text = text
    return element


def _html(text: str) -> str:
    # Moodle reads the text as HTML: escaped once for HTML here (ElementTree escapes it for XML).
    return to_html(text)


def _fraction(k: int) -> str:
    return f"{100 / k:.5f}".rstrip("0").rstrip(".")


def cloze_weight(entries: int, points: float) -> int:
    """Each blank's weight: P/n when that is whole (the question is worth P), else 1 (worth n)."""
    return (
        int(points) // entries if float(points).is_integer() and points >= entries and int(points) % entries == 0 else 1
    )


def _numerical(
    question: ET.Element, keyed: KeyedQuestion, form: lms_forms.Numerical, text: str
) -> tuple[str, int | None]:
    centre, width = accepted_interval(form.key, form.tolerance, form.slack)
    answer = _text(question, "answer", key_number(float(centre), 0), fraction="100", format="moodle_auto_format")
    ET.SubElement(answer, "tolerance").text = key_number(float(width), 0)
    return text, None


def _short_answer(
    question: ET.Element, keyed: KeyedQuestion, form: lms_forms.ShortAnswer, text: str
) -> tuple[str, int | None]:
    for spelling in form.spellings:
        _text(question, "answer", spelling, fraction="100", format="moodle_auto_format")
    ET.SubElement(question, "usecase").text = "0"
    return text, None


def _choices(question: ET.Element, keyed: KeyedQuestion, form, text: str) -> tuple[str, int | None]:
    single = isinstance(form, lms_forms.OneChoice)
    right = {form.right} if single else set(form.right)
    wrong = len(keyed.asked.options) - len(right)
    ET.SubElement(question, "single").text = "true" if single else "false"
    ET.SubElement(question, "shuffleanswers").text = "false"  # options may refer to each other ("both a and b")
    ET.SubElement(question, "answernumbering").text = "abc"
    for index, option in enumerate(keyed.asked.options):
        if LETTERS[index] in right:
            fraction = _fraction(len(right))
        else:
            fraction = "0" if single or not wrong else "-" + _fraction(wrong)
        _text(question, "answer", _html(option), fraction=fraction, format="html")
    return text, None


def _true_or_false(
    question: ET.Element, keyed: KeyedQuestion, form: lms_forms.TrueOrFalse, text: str
) -> tuple[str, int | None]:
    for word in ("true", "false"):
        _text(question, "answer", word, fraction="100" if (word == "true") == form.value else "0")
    return text, None


def _cloze(question: ET.Element, keyed: KeyedQuestion, form: lms_forms.Blanks, text: str) -> tuple[str, int | None]:
    """One {W:NUMERICAL:=value:tolerance} blank per entry, laid out as the vector or the matrix
    (an HTML table: spaces between blanks would collapse); the question's mark in Moodle where
    its blanks' weights cannot make its points."""
    entries = len(form.entries)
    weight = cloze_weight(entries, keyed.asked.points)

    def blank(x: float, slack: float) -> str:
        centre, width = accepted_interval(x, form.tolerance, slack)
        return f"<td>{{{weight}:NUMERICAL:={key_number(float(centre), 0)}:{key_number(float(width), 0)}}}</td>"

    cells = ("<tr>" + "".join(blank(x, slack) for _, x, slack in row) + "</tr>" for row in form.rows)
    mark = None if weight * entries == keyed.asked.points else weight * entries
    return text + "<table>" + "".join(cells) + "</table>", mark


# Each form of question an answer kind can take: Moodle's question type, and what it writes (the
# answers; the question text, which a cloze's blanks extend; the mark where it is not the points).
FORMS = {
    lms_forms.Numerical: ("numerical", _numerical),
    lms_forms.Blanks: ("cloze", _cloze),
    lms_forms.ShortAnswer: ("shortanswer", _short_answer),
    lms_forms.OneChoice: ("multichoice", _choices),
    lms_forms.EveryRightChoice: ("multichoice", _choices),
    lms_forms.TrueOrFalse: ("truefalse", _true_or_false),
}


def _question(parent: ET.Element, name: str, keyed: KeyedQuestion, explained: str) -> int | None:
    """Write the question; return its mark in Moodle when that is not its ``defaultgrade``."""
    asked = keyed.asked
    form = asked.kind.lms_question(keyed)
    if type(form) not in FORMS:
        answer = f"{with_article(asked.type)} answer ({type(form).__name__})"
        raise QuizError(f"question {asked.id}: Moodle has no question type for {answer}")
    moodle_type, write = FORMS[type(form)]
    question = ET.SubElement(parent, "question", {"type": moodle_type})
    _text(question, "name", name)
    # What the form writes (its answers) follows the fields every question has; a cloze keeps its blanks in its text.
    answers = ET.Element("answers")
    text, mark = write(answers, keyed, form, _html(asked.prompt.rstrip()))
    _text(question, "questiontext", text, format="html")
    _text(question, "generalfeedback", _html(explained), format="html")
    ET.SubElement(question, "defaultgrade").text = f"{asked.points:g}"
    ET.SubElement(question, "penalty").text = "0"
    ET.SubElement(question, "hidden").text = "0"
    if asked.hint:
        _text(question, "hint", _html(asked.hint), format="html")
    question.extend(answers)
    return mark


def moodle_xml(quiz, reference_factory: Callable, variants: int = 1) -> str:
    """The quiz as a Moodle XML question bank (a string)."""
    return moodle_export(quiz, reference_factory, variants).xml


def moodle_export(quiz, reference_factory: Callable, variants: int = 1) -> MoodleExport:
    """The quiz as a Moodle XML question bank, and the marks the instructor must set."""
    if variants < 1:
        raise ValueError("variants must be at least 1")
    export = MoodleExport("")
    root = ET.Element("quiz")
    category_base = f"$course$/top/attnlab/{quiz.id}"
    _category(root, category_base, quiz.title)
    for question in quiz.questions:
        exported = export_variants(quiz, question, variants, FIXED_VARIANT)
        pooled = len(exported) > 1
        if pooled:
            _category(root, f"{category_base}/{question.id}", f"{len(exported)} variants of {question.id}")
        for number, (who, values) in enumerate(exported, start=1):
            name = f"{quiz.id}: {question.id}" + (f" (variant {number})" if pooled else "")
            keyed = keyed_for_values(quiz, question, values, who, reference_factory)
            mark = _question(root, name, keyed, explanation(question, values, keyed))
            if mark is not None:
                export.marks_to_set.setdefault(question.id, (question.points, []))[1].append(mark)
        if pooled:
            _category(root, category_base, quiz.title)  # back to the quiz's own category
    ET.indent(root)
    export.xml = '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
    return export


def _category(root: ET.Element, path: str, info: str) -> None:
    question = ET.SubElement(root, "question", {"type": "category"})
    _text(question, "category", path)
    _text(question, "info", info, format="plain_text")
