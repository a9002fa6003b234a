"""attnlab: a course on self-attention that grades itself.

The engine is topic-free: it finds a course (``course``), turns solutions into
stubs (``stubs``), runs untrusted submissions in sandboxed workers
(``sandbox``), grades them with pytest (``grading``) and reports the results
(``results``, ``report``). Everything about attention lives in the course's
``solutions/`` and ``exercises/`` folders.
"""

__version__ = "0.1.0"
