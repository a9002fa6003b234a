"""Run once by the sandbox's fork server after it imports torch (``[course.warmup]``).

The first use of a kernel, of autograd and of the meta device loads and registers more (0.1 to
0.8 s); done here, before any worker is forked, every worker of the torch track inherits it warm.
It runs the operations the torch track's tests make, on tiny tensors; it is no solution.
"""

import torch

torch.set_num_threads(1)  # one thread per worker, as for BLAS: fair timing, no thread pools to fork

for device in ("cpu", "meta"):
    x = torch.ones(1, 2, 2, device=device, dtype=torch.float64, requires_grad=device == "cpu")
    layer = torch.nn.Linear(2, 2, bias=False).to(device=device, dtype=torch.float64)
    mask = torch.tril(torch.ones(2, 2, dtype=torch.bool, device=device))
    y = torch.softmax((layer(x) @ x.transpose(-1, -2)).masked_fill(~mask, float("-inf")), dim=-1) @ x
    torch.nn.functional.scaled_dot_product_attention(x, x, x, attn_mask=mask)
    if device == "cpu":
        y.sum().backward()
