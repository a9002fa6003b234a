"""Features of ones, and outputs of zeros of the answers' shapes.

file: linear_attention.py
"""


def elu_feature_map(x):
    return np.ones(np.shape(x))


def linear_attention_masked(q, k, v, causal=True):
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    return np.zeros(lead + q.shape[-2:-1] + v.shape[-1:])


def linear_attention_recurrent(q, k, v, state=None):
    lead = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    return np.zeros(lead + q.shape[-2:-1] + v.shape[-1:]), (np.zeros(lead + (q.shape[-1], v.shape[-1])), np.zeros(lead + q.shape[-1:]))
