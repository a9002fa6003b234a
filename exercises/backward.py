# Exercise stub of backward.py, generated from the course's reference solution: fill in the parts marked YOUR CODE HERE.
"""Exercise 5: the backward pass by hand.

Autograd hides it, but attention's gradient is four matrix products and one
rule for the softmax. With out = A v and A = softmax(S), S = q kᵀ / √d_k:

    dv = Aᵀ d_out                     every value row collects the gradient of the queries that read it
    dA = d_out vᵀ
    dS = A ⊙ (dA − rowsum(dA ⊙ A))    the softmax's vector-Jacobian product
    dq = dS k / √d_k,   dk = dSᵀ q / √d_k

The softmax's Jacobian is diag(y) − y yᵀ; multiplying it by a gradient never
needs the matrix itself, only the row sum above. A masked weight is exactly 0,
so its score gets no gradient, and a key nobody may see gets none either. A
query that may see no key has a row of zero weights and a zero output whatever
q, k and v are (docs/contract.md), so it has no gradient: its row of dq is 0
and it adds nothing to dk or dv.
"""

import numpy as np

from attention import scaled_dot_product_attention


def softmax_backward(weights, grad_weights, axis=-1):
    """The softmax's vector-Jacobian product: the gradient of its input from the gradient of its output.

    Shapes: weights y = softmax(x, axis) (...), grad_weights dL/dy (same shape)
    -> dL/dx (same shape); along ``axis`` each row of it sums to 0.

    dx = y ⊙ (dy − Σ (dy ⊙ y)), the sum taken along ``axis``.
    """
    # YOUR CODE HERE
    # Hint: the Jacobian of a softmax row is diag(y) − y yᵀ; multiply it by dy without building it: y * (dy − sum(dy * y)), summing along `axis` with keepdims=True.
    raise NotImplementedError("softmax_backward is not implemented yet")


def attention_backward(q, k, v, grad_out, mask=None):
    """The gradients of scaled dot-product attention's output with respect to q, k and v.

    Shapes: q (..., L_q, d_k), k (..., L_k, d_k), v (..., L_k, d_v), grad_out dL/dout (..., L_q, d_v),
    mask broadcastable to (..., L_q, L_k), True = may attend
    -> (dq (..., L_q, d_k), dk (..., L_k, d_k), dv (..., L_k, d_v)).

    The forward pass is recomputed here: out = softmax(q kᵀ / √d_k, masked) v. A query that may
    see no key (a row of the mask all False) has zero weights and a zero output, so its row of dq
    is 0 and it adds nothing to dk and dv; no entry is ever nan.
    """
    # YOUR CODE HERE
    # Hint: recompute the weights A with scaled_dot_product_attention (its zero rows for a query with no visible key give that query no gradient; a softmax of an all -inf row would make every entry nan through the products below); then dv = Aᵀ d_out, dA = d_out vᵀ, dS = softmax_backward(A, dA), and remember the 1/√d_k in dq and dk. Transpose the last two axes only.
    raise NotImplementedError("attention_backward is not implemented yet")
