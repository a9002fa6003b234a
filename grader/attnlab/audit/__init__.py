"""``attnlab audit``: would the hidden tests catch a bug here? The suite's mutation score.

``mutants`` makes every mutant of the solution regions with mutmut's operators; ``run`` grades
them as one class through the grader's class path (``attnlab.classroom``), each on its own file;
``verdicts`` says which were killed, timed out or survived and scores each function;
``equivalents`` reads the reviewed list of equivalent mutants (``solutions/equivalent_mutants.toml``)
that the score leaves out; ``progress`` is the bar shown while grading; ``summary`` renders the
result in the terminal and as Markdown; ``command`` is ``attnlab audit``. Nothing here imports
``attnlab.cli``.
"""
