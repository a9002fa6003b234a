"""Running untrusted submissions: a fork server, the workers it forks, and their limits.

``host`` is the trusted side (start the fork server, call functions with a
deadline, kill and reap); ``forkserver`` and ``worker`` run in the untrusted
processes and import nothing of the grader's but ``wire``.
"""
