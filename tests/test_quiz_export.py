"""Quiz export for an LMS: Moodle XML that parses, holds every question, and carries the right keys."""

import html
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import COURSE, REPO

from attnlab.quiz.items import reference_factory_for
from attnlab.quiz.moodle import FIXED_VARIANT, moodle_xml
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.variant import keyed_question

QUIZZES = {p.stem: load_quiz(p) for p in sorted((REPO / "quizzes").glob("*.yaml"))}
FACTORY = reference_factory_for(lambda: COURSE)
BLANK = re.compile(r"\{1:NUMERICAL:=([^:}]+):([^}]+)\}")


def questions_of(xml_text: str) -> list[ET.Element]:
    root = ET.fromstring(xml_text)
    assert root.tag == "quiz"
    return [q for q in root if q.get("type") != "category"]


def expected_answer(keyed) -> list[float]:
    key = keyed.key
    if keyed.asked.type == "matrix":
        return [float(x) for row in key for x in row]
    if keyed.asked.type == "vector":
        return [float(x) for x in key]
    return [float(key)]


@pytest.mark.parametrize("quiz_id", QUIZZES)
def test_one_variant_holds_every_question_with_its_key(quiz_id):
    quiz = QUIZZES[quiz_id]
    exported = questions_of(moodle_xml(quiz, FACTORY))
    assert [q.findtext("name/text") for q in exported] == [f"{quiz.id}: {q.id}" for q in quiz.questions]
    for element, question in zip(exported, quiz.questions):
        keyed = keyed_question(quiz, question, FIXED_VARIANT, FACTORY)
        text = element.findtext("questiontext/text")
        assert html.escape(keyed.asked.prompt.strip().split("\n")[0], quote=False) in text
        assert float(element.findtext("defaultgrade")) == question.points
        if element.get("type") == "numerical":
            assert float(element.findtext("answer/text")) == pytest.approx(expected_answer(keyed)[0])
            assert element.find("answer").get("fraction") == "100"
        elif element.get("type") == "cloze":
            blanks = [float(value) for value, _ in BLANK.findall(text)]
            assert blanks == pytest.approx(expected_answer(keyed))
        elif element.get("type") == "multichoice":
            right = {a.findtext("text") for a in element.findall("answer") if float(a.get("fraction")) > 0}
            letters = {keyed.key} if question.type == "single" else set(keyed.key)
            assert len(right) == len(letters) and len(element.findall("answer")) == len(question.options)
            assert sum(float(a.get("fraction")) for a in element.findall("answer") if float(a.get("fraction")) > 0) == pytest.approx(100, abs=0.01)
        elif element.get("type") == "truefalse":
            right = [a.findtext("text") for a in element.findall("answer") if a.get("fraction") == "100"]
            assert right == ["true" if keyed.key else "false"]
        elif element.get("type") == "shortanswer":
            assert "(" + ", ".join(str(x) for x in keyed.key) + ")" in [a.findtext("text") for a in element.findall("answer")]


def test_a_pool_has_n_variants_of_each_parameterized_question_in_its_own_category():
    quiz = QUIZZES["masks"]
    root = ET.fromstring(moodle_xml(quiz, FACTORY, variants=4))
    categories = [q.findtext("category/text") for q in root if q.get("type") == "category"]
    exported = questions_of(moodle_xml(quiz, FACTORY, variants=4))
    for question in quiz.questions:
        name = f"{quiz.id}: {question.id}"
        mine = [q for q in exported if q.findtext("name/text") == name or q.findtext("name/text").startswith(name + " (variant ")]
        assert len(mine) == (4 if question.params else 1)
        if question.params:
            assert f"$course$/top/attnlab/masks/{question.id}" in categories
            # Variant n is what `attnlab quiz key` gives the pseudo-student variant-n.
            keyed = keyed_question(quiz, question, "variant-2", FACTORY)
            assert html.escape(keyed.asked.prompt.strip().split("\n")[0], quote=False) in mine[1].findtext("questiontext/text")


def test_the_command_writes_the_file_and_refuses_a_student_copy(tmp_path):
    out = tmp_path / "masks.xml"
    result = subprocess.run([sys.executable, "-m", "attnlab.cli", "quiz", "export", "masks", "--variants", "2", "-o", out], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert len(questions_of(out.read_text())) >= len(QUIZZES["masks"].questions)
    copy = tmp_path / "masks.json"
    subprocess.run([sys.executable, "-m", "attnlab.cli", "quiz", "student-copy", "masks", "-o", copy], cwd=REPO, check=True, capture_output=True)
    refused = subprocess.run([sys.executable, "-m", "attnlab.cli", "quiz", "export", str(copy), "-o", tmp_path / "x.xml"], cwd=REPO, capture_output=True, text=True)
    assert refused.returncode == 2 and "student copy" in refused.stderr and "Traceback" not in refused.stderr
