"""What runs untrusted: exactly the files bubblewrap mounts into the sandbox.

``forkserver`` (the clean, pre-imported process that forks workers and sets their limits),
``worker`` (serves one function, its stand-ins calling back to the grader), ``module_harness`` (builds
and calls the torch track's module), ``import_rule`` (what each student file may import, the same
rule ``attnlab check`` applies). They import nothing of the grader but ``attnlab.wire``;
the student's code can patch any of them, so nothing they say is trusted.

``unreadable`` says why Python cannot read a student's file, in the line ``attnlab check`` gives.
"""
