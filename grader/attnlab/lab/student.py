"""The student's own code for the lab, imported in this process as ``attnlab check`` imports it.

``load`` imports ``torch_attention.py`` (and ``heads.py`` and ``induction.py``) from the student's folder by plain
module name, held to what the course lets each file import (``check.course_imports``), and puts
the names back afterwards. ``ready_class`` builds and calls the student's module once on a small
input, so a stub, a raise or a wrong shape is one line before any training. ``scorers`` takes the
student's ``previous_token_score`` and ``induction_score``, and ``pieces`` the data, the loss and
the forward of ``induction.py``; each says what to finish when they are not written. Every problem
is a ``LabError``: one line, what to do.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from attnlab.course import Course


class LabError(Exception):
    """Something the student can fix, said in one line."""


INSTALL_TORCH = "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu (the CPU build is enough)"


@dataclass
class StudentCode:
    """What the lab uses of the student's folder."""

    folder: Path
    attention_class: type
    heads: object | None
    """The student's ``heads`` module, or None where it could not be imported."""
    heads_problem: str = ""
    """Why ``heads.py`` could not be imported (one line), when it could not."""
    induction: object | None = None
    """The student's ``induction`` module, or None where it could not be imported."""
    induction_problem: str = ""
    """Why ``induction.py`` could not be imported (one line), when it could not."""


def _import(course: Course, folder: Path, module: str):
    from attnlab.check.deadline import HungImports, import_deadline
    from attnlab.check.run import explain_import_failure

    try:
        with import_deadline(5.0, folder, HungImports()):
            return importlib.import_module(module)
    except Exception as error:  # noqa: BLE001 - the student's import error, said as `attnlab check` says it
        raise LabError(explain_import_failure(course, error, folder, f"{module}.py").line) from None


def _optional(course: Course, folder: Path, module: str) -> tuple[object | None, str]:
    """The student's ``module``, or None and why (one line)."""
    if not (folder / f"{module}.py").is_file():
        return None, f"there is no {module}.py in {folder}"
    try:
        return _import(course, folder, module), ""
    except LabError as problem:
        return None, str(problem)


def load(course: Course, folder: Path) -> StudentCode:
    """Import the student's ``torch_attention.py``, ``heads.py`` and ``induction.py`` from ``folder``."""
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise LabError(f"{folder}: no such folder")
    try:
        import torch  # noqa: F401 - the lab trains with it
    except ImportError:
        raise LabError(f"the lab trains a model with torch, which is not installed: {INSTALL_TORCH}") from None
    if not (folder / "torch_attention.py").is_file():
        raise LabError(f"there is no torch_attention.py in {folder}: the lab is built from your MultiHeadSelfAttention")
    from attnlab.check.course_imports import held_to_the_course

    saved_modules = {m: sys.modules.pop(m) for m in course.modules if m in sys.modules}
    saved_path = list(sys.path)
    sys.path.insert(0, str(folder))
    try:
        with held_to_the_course(course, folder):
            attention = _import(course, folder, "torch_attention")
            heads, heads_problem = _optional(course, folder, "heads")
            induction, induction_problem = _optional(course, folder, "induction")
    finally:
        for module in course.modules:
            sys.modules.pop(module, None)
        sys.modules.update(saved_modules)
        sys.path[:] = saved_path
    attention_class = getattr(attention, "MultiHeadSelfAttention", None)
    if not isinstance(attention_class, type):
        raise LabError("torch_attention.py has no class MultiHeadSelfAttention: the lab is built from it")
    return StudentCode(folder, attention_class, heads, heads_problem, induction, induction_problem)


def where_raised(error: BaseException, folder: Path) -> tuple[str, str]:
    """The innermost frame of ``error`` in the student's folder: its function's name and ``(file:line: code)``."""
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if Path(f.filename).is_absolute() and Path(f.filename).resolve().parent == folder
    ]
    if not frames:
        return "", ""
    frame = frames[-1]
    return frame.name, f" ({Path(frame.filename).name}:{frame.lineno}: {frame.line})"


def first_line(error: BaseException) -> str:
    """``Type: the first line of its message``, for a one-line error."""
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0]}" if text else type(error).__name__


def ready_class(code: StudentCode, d_model: int, n_heads: int) -> None:
    """Build the student's module as the lab will and call it once on (2, 5, d_model); raise a
    ``LabError`` that says what to finish or fix when it is a stub, raises, or answers a wrong shape."""
    import torch
    from torch import nn

    def failed(step: str, error: BaseException) -> LabError:
        function, where = where_raised(error, code.folder)
        if isinstance(error, NotImplementedError):
            name = f"MultiHeadSelfAttention.{function}" if function in ("__init__", "forward") else function
            return LabError(
                f"{name or 'MultiHeadSelfAttention'} is not implemented yet: finish it first "
                "(attnlab check --only torch_attention), then come back to the lab"
            )
        return LabError(f"your MultiHeadSelfAttention raised {first_line(error)}{where} when {step}")

    try:
        module = code.attention_class(d_model, n_heads, causal=True)
    except Exception as error:  # noqa: BLE001 - the student's code: one line
        raise failed(f"built as MultiHeadSelfAttention({d_model}, {n_heads}, causal=True)", error) from None
    for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
        projection = getattr(module, name, None)
        if not isinstance(projection, nn.Linear) or tuple(projection.weight.shape) != (d_model, d_model):
            raise LabError(
                f"your MultiHeadSelfAttention has no {name} = nn.Linear({d_model}, {d_model}, bias=False): "
                "the lab reads each head's pattern from q_proj and k_proj"
            )
    x = torch.randn(2, 5, d_model, generator=torch.Generator().manual_seed(0))
    try:
        with torch.no_grad():
            out = module(x)
    except Exception as error:  # noqa: BLE001
        raise failed(f"called on x of shape (2, 5, {d_model})", error) from None
    shape = tuple(out.shape) if isinstance(out, torch.Tensor) else None
    if shape != (2, 5, d_model):
        said = f"shape {shape}" if shape is not None else f"a {type(out).__name__}, not a tensor"
        raise LabError(
            f"your MultiHeadSelfAttention returned {said} on x of shape (2, 5, {d_model}); it must return (2, 5, {d_model})"
        )


def scorers(code: StudentCode):
    """The head scorers: the student's own ``previous_token_score`` and ``induction_score``, tried
    on a small pattern first; a ``LabError`` that says what to finish when they are not written or
    fail (the lab has no formulas of its own: students get it, and they are exercises)."""
    import numpy as np

    from attnlab.lab.patterns import Scorers

    if code.heads is None:
        raise LabError(f"heads.py could not be imported ({code.heads_problem}): the lab scores every head with it")
    weights = np.tril(np.ones((2, 4, 4)))
    weights /= weights.sum(axis=-1, keepdims=True)
    tokens = np.array([1, 2, 1, 2])

    def one_score_per_pattern(got) -> None:
        shape = np.asarray(got, dtype=float).shape
        if shape != (2,):
            raise ValueError(f"it returned shape {shape} for weights of shape (2, 4, 4), not (2,)")

    calls = {"previous_token_score": (weights,), "induction_score": (weights, tokens)}
    chosen, stubs, failures = _tried(code.heads, "heads.py", calls, one_score_per_pattern)
    problems = [
        f"{name} is not implemented yet" if name in stubs else failures[name] for name in calls if name not in chosen
    ]
    if problems:
        raise LabError(
            f"heads.py: {' and '.join(problems)}; the lab scores every head with them, so finish them first "
            "(attnlab check --only heads)"
        )
    return Scorers(chosen["previous_token_score"], chosen["induction_score"])


def pieces(code: StudentCode):
    """The student's own pieces of the lab from ``induction.py`` (the data, the targets, the loss and
    the forward), each tried once on a small input first; a ``LabError`` that says what to finish
    when they are not written or fail. The lab makes its batches, logs its losses and checks the
    trained model with them: they are the graded part of the capstone."""
    import numpy as np

    from attnlab.lab.pieces import Pieces

    if code.induction is None:
        raise LabError(
            f"induction.py could not be imported ({code.induction_problem}): the lab makes its data and measures its losses with it"
        )
    rng = np.random.default_rng(0)
    d, vocab = 4, 5
    params = {
        "embed": rng.normal(size=(vocab, d)),
        "position": rng.normal(size=(4, d)),
        "layers": [
            {
                "gamma": np.ones(d),
                "beta": np.zeros(d),
                **{w: rng.normal(size=(d, d)) for w in ("w_q", "w_k", "w_v", "w_o")},
            }
        ],
        "final_gamma": np.ones(d),
        "final_beta": np.zeros(d),
        "unembed": rng.normal(size=(d, vocab)),
    }
    tokens = np.array([[1, 2, 1, 2]])
    calls = {
        "repeated_halves": (np.array([[1, 2]]),),
        "induction_targets": (2,),
        "next_token_loss": (np.zeros((1, 4, 3)), np.array([[0, 1, 0, 1]]), np.array([False, False, True])),
        "attention_only_forward": (tokens, params, 2),
    }
    chosen, stubs, failures = _tried(code.induction, "induction.py", calls)
    problems = list(failures.values())
    if stubs:
        names = stubs[0] if len(stubs) == 1 else f"{', '.join(stubs[:-1])} and {stubs[-1]}"
        problems.insert(0, f"{names} {'is' if len(stubs) == 1 else 'are'} not implemented yet")
    if problems:
        raise LabError(
            f"induction.py: {'; '.join(problems)}; the lab makes its data, measures its losses and checks the trained "
            "model with them, so finish them first (attnlab check --only induction)"
        )
    return Pieces(**chosen)


def _tried(module, filename: str, calls: dict[str, tuple], check=lambda got: None) -> tuple[dict, list, dict]:
    """Each of ``module``'s functions named in ``calls`` called once on its arguments, its answer
    given to ``check`` (which raises for a wrong one): the functions that answered, by name; the
    names still stubs; and a line for each that failed, by name."""
    chosen, stubs, failures = {}, [], {}
    for name, args in calls.items():
        theirs = getattr(module, name, None)
        try:
            if theirs is None:
                raise AttributeError(f"{filename} has no {name}")
            check(theirs(*args))
            chosen[name] = theirs
        except NotImplementedError:
            stubs.append(name)
        except Exception as error:  # noqa: BLE001 - the student's code: one line
            failures[name] = f"{name} failed ({first_line(error)})"
    return chosen, stubs, failures
