"""Quiz export for an LMS: Moodle XML and a QTI 1.2 zip, each answer of each variant checked
against the key by attnlab's own rule of right (``Kind.matches``)."""

import html
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from decimal import ROUND_HALF_UP, Decimal

import pytest
import yaml
from conftest import COURSE, REPO

from attnlab.quiz.items import reference_factory_for
from attnlab.quiz import student_copy
from attnlab.quiz.kinds import KINDS, LETTERS, per_element
from attnlab.export.quiz.lms_text import shape_spellings, to_html
from attnlab.export.quiz.moodle import FIXED_VARIANT, moodle_export, moodle_xml
from attnlab.export.quiz.qti import CANVAS_TYPES, QTI_NS, qti_zip
from attnlab.export.quiz.qti import FIXED_VARIANT as QTI_VARIANT
from attnlab.quiz.schema import load_quiz
from attnlab.export.quiz.lms_text import accepted_interval, export_variants
from attnlab.quiz.variant import keyed_for_values, keyed_question

QUIZZES = {p.stem: load_quiz(p) for p in sorted((REPO / "quizzes").glob("*.yaml"))}
FACTORY = reference_factory_for(lambda: COURSE)
VARIANTS = 3
BLANK = re.compile(r"\{(\d+):NUMERICAL:=([^:}]+):([^}]+)\}")
EXPONENT = re.compile(r"\d[eE][-+]?\d")
ATTNLAB = [sys.executable, "-m", "attnlab.cli"]


def right(keyed, value) -> bool:
    """attnlab's one rule of right, for a value an LMS would accept."""
    return KINDS[keyed.asked.type].matches(value, keyed.key, keyed.tolerance, keyed.slack)


def variants_of(quiz, question, fixed):
    """(pseudo-student or exam item, keyed) of each variant an export with ``VARIANTS`` holds: the
    pseudo-students' variants, or every exam item of a pool (never a practice item)."""
    if question.pool is not None:
        assert len(export_variants(quiz, question, VARIANTS, fixed)) == len(question.pool.exam)
    else:
        students = [f"variant-{n}" for n in range(1, VARIANTS + 1)] if question.params else [fixed]
        assert [who for who, _ in export_variants(quiz, question, VARIANTS, fixed)] == students
    return [
        (who, keyed_for_values(quiz, question, values, who, FACTORY))
        for who, values in export_variants(quiz, question, VARIANTS, fixed)
    ]


def pooled(question) -> bool:
    return bool(question.params) or question.pool is not None


def entries(keyed) -> list[float]:
    key = keyed.key
    return [float(x) for row in key for x in row] if keyed.asked.type == "matrix" else [float(x) for x in key]


def entry_right(keyed, value: float, index: int) -> bool:
    return KINDS["number"].matches(
        value, entries(keyed)[index], keyed.tolerance, per_element(keyed.slack, len(entries(keyed)))[index]
    )


def check_numeric_range(keyed, centre: float, tolerance: float) -> None:
    """The LMS accepts centre ± tolerance: attnlab says right at the centre and just inside both
    ends, and wrong just past them (the interval is the grid points the slack reaches, ± tolerance)."""
    assert right(keyed, centre)
    if keyed.asked.type == "number":
        width = float(accepted_interval(keyed.key, keyed.tolerance, per_element(keyed.slack, 1)[0])[1])
        assert tolerance == pytest.approx(width, abs=1e-12) and tolerance >= keyed.tolerance - 1e-12
        assert right(keyed, centre - 0.999 * tolerance) and right(keyed, centre + 0.999 * tolerance)
        assert not right(keyed, centre + 1.01 * tolerance) and not right(keyed, centre - 1.01 * tolerance)
    else:
        assert tolerance == 0


# Moodle XML ---------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=sorted(QUIZZES))
def moodle(request):
    quiz = QUIZZES[request.param]
    exported = moodle_export(quiz, FACTORY, variants=VARIANTS)
    root = ET.fromstring(exported.xml)
    assert root.tag == "quiz"
    return quiz, exported, [q for q in root if q.get("type") != "category"]


def test_moodle_every_answer_of_every_variant_is_right_by_attnlab(moodle):
    quiz, exported, elements = moodle
    by_name = {e.findtext("name/text"): e for e in elements}
    for question in quiz.questions:
        for number, (student, keyed) in enumerate(variants_of(quiz, question, FIXED_VARIANT), start=1):
            element = by_name[f"{quiz.id}: {question.id}" + (f" (variant {number})" if pooled(question) else "")]
            text = element.findtext("questiontext/text")
            assert html.escape(keyed.asked.prompt.strip().split("\n")[0], quote=False) in text
            kind = question.type
            if kind in ("integer", "number"):
                (answer,) = element.findall("answer")
                assert element.get("type") == "numerical" and answer.get("fraction") == "100"
                assert not EXPONENT.search(answer.findtext("text"))
                check_numeric_range(keyed, float(answer.findtext("text")), float(answer.findtext("tolerance")))
            elif kind in ("vector", "matrix"):
                blanks = BLANK.findall(text)
                values = [float(value) for _, value, _ in blanks]
                assert len(values) == len(entries(keyed)) and right(
                    keyed,
                    values
                    if kind == "vector"
                    else [values[i : i + len(keyed.key[0])] for i in range(0, len(values), len(keyed.key[0]))],
                )
                for index, (_, value, tolerance) in enumerate(blanks):
                    width = float(tolerance)
                    slack = per_element(keyed.slack, len(entries(keyed)))[index]
                    assert width == pytest.approx(
                        float(accepted_interval(entries(keyed)[index], keyed.tolerance, slack)[1])
                    )
                    assert entry_right(keyed, float(value) - 0.999 * width, index) and entry_right(
                        keyed, float(value) + 0.999 * width, index
                    )
                    assert not entry_right(keyed, float(value) + 1.01 * width, index) and not entry_right(
                        keyed, float(value) - 1.01 * width, index
                    )
                # Moodle's mark is the sum of the weights: attnlab's points, or a mark the instructor is told to set.
                mark = sum(int(weight) for weight, _, _ in blanks)
                assert all(int(weight) >= 1 for weight, _, _ in blanks)
                if mark != question.points:
                    assert (
                        mark in exported.marks_to_set[question.id][1]
                        and exported.marks_to_set[question.id][0] == question.points
                    )
                assert "<table>" in text and text.count("<tr>") == (len(keyed.key) if kind == "matrix" else 1)
            elif kind == "shape":
                spellings = [a.findtext("text") for a in element.findall("answer")]
                assert " × ".join(map(str, keyed.key)).join("()") in spellings or len(keyed.key) == 1
                assert spellings and all(KINDS["shape"].parse(s) == keyed.key for s in spellings)
            elif kind in ("single", "multiple"):
                answers = element.findall("answer")
                assert len(answers) == len(keyed.asked.options)
                chosen = sorted(LETTERS[i] for i, a in enumerate(answers) if float(a.get("fraction")) > 0)
                assert chosen == ([keyed.key] if kind == "single" else keyed.key)
                assert sum(float(a.get("fraction")) for a in answers if float(a.get("fraction")) > 0) == pytest.approx(
                    100, abs=0.01
                )
                if kind == "multiple" and len(chosen) < len(answers):  # choosing every option earns nothing
                    assert sum(float(a.get("fraction")) for a in answers) == pytest.approx(0, abs=0.01)
            elif kind == "truefalse":
                assert [a.findtext("text") for a in element.findall("answer") if a.get("fraction") == "100"] == [
                    "true" if keyed.key else "false"
                ]
            if kind not in ("vector", "matrix"):
                assert float(element.findtext("defaultgrade")) == question.points


def test_moodle_explanations_show_numbers_as_asked_and_matrices_in_pre_blocks(moodle):
    quiz, _, elements = moodle
    for element in elements:
        feedback = element.findtext("generalfeedback/text")
        assert not EXPONENT.search(feedback), feedback
        assert not re.search(r"<p>[^<]*(<br>[^<]*)*<pre>", feedback), "a <pre> cannot sit in a <p>"
    if quiz.id == "masks":
        causal = next(e for e in elements if e.findtext("name/text").startswith("masks: causal-matrix"))
        assert "<pre>[ 1  0" in causal.findtext("generalfeedback/text")


def test_a_tiny_key_is_shown_at_the_question_precision(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(
        "id: tiny\ntitle: t\nquestions:\n  - id: gap\n    type: number\n    prompt: \"How far is sqrt({a})² from {a} (two decimals)?\"\n"
        "    params:\n      a: {choice: [2, 3, 5, 6, 7, 8, 10, 11]}\n    answer: {expr: \"sqrt(a)**2 - a\"}\n    hint: h\n    explanation: \"{answer}: none.\"\n    concepts: [c]\n"
    )
    quiz = load_quiz(path)
    keyed = keyed_question(quiz, quiz.questions[0], FIXED_VARIANT, FACTORY)
    assert 0 < abs(keyed.key) < 1e-9 and "e-" in keyed.explanation  # the terminal's own text, for contrast
    element = next(e for e in ET.fromstring(moodle_xml(quiz, FACTORY)) if e.findtext("name/text") == "tiny: gap")
    assert element.findtext("generalfeedback/text").startswith("<p>0: ") and element.findtext("answer/text") == "0"


def test_to_html_keeps_matrix_rows_apart_from_paragraphs():
    text = "W = \n    [ 1  2 ]\n    [ 3  4 ]\n, and <b>\n\nnext"
    assert to_html(text) == "<p>W = </p><pre>[ 1  2 ]\n[ 3  4 ]</pre><p>, and &lt;b&gt;</p><p>next</p>"


@pytest.mark.parametrize("shape", [(6,), (6, 2), (2, 3, 4)])
def test_every_shape_spelling_is_one_the_terminal_quiz_reads(shape):
    spellings = shape_spellings(shape)
    assert all(KINDS["shape"].parse(s) == shape for s in spellings)
    if len(shape) == 2:
        assert {"(6 × 2)", "6,2", "[6, 2]", "(6, 2)", "6x2", "6 x 2"} <= set(spellings)


# QTI 1.2 -------------------------------------------------------------------------------------

Q = f"{{{QTI_NS}}}"


@pytest.fixture(scope="module", params=sorted(QUIZZES))
def qti(request):
    quiz = QUIZZES[request.param]
    package = zipfile.ZipFile(__import__("io").BytesIO(qti_zip(quiz, FACTORY, variants=VARIANTS)))
    return quiz, package


def test_qti_package_has_the_manifest_its_resource_and_dependency(qti):
    quiz, package = qti
    names = set(package.namelist())
    manifest = ET.fromstring(package.read("imsmanifest.xml"))
    ns = manifest.tag.split("}")[0] + "}"
    assert manifest.tag == f"{ns}manifest" and ns == "{http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1}"
    resources = {r.get("identifier"): r for r in manifest.iter(f"{ns}resource")}
    (assessment,) = [r for r in resources.values() if r.get("type") == "imsqti_xmlv1p2"]
    files = [f.get("href") for f in assessment.iter(f"{ns}file")]
    assert len(files) == 1 and files[0] in names
    for dependency in assessment.iter(f"{ns}dependency"):
        meta = resources[dependency.get("identifierref")]
        assert all(f.get("href") in names for f in meta.iter(f"{ns}file"))
        settings = ET.fromstring(package.read(meta.get("href")))
        canvas = "{http://canvas.instructure.com/xsd/cccv1p0}"
        assert settings.tag == f"{canvas}quiz" and settings.findtext(f"{canvas}title") == quiz.title
        assert float(settings.findtext(f"{canvas}points_possible")) == sum(q.points for q in quiz.questions)
        assert settings.findtext(f"{canvas}assignment/{canvas}quiz_identifierref") == settings.get("identifier")
    root = ET.fromstring(package.read(files[0]))
    assert root.tag == f"{Q}questestinterop"
    (test,) = root.findall(f"{Q}assessment")
    assert test.get("title") == quiz.title and test.find(f"{Q}section").get("ident") == "root_section"


def item_metadata(item) -> dict:
    return {f.findtext(f"{Q}fieldlabel"): f.findtext(f"{Q}fieldentry") for f in item.iter(f"{Q}qtimetadatafield")}


def correct_condition(item):
    """The condition that sets the score to 100 (the key), else None (blanks add their share)."""
    for condition in item.iter(f"{Q}respcondition"):
        setvar = condition.find(f"{Q}setvar")
        if setvar is not None and setvar.get("action") == "Set" and setvar.text == "100":
            return condition.find(f"{Q}conditionvar")
    return None


def test_qti_every_answer_of_every_variant_is_right_by_attnlab(qti):
    quiz, package = qti
    name = next(
        n for n in package.namelist() if n.endswith(".xml") and "/" in n and not n.endswith("assessment_meta.xml")
    )
    section = ET.fromstring(package.read(name)).find(f"{Q}assessment/{Q}section")
    children = list(section)
    assert len(children) == len(quiz.questions)
    for child, question in zip(children, quiz.questions):
        if pooled(question):
            assert child.tag == f"{Q}section"
            assert child.findtext(f".//{Q}selection_number") == "1"
            assert float(child.findtext(f".//{Q}points_per_item")) == question.points
            items = child.findall(f"{Q}item")
        else:
            assert child.tag == f"{Q}item"
            items = [child]
        keyed_variants = variants_of(quiz, question, QTI_VARIANT)
        assert len(items) == len(keyed_variants)
        for item, (student, keyed) in zip(items, keyed_variants):
            check_item(item, question, keyed)


def check_item(item, question, keyed) -> None:
    kind = question.type
    metadata = item_metadata(item)
    assert metadata["question_type"] == CANVAS_TYPES[kind] and float(metadata["points_possible"]) == question.points
    prompt = item.find(f"{Q}presentation/{Q}material/{Q}mattext")
    assert (
        prompt.get("texttype") == "text/html"
        and html.escape(keyed.asked.prompt.strip().split("\n")[0], quote=False) in prompt.text
    )
    assert not EXPONENT.search(item.find(f"{Q}itemfeedback//{Q}mattext").text)
    condition = correct_condition(item)
    labels = {label.get("ident"): label.findtext(f".//{Q}mattext") for label in item.iter(f"{Q}response_label")}
    if kind in ("integer", "number"):
        exact = float(condition.find(f"{Q}or/{Q}varequal").text)
        low, high = (float(condition.find(f"{Q}or/{Q}and/{Q}{tag}").text) for tag in ("vargte", "varlte"))
        assert right(keyed, exact)
        check_numeric_range(keyed, (low + high) / 2, (high - low) / 2)
    elif kind == "single":
        (chosen,) = [e.text for e in condition.iter(f"{Q}varequal")]
        assert list(labels).index(chosen) == LETTERS.index(keyed.key)
    elif kind == "truefalse":
        (chosen,) = [e.text for e in condition.iter(f"{Q}varequal")]
        assert labels[chosen] == ("True" if keyed.key else "False")
    elif kind == "multiple":
        both = condition.find(f"{Q}and")
        chosen = sorted(LETTERS[list(labels).index(e.text)] for e in both.findall(f"{Q}varequal"))
        refused = sorted(LETTERS[list(labels).index(e.text)] for e in both.findall(f"{Q}not/{Q}varequal"))
        assert chosen == keyed.key and sorted(chosen + refused) == list(LETTERS[: len(keyed.asked.options)])
    elif kind == "shape":
        spellings = [e.text for e in condition.iter(f"{Q}varequal")]
        assert spellings and all(KINDS["shape"].parse(s) == keyed.key for s in spellings)
    else:  # vector, matrix: one blank per entry, each accepting only what attnlab marks right
        assert condition is None
        blanks = item.findall(f"{Q}presentation/{Q}response_lid")
        assert len(blanks) == len(entries(keyed))
        shares = Decimal(0)
        for index, blank in enumerate(blanks):
            name = blank.findtext(f"{Q}material/{Q}mattext")
            assert f"[{name}]" in prompt.text
            accepted = [label.findtext(f".//{Q}mattext") for label in blank.iter(f"{Q}response_label")]
            assert accepted and all(entry_right(keyed, float(text), index) for text in accepted)
            decimals = -Decimal(repr(2 * keyed.tolerance)).normalize().as_tuple().exponent
            assert (
                f"{Decimal(repr(entries(keyed)[index])).quantize(Decimal(1).scaleb(-decimals)):f}".replace("-0.", "0.")
                in accepted
                or entries(keyed)[index] < 0
            )
            slack = per_element(keyed.slack, len(entries(keyed)))[index]
            low, high = (Decimal(repr(entries(keyed)[index])) + d * Decimal(repr(slack)) for d in (-1, 1))
            for rounded in (low, high):  # an answer off by the slack, rounded as asked, is among them too
                text = f"{rounded.quantize(Decimal(1).scaleb(-decimals), ROUND_HALF_UP):f}"
                assert text in accepted or text.startswith("-"), (text, accepted)
            adds = [
                c
                for c in item.iter(f"{Q}respcondition")
                if c.find(f"{Q}conditionvar/{Q}varequal[@respident='{blank.get('ident')}']") is not None
            ]
            assert {c.find(f"{Q}conditionvar/{Q}varequal").text for c in adds} == {
                label.get("ident") for label in blank.iter(f"{Q}response_label")
            }
            shares += Decimal(adds[0].find(f"{Q}setvar").text)
        assert abs(shares - 100) < Decimal("0.01")


# The commands --------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_export_commands_write_moodle_and_qti_and_refuse_a_student_copy(tmp_path):
    out = tmp_path / "masks.xml"
    result = subprocess.run(
        [*ATTNLAB, "quiz", "export", "masks", "--variants", "2", "-o", out], cwd=REPO, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "causal-matrix: worth" in result.stderr and "set its maximum mark to 1 in the quiz" in result.stderr
    zipped = tmp_path / "masks.zip"
    made = subprocess.run(
        [*ATTNLAB, "quiz", "export", "masks", "--format", "qti", "--variants", "2", "-o", zipped],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    assert "imsmanifest.xml" in zipfile.ZipFile(zipped).namelist()
    copy = tmp_path / "masks.json"
    copy.write_text(
        __import__("json").dumps(
            student_copy.build(QUIZZES["masks"], "practice", FACTORY, cost={"n": 2**4, "r": 1, "p": 1})
        )
    )
    refused = subprocess.run(
        [*ATTNLAB, "quiz", "export", str(copy), "--format", "qti", "-o", tmp_path / "x.zip"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2 and "student copy" in refused.stderr and "Traceback" not in refused.stderr


@pytest.mark.slow
def test_the_exported_variant_is_the_one_quiz_key_prints(tmp_path):
    """Variant 2 of the pool is what `attnlab quiz key --student variant-2` gives."""
    key = subprocess.run(
        [*ATTNLAB, "quiz", "key", "softmax", "--student", "variant-2", "--format", "answers"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    answers = yaml.safe_load(key.stdout)["answers"]
    quiz = QUIZZES["softmax"]
    package = zipfile.ZipFile(__import__("io").BytesIO(qti_zip(quiz, FACTORY, variants=2)))
    name = next(
        n for n in package.namelist() if n.endswith(".xml") and "/" in n and not n.endswith("assessment_meta.xml")
    )
    section = ET.fromstring(package.read(name)).find(f"{Q}assessment/{Q}section")
    checked = 0
    for child, question in zip(section, quiz.questions):
        if question.type not in ("number", "integer") or not question.params:
            continue
        keyed = keyed_question(quiz, question, "variant-2", FACTORY)
        assert child.get("title") == f"{question.id}: 2 variants"
        typed = KINDS[question.type].parse(answers[question.id])
        exact = float(correct_condition(child.findall(f"{Q}item")[1]).find(f"{Q}or/{Q}varequal").text)
        assert KINDS[question.type].matches(exact, typed, keyed.tolerance)
        checked += 1
    assert checked >= 1


def test_a_cloze_is_worth_its_points_when_whole_weights_can_say_it(tmp_path):
    """Moodle's mark is the sum of the blanks' whole weights: 4 entries can be worth 8 (weights
    of 2) but not 3; then each weighs 1 and the instructor is told to set the mark."""
    path = tmp_path / "weights.yaml"
    path.write_text(
        "id: weights\ntitle: Weights\nquestions:\n"
        "  - {id: eight, type: matrix, prompt: The 2 x 2 identity., answer: [[1, 0], [0, 1]], points: 8, explanation: '{answer}', hint: h, concepts: [c]}\n"
        "  - {id: three, type: matrix, prompt: The 2 x 2 identity., answer: [[1, 0], [0, 1]], points: 3, explanation: '{answer}', hint: h, concepts: [c]}\n"
        "  - {id: two, type: vector, prompt: Two halves., answer: [0.5, 0.5], points: 2, explanation: '{answer}', hint: h, concepts: [c]}\n"
    )
    exported = moodle_export(load_quiz(path), FACTORY)
    marks = {
        e.findtext("name/text"): sum(int(w) for w, _, _ in BLANK.findall(e.findtext("questiontext/text")))
        for e in ET.fromstring(exported.xml)[1:]
    }
    assert marks == {"weights: eight": 8, "weights: three": 4, "weights: two": 2}
    assert exported.marks_to_set == {"three": (3, [4])}


@pytest.mark.slow
def test_exports_are_exam_safe_by_default_and_take_either_moodle_spelling(tmp_path):
    """Without options an export is fit for an exam: 20 variants of each parameterized question,
    every exam item of a pool (never a practice item), and Canvas shows no right answers; `moodle`
    is the spelling `quiz grade --format` uses, and `moodle-xml` is still read."""
    for spelling in ("moodle", "moodle-xml"):
        out = tmp_path / f"{spelling}.xml"
        made = subprocess.run(
            [*ATTNLAB, "quiz", "export", "softmax", "--format", spelling, "-o", out],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert made.returncode == 0 and "Traceback" not in made.stderr, made.stderr
    names = [
        e.findtext("name/text")
        for e in ET.fromstring((tmp_path / "moodle.xml").read_text())
        if e.get("type") != "category"
    ]
    assert sum(n.startswith("softmax: softmax-row (variant") for n in names) == 20
    quiz = QUIZZES["softmax"]
    text = (tmp_path / "moodle.xml").read_text()
    for item in quiz.question("which-axis").pool.exam:
        assert html.escape(item.prompt, quote=False) in text
    for item in quiz.question("which-axis").pool.practice:
        assert html.escape(item.prompt, quote=False) not in text, "a practice item never goes into an exam export"
    zipped = tmp_path / "softmax.zip"
    assert (
        subprocess.run(
            [*ATTNLAB, "quiz", "export", "softmax", "--format", "qti", "-o", zipped], cwd=REPO, capture_output=True
        ).returncode
        == 0
    )
    meta = next(n for n in zipfile.ZipFile(zipped).namelist() if n.endswith("assessment_meta.xml"))
    canvas = "{http://canvas.instructure.com/xsd/cccv1p0}"
    assert ET.fromstring(zipfile.ZipFile(zipped).read(meta)).findtext(f"{canvas}show_correct_answers") == "false"
    shown = subprocess.run(
        [*ATTNLAB, "quiz", "export", "softmax", "--format", "qti", "--show-answers", "-o", zipped],
        cwd=REPO,
        capture_output=True,
    )
    assert (
        shown.returncode == 0
        and ET.fromstring(zipfile.ZipFile(zipped).read(meta)).findtext(f"{canvas}show_correct_answers") == "true"
    )
    one = subprocess.run(
        [*ATTNLAB, "quiz", "export", "softmax", "--variants", "1", "-o", tmp_path / "one.xml"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert one.returncode == 0 and "every student gets the same variant" in one.stderr
