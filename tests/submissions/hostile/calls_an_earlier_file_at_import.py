"""An honest student checks, at import, that the softmax they import behaves: a module-level
sanity check that calls an earlier file's function while attention.py is being imported.

file: attention.py
"""

from softmax import softmax

assert np.allclose(softmax(np.array([0.0, 0.0])), [0.5, 0.5]), "softmax is broken"
