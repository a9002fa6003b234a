"""Running untrusted submissions: a fork server, the workers it forks, and their limits.

The trusted side: ``mode`` (how this machine lets workers be isolated: bubblewrap, a private
user, a container's private user, or none; what each mounts, cleans and reports), ``host`` (the
fork server, started in that mode), ``worker_process`` (one forked worker: a call crossed with a
deadline, its stand-in calls answered), ``batches`` (a message of several calls, and the answers
expected of it), ``standins`` (what the reference may be asked on a
worker's behalf, and the cache of its answers), ``limits``, ``deadlines``, ``cgroups`` and
``memory_watch`` (a submission's budgets), ``environment`` (what student code may import).
``inside/`` holds exactly the files that run untrusted (what bubblewrap mounts): they import
nothing of the grader but ``wire``.
"""
