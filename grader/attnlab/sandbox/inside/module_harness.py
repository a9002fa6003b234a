"""How a graded ``nn.Module`` class is called: build it, load the grader's weights, run it.

A module cannot cross the wire, so hidden tests send a *request* (plain data)
instead, and ``drive`` carries it out next to the class: in the worker for a
submission, in the grader for the reference and for the misconception
catalogue. What comes back is plain data too (arrays, strings, shapes).

A request is a dict:

- ``init``: the constructor's keyword arguments (``d_model``, ``n_heads``, ...);
- ``weights``: ``{state-dict name: array}``, loaded after the move; each name must exist (optional);
- ``device`` (``"cpu"`` or ``"meta"``) and ``dtype`` (``"float16"``, ``"bfloat16"``,
  ``"float32"`` or ``"float64"``): the module is moved with ``.to(device, dtype)`` before it is
  called; a bfloat16 output comes back as float32 (numpy has no bfloat16; float32 holds it exactly);
- ``x``: the input array, or on ``meta`` its shape; ``key_padding_mask``: a bool array or None;
- ``grad_output``: an array shaped like the output, to also get the gradients of the input
  and of every parameter (optional).

Nothing here is trusted when it runs in a worker: the grader only compares what it returns.
"""

from __future__ import annotations

import numpy as np

_DTYPES = ("float16", "bfloat16", "float32", "float64")
_DEVICES = ("cpu", "meta")


def drive(module_class, request: dict) -> dict:
    """Carry out one request on a fresh instance of ``module_class``; return plain data.

    Shapes (for the attention module): x (B, T, d_model) -> output (B, T, d_model); with
    ``grad_output`` (B, T, d_model) also grad_x (B, T, d_model) and one gradient per weight.
    """
    import torch  # here, not at the top: the numpy track's workers never import torch

    if request.get("device", "cpu") not in _DEVICES or request.get("dtype", "float64") not in _DTYPES:
        raise ValueError(f"a request for device {request.get('device')!r} and dtype {request.get('dtype')!r}")
    device, dtype = torch.device(request.get("device", "cpu")), getattr(torch, request.get("dtype", "float64"))
    # Whatever the constructor draws, draws the same. The CPU generator alone: torch.manual_seed
    # also queues a lazy seeding of each accelerator with a formatted stack, which cost more than
    # the module's forward pass.
    torch.default_generator.manual_seed(0)
    module = module_class(**request.get("init", {}))
    module = module.to(device=device, dtype=dtype)
    state = {name: list(value.shape) for name, value in module.state_dict().items()}
    if request.get("weights") is not None:
        weights = {
            name: torch.as_tensor(np.asarray(w)).to(device=device, dtype=dtype)
            for name, w in request["weights"].items()
        }
        # Missing names are fatal (the weights would be random); extra entries (a bias, a mask
        # buffer) are left as they are, and cost points on the tests they change, not on all.
        missing = sorted(set(weights) - set(state))
        if missing:
            raise KeyError(
                f"the module has no {', '.join(missing)} (its state dict has {', '.join(state) or 'nothing'})"
            )
        module.load_state_dict(weights, strict=False)
    if device.type == "meta":
        x = torch.empty(tuple(request["x"]), device=device, dtype=dtype)
    else:
        x = torch.tensor(np.asarray(request["x"]), dtype=dtype, device=device)
    mask = request.get("key_padding_mask")
    if mask is not None:
        mask = (
            torch.tensor(np.asarray(mask, dtype=bool), device=device)
            if device.type != "meta"
            else torch.empty(tuple(np.shape(mask)), dtype=torch.bool, device=device)
        )
    wants_grad = request.get("grad_output") is not None
    if wants_grad:
        x.requires_grad_(True)
    with torch.set_grad_enabled(wants_grad):
        output = module(x) if mask is None else module(x, key_padding_mask=mask)
    if not isinstance(output, torch.Tensor):
        raise TypeError(f"forward returned {type(output).__name__}, not a tensor")
    if output.device.type != device.type:
        # Else reading a meta tensor's values fails in here, as a NotImplementedError: "not implemented yet".
        raise TypeError(f"forward returned a tensor on {output.device.type}, not on {device.type} where x was")
    answer = {
        "state": state,
        "shape": list(output.shape),
        "dtype": str(output.dtype).removeprefix("torch."),
        "device": output.device.type,
    }
    if device.type == "meta":
        return answer
    answer["output"] = _as_numpy(output)
    if wants_grad:
        grad_output = torch.tensor(np.asarray(request["grad_output"]), dtype=output.dtype, device=device)
        if not output.requires_grad:
            raise RuntimeError(
                "the output does not depend on x or the weights through autograd (was something detached?)"
            )
        output.backward(grad_output)
        answer["grad_x"] = _numpy_or_zeros(x.grad, x)
        answer["grad_weights"] = {name: _numpy_or_zeros(p.grad, p) for name, p in module.named_parameters()}
    return answer


def _numpy_or_zeros(grad, like) -> np.ndarray:
    # A parameter the output does not use has no gradient: zeros, as the reference would show.
    return _as_numpy(like.new_zeros(like.shape) if grad is None else grad)


def _as_numpy(tensor) -> np.ndarray:
    """A tensor's values as a numpy array; bfloat16 as float32 (numpy has none; float32 holds it exactly)."""
    import torch  # here, not at the top: the numpy track's workers never import torch

    tensor = tensor.detach().cpu()
    return (tensor.float() if tensor.dtype == torch.bfloat16 else tensor).numpy().copy()


def as_called(target):
    """What a call of contract name ``target`` runs: a function itself, a class through ``drive``."""
    if isinstance(target, type):
        return lambda request: drive(target, request)
    return target
