"""Capstone labs: a small model built from the student's own exercises, trained on their machine.

``attnlab lab induction`` trains a two-layer, attention-only model made of the student's
``MultiHeadSelfAttention`` on sequences that repeat themselves, and shows an induction head form.
``data`` makes the sequences (a random half, then the same half again), ``model`` is the decoder
(embeddings, a residual stream, the student's attention in each layer, an unembedding),
``patterns`` recomputes each head's attention weights from the student's module and scores the
heads (with the student's ``heads.py`` where it is written), ``settings`` is a run's sizes and schedule, ``training`` trains and logs the losses
and scores, ``student`` imports the student's files as ``attnlab check`` does and says in one line
what to finish or fix, ``report`` writes the figure, the page and the JSON, and ``commands`` is the
CLI over them. Only ``commands`` and ``report`` touch a terminal or a file; torch is imported by
the modules that train, never by ``attnlab --help``.
"""
