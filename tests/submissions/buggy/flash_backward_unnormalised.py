"""Rebuilds the weights as exp(scores) without subtracting the stored lse.

file: efficient.py
breaks: flash_attention_backward
"""


def flash_attention_backward(q, k, v, out, lse, grad_out, causal=False, mask=None):
    L_q, L_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    allowed = np.ones((L_q, L_k), dtype=bool) if mask is None else mask
    if causal:
        allowed = allowed & np.tril(np.ones((L_q, L_k), dtype=bool))
    scores = np.where(allowed, q @ np.swapaxes(k, -1, -2) / np.sqrt(d), -np.inf)
    with np.errstate(over="ignore"):
        P = np.exp(scores)
    dv = np.swapaxes(P, -1, -2) @ grad_out
    dP = grad_out @ np.swapaxes(v, -1, -2)
    D = np.sum(grad_out * out, axis=-1, keepdims=True)
    dS = P * (dP - D) / np.sqrt(d)
    return dS @ k, np.swapaxes(dS, -1, -2) @ q, dv
