"""Running untrusted submissions: a fork server, the workers it forks, and their limits.

``host`` is the trusted side: it starts the fork server (in bubblewrap where it can), calls a
function in a worker with a deadline, answers stand-in calls within the graded call's bounds,
and kills and reaps. ``inside/`` holds exactly the files that run untrusted (what bubblewrap
mounts): they import nothing of the grader but ``wire``.
"""
