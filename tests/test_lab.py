"""`attnlab lab induction`: the data, the model of the student's module, its real patterns, the command.

The patterns the lab shows are recomputed from the module's own projections: the test that
rebuilds the module's output from them is what makes them the module's real ones. The slow test
trains the default run on the reference solutions and asserts the induction head forms.
"""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from conftest import COURSE, REPO

from attnlab.lab import patterns, student
from attnlab.lab.data import repeated_halves, seeded
from attnlab.lab.model import attention_only
from attnlab.lab.pieces import Pieces, forward_difference, numpy_params
from attnlab.lab.report import formed, forward_line, summary
from attnlab.lab.settings import Settings
from attnlab.lab.training import half_losses, train


def attnlab(*args, cwd=REPO):
    return subprocess.run(
        [sys.executable, "-m", "attnlab.cli", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def reference():
    return student.load(COURSE, COURSE.solutions_dir)


def test_the_sequences_are_a_random_half_then_the_same_half_again():
    tokens = repeated_halves(5, 7, 11, seeded(3))
    assert tokens.shape == (5, 14) and tokens.dtype == torch.long
    assert torch.equal(tokens[:, :7], tokens[:, 7:])
    assert tokens.min() >= 0 and tokens.max() < 11
    assert torch.equal(tokens, repeated_halves(5, 7, 11, seeded(3)))  # seeded
    assert not torch.equal(tokens, repeated_halves(5, 7, 11, seeded(4)))


def test_the_model_of_the_reference_module_gives_logits_for_every_position(reference):
    model = attention_only(reference.attention_class, vocab=13, context=20, d_model=32, n_heads=4)
    tokens = repeated_halves(3, 10, 13, seeded(0))
    assert model(tokens).shape == (3, 20, 13)
    assert model.head_names() == [f"L{layer}H{head}" for layer in (1, 2) for head in range(4)]


def test_the_patterns_are_the_modules_real_ones(reference):
    """weights @ v per head, merged, o_proj: the module's own output, from the layer's real input."""
    torch.manual_seed(1)
    model = attention_only(reference.attention_class, vocab=13, context=20, d_model=32, n_heads=4)
    tokens = repeated_halves(3, 10, 13, seeded(0))
    inputs = patterns.layer_inputs(model, tokens)
    assert len(inputs) == 2
    for attention, x in zip(model.attentions, inputs):
        weights = patterns.head_weights(attention, x, 4)
        assert weights.shape == (3, 4, 20, 20)
        assert torch.allclose(weights.sum(-1), torch.ones(3, 4, 20))
        assert torch.all(weights.triu(1) == 0)  # causal
        with torch.no_grad():
            actual = attention(x)
        torch.testing.assert_close(patterns.rebuilt_output(attention, x, weights), actual)
    # The second layer's input is the residual stream after the first layer, as the model computed it.
    with torch.no_grad():
        stream = model.embed(tokens) + model.position(torch.arange(20))
        stream = stream + model.attentions[0](model.norms[0](stream))
    torch.testing.assert_close(inputs[1], model.norms[1](stream).detach())


def test_the_heads_are_scored_with_the_students_functions_and_the_stubs_are_told_to_finish_them(reference):
    scorers = student.scorers(reference)
    assert scorers.previous.__module__ == "heads" and scorers.induction.__module__ == "heads"
    stubs = student.load(COURSE, COURSE.exercises_dir)
    with pytest.raises(student.LabError) as refused:
        student.scorers(stubs)
    said = str(refused.value)
    assert (
        "previous_token_score is not implemented yet" in said
        and "\n" not in said
        and "attnlab check --only heads" in said
    )


def test_the_numpy_forward_of_the_exercise_is_the_torch_model(reference):
    """induction.attention_only_forward (the reference's) on the weights of the lab's model, read by
    numpy_params, gives the model's logits: with LayerNorm weights and biases moved off 1 and 0, so
    every documented parameter counts, and a context longer than the sequence."""
    torch.manual_seed(3)
    model = attention_only(reference.attention_class, vocab=13, context=24, d_model=32, n_heads=4).double()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(0.2 * torch.randn_like(parameter))
    tokens = repeated_halves(3, 10, 13, seeded(0))
    with torch.no_grad():
        expected = model(tokens).numpy()
    got = reference.induction.attention_only_forward(tokens.numpy(), numpy_params(model), 4)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-9)
    assert forward_difference(model, tokens, reference.induction.attention_only_forward) < 1e-12


def test_the_exercises_losses_and_targets_are_the_labs(reference):
    """next_token_loss over induction_targets is half_losses' repeat, over the first half its first
    half, and over everything its whole loss; next_token_loss_grad is autograd's gradient of it."""
    torch.manual_seed(0)
    logits = torch.randn(4, 20, 13, dtype=torch.float64, requires_grad=True)
    tokens = repeated_halves(4, 10, 13, seeded(1))
    whole, first, repeated = half_losses(logits, tokens)
    induction = reference.induction
    array, ids = logits.detach().numpy(), tokens.numpy()
    assert induction.next_token_loss(array, ids) == pytest.approx(whole.detach().item(), rel=1e-12)
    assert induction.next_token_loss(array, ids, induction.induction_targets(10)) == pytest.approx(
        repeated.detach().item(), rel=1e-12
    )
    assert induction.next_token_loss(array, ids, np.arange(19) < 9) == pytest.approx(first.detach().item(), rel=1e-12)
    repeated.backward()
    grad = induction.next_token_loss_grad(array, ids, induction.induction_targets(10))
    np.testing.assert_allclose(grad, logits.grad.numpy(), rtol=1e-10, atol=1e-15)


def test_the_lab_runs_on_the_students_pieces_and_gets_the_same_numbers(reference):
    """With the reference's induction.py the batches, losses and scores are the lab's own (the data is
    drawn the same, the losses agree to float32), and its forward reproduces the trained model."""
    settings = Settings(steps=4, log_every=2, eval_batch=4, batch=4)
    scorers = student.scorers(reference)
    pieces = student.pieces(reference)
    assert pieces.repeated_halves.__module__ == "induction"
    own, theirs = (
        train(reference.attention_class, settings, scorers),
        train(reference.attention_class, settings, scorers, pieces=pieces),
    )
    for a, b in zip(own.records, theirs.records, strict=True):
        assert a.previous == b.previous and a.induction == b.induction
        assert a.loss_first == pytest.approx(b.loss_first, rel=1e-5) and a.loss_repeated == pytest.approx(
            b.loss_repeated, rel=1e-5
        )
    assert own.forward_difference is None and theirs.forward_difference < 1e-5
    line, ok = forward_line(theirs)
    assert ok and "gives the trained model's logits" in line


def test_a_forward_that_is_not_the_model_is_told_so(reference):
    """A forward without the final layer norm: the lab trains as usual and says it is not the model."""
    pieces = student.pieces(reference)

    def no_final_norm(tokens, params, n_heads):
        return reference.induction.attention_only_forward(
            tokens, {**params, "final_gamma": np.ones_like(params["final_gamma"]) * 2}, n_heads
        )

    settings = Settings(steps=2, log_every=2, eval_batch=4, batch=4)
    wrong = Pieces(pieces.repeated_halves, pieces.induction_targets, pieces.next_token_loss, no_final_norm)
    run = train(reference.attention_class, settings, student.scorers(reference), pieces=wrong)
    line, ok = forward_line(run)
    assert not ok and "does not give the trained model's logits" in line and "attnlab check --only induction" in line

    def raises(tokens, params, n_heads):
        raise KeyError("w_q")

    run = train(
        reference.attention_class,
        settings,
        student.scorers(reference),
        pieces=Pieces(*[*wrong.__dict__.values()][:3], raises),
    )
    line, ok = forward_line(run)
    assert not ok and "raised KeyError" in line


def test_the_stubs_of_induction_are_told_to_finish_them(reference, tmp_path):
    stubs = student.load(COURSE, COURSE.exercises_dir)
    with pytest.raises(student.LabError) as refused:
        student.pieces(stubs)
    said = str(refused.value)
    assert "\n" not in said and "attnlab check --only induction" in said
    assert (
        "repeated_halves, induction_targets, next_token_loss and attention_only_forward are not implemented yet" in said
    )
    # One piece written wrong enough to raise, the others right: it alone is named.
    folder = tmp_path / "student"
    folder.mkdir()
    for module in COURSE.modules:
        (folder / f"{module}.py").write_text((COURSE.solutions_dir / f"{module}.py").read_text())
    source = (folder / "induction.py").read_text()
    (folder / "induction.py").write_text(
        source.replace("def induction_targets(half):", "def induction_targets(half, extra):")
    )
    with pytest.raises(student.LabError) as refused:
        student.pieces(student.load(COURSE, folder))
    said = str(refused.value)
    assert said.startswith("induction.py: induction_targets failed (TypeError") and "repeated_halves" not in said


def test_the_lab_students_get_holds_no_answer_to_an_exercise():
    """The lab ships in the student release: it scores heads with the student's heads.py only."""
    from attnlab.export.release import solution_lines

    secret = solution_lines(COURSE)
    lab = REPO / "grader" / "attnlab" / "lab"
    assert not {(p.name, line) for p in lab.glob("*.py") for line in secret if line in p.read_text()}


def test_a_short_run_logs_every_head(reference):
    settings = Settings(steps=4, log_every=2, eval_batch=4, batch=4)
    run = train(reference.attention_class, settings, student.scorers(reference))
    assert [r.step for r in run.records] == [0, 2, 4]
    assert np.shape(run.records[-1].induction) == (2, 4)
    again = train(reference.attention_class, settings, student.scorers(reference))
    assert again.records == run.records  # the same seed, the same numbers


def test_the_command_on_the_reference_writes_its_three_files(tmp_path):
    result = attnlab("lab", "induction", COURSE.solutions_dir, "--steps", "3", "--out", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert {p.name for p in (tmp_path / "out").iterdir()} == {"induction.png", "induction.html", "induction.json"}
    logged = json.loads((tmp_path / "out" / "induction.json").read_text())
    assert logged["records"][-1]["step"] == 3 and logged["heads"][0] == "L1H0"
    page = (tmp_path / "out" / "induction.html").read_text()
    assert "data:image/png;base64," in page and "L2H" in page
    assert "induction head" in result.stdout and "Traceback" not in result.stderr
    assert "attention_only_forward gives the trained model's logits" in " ".join(result.stdout.split())
    assert logged["forward_difference"] < 1e-4


def test_a_module_that_attends_another_way_is_told_its_patterns_are_not_its_own(tmp_path):
    """A scale of 1/d_head instead of 1/√d_head: the lab still trains it, but the weights it draws
    (recomputed the lesson's way) no longer rebuild the module's output, and the student is told."""
    folder = tmp_path / "student"
    folder.mkdir()
    source = (COURSE.solutions_dir / "torch_attention.py").read_text()
    assert source.count("/ math.sqrt(self.d_head)") == 1
    (folder / "torch_attention.py").write_text(source.replace("/ math.sqrt(self.d_head)", "/ self.d_head"))
    for module in COURSE.modules:
        if module != "torch_attention":
            (folder / f"{module}.py").write_text((COURSE.solutions_dir / f"{module}.py").read_text())
    result = attnlab("lab", "induction", folder, "--steps", "3", "--out", tmp_path / "out")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "they are not its own" in " ".join(result.stderr.split())
    assert "they are not its own" in " ".join((tmp_path / "out" / "induction.html").read_text().split())
    settings = Settings(steps=2, log_every=2, eval_batch=4, batch=4)
    solutions = student.load(COURSE, COURSE.solutions_dir)
    assert train(solutions.attention_class, settings, student.scorers(solutions)).patterns_are_its_own


def test_the_stubs_get_one_line_that_says_what_to_finish_first(tmp_path):
    result = attnlab("lab", "induction", COURSE.exercises_dir, "--steps", "3", "--out", tmp_path / "out")
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "MultiHeadSelfAttention.__init__ is not implemented yet" in lines[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "forward, said",
    [
        ("        raise RuntimeError('my bug')\n", "RuntimeError: my bug"),
        ("        return x[:, :1]\n", "returned shape (2, 1, 64)"),
    ],
)
def test_a_module_that_raises_or_answers_a_wrong_shape_is_one_line(tmp_path, forward, said):
    folder = tmp_path / "student"
    folder.mkdir()
    source = (COURSE.solutions_dir / "torch_attention.py").read_text()
    start = source.index("        batch, t, d_model = x.shape")
    (folder / "torch_attention.py").write_text(source[:start] + forward)
    result = attnlab("lab", "induction", folder, "--steps", "3", "--out", tmp_path / "out")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and said in result.stderr, result.stderr


def test_without_torch_the_lab_says_how_to_install_it(tmp_path):
    blocked = "import sys; sys.modules['torch'] = None; from attnlab.cli import main; main()"
    result = subprocess.run(
        [sys.executable, "-c", blocked, "lab", "induction", COURSE.solutions_dir, "--out", tmp_path / "out"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "pip install torch" in result.stderr, result.stderr


def test_the_help_reads_well():
    for args in (["lab", "--help"], ["lab", "induction", "--help"]):
        result = attnlab(*args)
        assert result.returncode == 0 and "induction" in result.stdout
    assert "attnlab lab induction" in attnlab("--help").stdout


@pytest.mark.slow
def test_the_default_run_on_the_reference_forms_an_induction_head(reference):
    """As the command runs it: on the reference's induction.py (its data, its losses, its forward)."""
    run = train(reference.attention_class, Settings(), student.scorers(reference), pieces=student.pieces(reference))
    assert run.forward_difference < 1e-4
    found = summary(run)
    assert found.induction_head.startswith("L2") and found.induction_score > 0.5, found
    assert found.loss_repeated < found.loss_first - 2.0, found
    assert formed(found)
