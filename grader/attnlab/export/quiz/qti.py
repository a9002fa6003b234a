"""A quiz as a QTI 1.2 package: the zip Canvas (and Blackboard, D2L) imports, as text2qti writes it.

The zip holds ``imsmanifest.xml``, which names one ``imsqti_xmlv1p2`` resource, the
assessment ``ID/ID.xml`` (a ``questestinterop``), and its dependency ``ID/assessment_meta.xml``
(Canvas's quiz settings). Each answer kind says which form of question it is in an LMS
(``kinds.lms_forms``); each form maps to a type of Canvas's own (``FORMS``):

- ``Numerical`` (``integer``, ``number``): *numerical_question*, right from the grid point attnlab
  rounds the key to minus the tolerance to it plus the tolerance (``lms_text``), or the key exactly;
- ``OneChoice`` (``single``): *multiple_choice_question*; ``EveryRightChoice`` (``multiple``):
  *multiple_answers_question* (every right option and no wrong one); ``TrueOrFalse``:
  *true_false_question*;
- ``ShortAnswer`` (``shape``): *short_answer_question*, with every spelling the terminal quiz reads;
- ``Blanks`` (``vector``, ``matrix``): *fill_in_multiple_blanks_question*, one blank per entry in a table.
  Canvas has no matrix type and its blanks compare text, not numbers, so each blank accepts the
  list of decimals, written to the question's precision or one decimal more, that attnlab marks
  right (0.43, .43, 0.425 … 0.434 for a key of 0.4268 at two decimals). The other way, one
  numerical question per entry, would keep any precision but cannot go in a question group
  (a group draws whole questions, not sets of them) and would split one question into n.
  Canvas gives part marks per right blank where attnlab gives all or nothing.

With ``variants`` > 1 each parameterized question becomes a question group of N variants
("pick 1", worth the question's points), the variants being those ``attnlab quiz key`` gives the
pseudo-students ``variant-1`` … ``variant-N``, as in the Moodle export; a question with a pool
becomes a group of its exam items. Canvas shows students the right answers after they submit
only with ``show_answers`` (``quiz export --show-answers``): an exam keeps them.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile
from decimal import ROUND_FLOOR, Decimal
from typing import Callable

from attnlab.export.quiz.lms_text import accepted_interval, explanation, export_variants, key_number, to_html
from attnlab.quiz.errors import QuizError
from attnlab.quiz.kinds import KINDS, LETTERS, lms_forms
from attnlab.quiz.kinds.number import KIND as NUMBER
from attnlab.quiz.variant import KeyedQuestion, keyed_for_values
from attnlab.wording import with_article

QTI_NS = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
MANIFEST_NS = "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"
CANVAS_NS = "http://canvas.instructure.com/xsd/cccv1p0"
FIXED_VARIANT = "qti"


def _ident(*parts: str) -> str:
    return "attnlab_" + "_".join(re.sub(r"[^A-Za-z0-9-]", "-", p) for p in parts)


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attributes) -> ET.Element:
    element = ET.SubElement(parent, tag, {k.rstrip("_"): v for k, v in attributes.items()})
    if text is not None:
        element.text = text
    return element


def _material(parent: ET.Element, html_text: str) -> None:
    _sub(_sub(parent, "material"), "mattext", html_text, texttype="text/html")


def _metadata(item: ET.Element, fields: dict[str, str]) -> None:
    table = _sub(_sub(item, "itemmetadata"), "qtimetadata")
    for label, entry in fields.items():
        field = _sub(table, "qtimetadatafield")
        _sub(field, "fieldlabel", label)
        _sub(field, "fieldentry", entry)


def _choice(
    presentation: ET.Element, cardinality: str, choices: list[tuple[str, str]], ident: str = "response1"
) -> None:
    render = _sub(_sub(presentation, "response_lid", ident=ident, rcardinality=cardinality), "render_choice")
    for choice_id, text in choices:
        _material(_sub(render, "response_label", ident=choice_id), text)


def _set_score(resprocessing: ET.Element, condition: Callable[[ET.Element], None]) -> None:
    respcondition = _sub(resprocessing, "respcondition", continue_="No")
    condition(_sub(respcondition, "conditionvar"))
    _sub(respcondition, "setvar", "100", action="Set", varname="SCORE")


MAX_SPELLINGS = 100
"""Values at one more decimal than asked, at most, that a blank lists (each also as ``.43``)."""


def blank_answers(x: float, tolerance: float, decimals_asked: int, slack: float = 0.0) -> list[str]:
    """The decimals, to the asked precision or one more, that attnlab marks right for key ``x``."""
    middle, width = accepted_interval(x, tolerance, slack)
    spellings = []
    for decimals in range(0, decimals_asked + 2):
        step = Decimal(1).scaleb(-decimals)
        if Decimal(repr(2 * tolerance)) / step > MAX_SPELLINGS and decimals > decimals_asked:
            continue  # a wide relative tolerance: the asked precision alone, not a thousand decimals
        low = ((middle - width) / step).to_integral_value(ROUND_FLOOR) * step
        value = low
        while value <= middle + width:
            text = f"{value:.{decimals}f}"
            if NUMBER.matches(float(text), x, tolerance, slack):
                spellings.append("0" if re.fullmatch(r"-?0\.?0*", text) and decimals == 0 else text)
                if re.match(r"-?0\.", text):
                    spellings.append(text.replace("0.", ".", 1))
            value += step
    return list(dict.fromkeys(s for s in spellings if s not in ("-0", "-.0")))


def decimals_asked(tolerance: float) -> int:
    return max(0, -Decimal(repr(2 * tolerance)).normalize().as_tuple().exponent)


class _Form:
    """How one form of question (``kinds.lms_forms``) is written in QTI: its Canvas type, the
    choices its metadata lists, what follows the prompt, the response and the scoring."""

    canvas_type = ""

    def choices(self, ident: str, keyed: KeyedQuestion, form) -> list[tuple[str, str]]:
        return []

    def after_prompt(self, form) -> str:
        return ""

    def response(self, presentation: ET.Element, ident: str, keyed: KeyedQuestion, form, choices) -> None:
        raise NotImplementedError

    def score(
        self, resprocessing: ET.Element, presentation: ET.Element, ident: str, keyed: KeyedQuestion, form
    ) -> None:
        raise NotImplementedError


class _Numerical(_Form):
    canvas_type = "numerical_question"

    def response(self, presentation, ident, keyed, form, choices):
        _sub(
            _sub(
                _sub(presentation, "response_str", ident="response1", rcardinality="Single"),
                "render_fib",
                fibtype="Decimal",
            ),
            "response_label",
            ident="answer1",
        )

    def score(self, resprocessing, presentation, ident, keyed, form):
        middle, width = accepted_interval(form.key, form.tolerance, form.slack)

        def in_range(condition):
            either = _sub(condition, "or")
            _sub(either, "varequal", key_number(form.key, form.tolerance), respident="response1")
            both = _sub(either, "and")
            _sub(both, "vargte", _plain(middle - width), respident="response1")
            _sub(both, "varlte", _plain(middle + width), respident="response1")

        _set_score(resprocessing, in_range)


class _OneChoice(_Form):
    canvas_type = "multiple_choice_question"

    def choices(self, ident, keyed, form):
        return [(f"{ident}_{LETTERS[i]}", to_html(option)) for i, option in enumerate(keyed.asked.options)]

    def response(self, presentation, ident, keyed, form, choices):
        _choice(presentation, "Single", choices)

    def score(self, resprocessing, presentation, ident, keyed, form):
        _set_score(resprocessing, lambda c: _sub(c, "varequal", f"{ident}_{form.right}", respident="response1"))


class _EveryRightChoice(_OneChoice):
    canvas_type = "multiple_answers_question"

    def response(self, presentation, ident, keyed, form, choices):
        _choice(presentation, "Multiple", choices)

    def score(self, resprocessing, presentation, ident, keyed, form):
        def every_right_none_wrong(condition):
            both = _sub(condition, "and")
            for index in range(len(keyed.asked.options)):
                target = both if LETTERS[index] in form.right else _sub(both, "not")
                _sub(target, "varequal", f"{ident}_{LETTERS[index]}", respident="response1")

        _set_score(resprocessing, every_right_none_wrong)


class _TrueOrFalse(_Form):
    canvas_type = "true_false_question"

    def choices(self, ident, keyed, form):
        return [(f"{ident}_true", "True"), (f"{ident}_false", "False")]

    def response(self, presentation, ident, keyed, form, choices):
        _choice(presentation, "Single", choices)

    def score(self, resprocessing, presentation, ident, keyed, form):
        _set_score(
            resprocessing,
            lambda c: _sub(c, "varequal", f"{ident}_{'true' if form.value else 'false'}", respident="response1"),
        )


class _ShortAnswer(_Form):
    canvas_type = "short_answer_question"

    def response(self, presentation, ident, keyed, form, choices):
        _sub(
            _sub(_sub(presentation, "response_str", ident="response1", rcardinality="Single"), "render_fib"),
            "response_label",
            ident="answer1",
            rshuffle="No",
        )

    def score(self, resprocessing, presentation, ident, keyed, form):
        def any_spelling(condition):
            for spelling in form.spellings:
                _sub(condition, "varequal", spelling, respident="response1")

        _set_score(resprocessing, any_spelling)


class _Blanks(_Form):
    canvas_type = "fill_in_multiple_blanks_question"

    def after_prompt(self, form):
        return (
            "<table>"
            + "".join("<tr>" + "".join(f"<td>[{name}]</td>" for name, _, _ in row) + "</tr>" for row in form.rows)
            + "</table>"
        )

    def response(self, presentation, ident, keyed, form, choices):
        asked_decimals = decimals_asked(form.tolerance)
        for name, x, slack in form.entries:
            lid = _sub(presentation, "response_lid", ident=f"response_{name}")
            _sub(_sub(lid, "material"), "mattext", name)
            render = _sub(lid, "render_choice")
            for number, spelling in enumerate(blank_answers(x, form.tolerance, asked_decimals, slack)):
                _material(_sub(render, "response_label", ident=f"{ident}_{name}_{number}"), spelling)

    def score(self, resprocessing, presentation, ident, keyed, form):
        blanks = form.entries
        share = f"{100 / len(blanks):.4f}".rstrip("0").rstrip(".")
        path = "response_lid[@ident='response_{}']/render_choice"
        labels = {name: presentation.find(path.format(name)) for name, *_ in blanks}
        render_ids = {name: [label.get("ident") for label in choices] for name, choices in labels.items()}
        for name, _, _ in blanks:
            for label_id in render_ids[name]:
                add = _sub(resprocessing, "respcondition")
                _sub(_sub(add, "conditionvar"), "varequal", label_id, respident=f"response_{name}")
                _sub(add, "setvar", share, varname="SCORE", action="Add")


FORMS: dict[type, _Form] = {
    lms_forms.Numerical: _Numerical(),
    lms_forms.OneChoice: _OneChoice(),
    lms_forms.EveryRightChoice: _EveryRightChoice(),
    lms_forms.TrueOrFalse: _TrueOrFalse(),
    lms_forms.ShortAnswer: _ShortAnswer(),
    lms_forms.Blanks: _Blanks(),
}
"""How QTI writes each form of question an answer kind can take."""
CANVAS_TYPES = {name: FORMS[kind.lms_form].canvas_type for name, kind in KINDS.items() if kind.lms_form in FORMS}
"""Each answer kind's question type in Canvas."""


def _writer(keyed: KeyedQuestion):
    """The form of ``keyed`` in an LMS, and how QTI writes it; a ``QuizError`` for a form QTI has not learnt."""
    form = keyed.asked.kind.lms_question(keyed)
    writer = FORMS.get(type(form))
    if writer is None:
        answer = f"{with_article(keyed.asked.type)} answer ({type(form).__name__})"
        raise QuizError(f"question {keyed.asked.id}: QTI has no question for {answer}")
    return form, writer


def _item(parent: ET.Element, ident: str, title: str, keyed: KeyedQuestion, explained: str) -> None:
    asked = keyed.asked
    form, writer = _writer(keyed)
    item = _sub(parent, "item", ident=ident, title=title)
    choices = writer.choices(ident, keyed, form)
    _metadata(
        item,
        {
            "question_type": writer.canvas_type,
            "points_possible": f"{asked.points:g}",
            "original_answer_ids": ",".join(c for c, _ in choices),
            "assessment_question_identifierref": f"{ident}_ref",
        },
    )
    presentation = _sub(item, "presentation")
    _material(presentation, to_html(asked.prompt.rstrip()) + writer.after_prompt(form))
    writer.response(presentation, ident, keyed, form, choices)
    resprocessing = _sub(item, "resprocessing")
    _sub(_sub(resprocessing, "outcomes"), "decvar", maxvalue="100", minvalue="0", varname="SCORE", vartype="Decimal")
    feedback = _sub(resprocessing, "respcondition", continue_="Yes")
    _sub(_sub(feedback, "conditionvar"), "other")
    _sub(feedback, "displayfeedback", feedbacktype="Response", linkrefid="general_fb")
    writer.score(resprocessing, presentation, ident, keyed, form)
    flow = _sub(_sub(item, "itemfeedback", ident="general_fb"), "flow_mat")
    _material(flow, to_html(explained))


def _plain(value: Decimal) -> str:
    text = f"{value.normalize():f}"
    return "0" if text in ("-0", "") else text


def assessment_xml(quiz, reference_factory: Callable, variants: int, ident: str) -> str:
    root = ET.Element("questestinterop", {"xmlns": QTI_NS})
    assessment = _sub(root, "assessment", ident=ident, title=quiz.title)
    metadata = _sub(_sub(assessment, "qtimetadata"), "qtimetadatafield")
    _sub(metadata, "fieldlabel", "cc_maxattempts")
    _sub(metadata, "fieldentry", "1")
    section = _sub(assessment, "section", ident="root_section")
    for question in quiz.questions:
        exported = export_variants(quiz, question, variants, FIXED_VARIANT)
        pooled = len(exported) > 1
        parent = section
        if pooled:
            title = f"{question.id}: {len(exported)} variants"
            parent = _sub(section, "section", ident=_ident(quiz.id, question.id, "group"), title=title)
            selection = _sub(_sub(parent, "selection_ordering"), "selection")
            _sub(selection, "selection_number", "1")
            _sub(_sub(selection, "selection_extension"), "points_per_item", f"{question.points:g}")
        for number, (who, values) in enumerate(exported, start=1):
            keyed = keyed_for_values(quiz, question, values, who, reference_factory)
            title = f"{question.id}" + (f" (variant {number})" if pooled else "")
            _item(parent, _ident(quiz.id, question.id, str(number)), title, keyed, explanation(question, values, keyed))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _manifest(ident: str) -> str:
    root = ET.Element("manifest", {"identifier": f"{ident}_manifest", "xmlns": MANIFEST_NS})
    metadata = _sub(root, "metadata")
    _sub(metadata, "schema", "IMS Content")
    _sub(metadata, "schemaversion", "1.1.3")
    _sub(root, "organizations")
    resources = _sub(root, "resources")
    resource = _sub(resources, "resource", identifier=ident, type="imsqti_xmlv1p2")
    _sub(resource, "file", href=f"{ident}/{ident}.xml")
    _sub(resource, "dependency", identifierref=f"{ident}_meta")
    meta = _sub(
        resources,
        "resource",
        identifier=f"{ident}_meta",
        type="associatedcontent/imscc_xmlv1p1/learning-application-resource",
        href=f"{ident}/assessment_meta.xml",
    )
    _sub(meta, "file", href=f"{ident}/assessment_meta.xml")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _assessment_meta(quiz, ident: str, show_answers: bool = False) -> str:
    """Canvas's settings of the quiz: an unpublished graded quiz worth the questions' points, that
    shows students the right answers only if asked (an exam must not: classmates sit it later)."""
    points = f"{sum(q.points for q in quiz.questions):g}"
    root = ET.Element("quiz", {"identifier": ident, "xmlns": CANVAS_NS})
    _sub(root, "title", quiz.title)
    _sub(root, "description", to_html(quiz.description or ""))
    _sub(root, "shuffle_answers", "false")  # options may refer to each other ("both a and b")
    _sub(root, "scoring_policy", "keep_highest")
    _sub(root, "quiz_type", "assignment")
    _sub(root, "points_possible", points)
    _sub(root, "show_correct_answers", "true" if show_answers else "false")
    _sub(root, "allowed_attempts", "1")
    _sub(root, "available", "false")
    assignment = _sub(root, "assignment", identifier=f"{ident}_assignment")
    _sub(assignment, "title", quiz.title)
    _sub(assignment, "workflow_state", "unpublished")
    _sub(assignment, "quiz_identifierref", ident)
    _sub(assignment, "points_possible", points)
    _sub(assignment, "grading_type", "points")
    _sub(assignment, "submission_types", "online_quiz")
    _sub(root, "assignment_group_identifierref", f"{ident}_assignment-group")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def qti_zip(quiz, reference_factory: Callable, variants: int = 1, show_answers: bool = False) -> bytes:
    """The QTI 1.2 package of the quiz (the bytes of a zip)."""
    if variants < 1:
        raise ValueError("variants must be at least 1")
    ident = _ident(quiz.id)
    stream = io.BytesIO()
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as package:
        package.writestr("imsmanifest.xml", _manifest(ident))
        package.writestr(f"{ident}/assessment_meta.xml", _assessment_meta(quiz, ident, show_answers))
        package.writestr(f"{ident}/{ident}.xml", assessment_xml(quiz, reference_factory, variants, ident))
    return stream.getvalue()
