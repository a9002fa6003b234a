"""Wrong answers that name the mistake: in practice (from either source) and in the class's grading."""

import csv
import json
import os
import subprocess
import sys

import pytest
import yaml
from conftest import COURSE, REPO

from attnlab.quiz import student_copy
from attnlab.quiz.errors import QuizError
from attnlab.quiz.items import open_quiz, reference_factory_for
from attnlab.quiz.runner import Progress, run
from attnlab.quiz.schema import load_quiz
from attnlab.quiz.variant import drawn_values

FACTORY = reference_factory_for(lambda: COURSE)
CHEAP = {"n": 2**4, "r": 1, "p": 1}


def test_practice_names_the_mistake_from_the_copy_and_from_the_yaml(tmp_path):
    quiz = REPO / "quizzes" / "softmax.yaml"
    copy = tmp_path / "softmax.json"
    copy.write_text(json.dumps(student_copy.build(load_quiz(quiz), "practice", FACTORY, cost=CHEAP)))
    for source in (quiz, copy):
        item = next(
            i for i in open_quiz(source, FACTORY).items_for("alice", "practice") if i.asked.id == "scale-divisor"
        )
        d = int(item.asked.prompt.split("d_head = ")[1].split()[0])
        said = []
        inputs = iter([str(d), "skip"])
        run([item], Progress("softmax", "alice", "practice"), lambda prompt: next(inputs), said.append, lambda p: None)
        assert "✗ Not right (forgot the square root: The scores are divided by √d_head" in "\n".join(said), said


def test_the_class_table_and_csv_say_which_mistakes_were_made(tmp_path):
    quiz = load_quiz(REPO / "quizzes" / "softmax.yaml")
    question = quiz.question("scale-divisor")
    files = []
    for student, forgot_the_root in (("ann", True), ("ben", True), ("cy", False)):
        key = subprocess.run(
            [
                sys.executable,
                "-m",
                "attnlab.cli",
                "quiz",
                "key",
                "softmax",
                "--student",
                student,
                "--format",
                "answers",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
        ).stdout
        data = yaml.safe_load(key)
        data["answers"]["scale-divisor"] = str(drawn_values(quiz, question, student)["d"]) if forgot_the_root else "0"
        path = tmp_path / f"{student}.yaml"
        path.write_text(yaml.safe_dump(data))
        files.append(path)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "attnlab.cli",
            "quiz",
            "grade",
            "softmax",
            *map(str, files),
            "--csv",
            str(tmp_path / "s.csv"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "160"},
    )
    assert result.returncode == 0, result.stderr
    assert "common mistakes" in result.stdout and "forgot the square root │        2" in result.stdout
    rows = {r["student"]: r for r in csv.DictReader((tmp_path / "s.csv").open())}
    assert rows["ann"]["mistakes"] == rows["ben"]["mistakes"] == "scale-divisor: forgot the square root"
    assert rows["cy"]["mistakes"] == "" and rows["cy"]["scale-divisor"] == "0"


def test_a_mistake_explanation_cannot_give_the_answer(tmp_path):
    path = tmp_path / "m.yaml"
    path.write_text(
        "id: m\ntitle: t\nquestions:\n  - id: q\n    type: integer\n    prompt: p\n    answer: 4\n"
        "    mistakes:\n      - {answer: 2, name: halved, explanation: \"it is {answer}\"}\n    hint: h\n    explanation: e\n    concepts: [c]\n"
    )
    with pytest.raises(QuizError, match="mistakes uses {answer}"):
        load_quiz(path)
