"""The fork server: a clean Python process that imports numpy once, then forks a server per
submission, which forks that submission's workers.

It is started with ``python -I`` (no working folder, no PYTHONPATH on its path) and never sees
the solutions or the hidden tests. After its imports it only forks: each ``begin`` request comes
with a control socket for one submission, and the child it forks serves that submission alone
(``_serve_submission``), so every submission's workers start from the same process, in the same
state, however many were graded before. Where the kernel allows (root with CAP_SYS_ADMIN), that
server gives the submission a pid namespace of its own, whose init dies with it, and each
worker a /proc of that namespace: a worker sees no process but the submission's, and nothing
left in the namespace outlives it. Each ``spawn`` request comes with three file descriptors
(the worker's channel, and files for its stdout and stderr); before it forks, every process the
submission left is ended, then the child sets its limits, drops to the grader's private user
when run as root, and serves one function of one submission file. The trusted side kills
workers itself; ``reap`` collects their exit status here, where they are children. Nothing here
holds the hidden tests: a worker is sent the inputs of the calls it is asked, when it is asked them.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import json
import os
import resource
import signal
import socket
import sys
import time

from attnlab.sandbox.inside import syscalls
from attnlab.sandbox.inside.leftovers import SHARED_FOLDERS, remove_leftovers, writable_folders

CONTROL_MESSAGE_BYTES = 1 << 16
PREIMPORTED = (
    "math",
    "cmath",
    "itertools",
    "functools",
    "operator",
    "collections",
    "typing",
    "dataclasses",
    "random",
    "statistics",
    "fractions",
    "decimal",
    "copy",
    "numbers",
    "warnings",
    "string",
    "re",
    "time",
    "unittest",
    "numpy.testing",
    "numpy.linalg",
    "numpy.random",
    "numpy.fft",
    "ctypes",
    "mmap",
    "struct",
    "importlib.util",
    # The codecs a source file is read with (a BOM: utf-8-sig; a coding line: Latin-1, Windows-1252,
    # ...): the import of a file, and a traceback's lines, look one up when it is first needed.
    "encodings.utf_8_sig",
    "encodings.latin_1",
    "encodings.cp1252",
    "encodings.iso8859_15",
    "encodings.ascii",
)


def _exit_status(status: int) -> dict:
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"exit": os.WEXITSTATUS(status)}


ADDRESS_SPACE_GRAIN = 64 << 20
"""What this process has mapped, as a worker's address-space cap counts it, is rounded up to this:
the exact size moves by a page with the length of the paths on its command line (the grading
process's pid is in them), and a worker reads its cap, so it would tell one grading from another."""


def _virtual_memory_bytes() -> int:
    """The address space this process has mapped, rounded up to ``ADDRESS_SPACE_GRAIN``."""
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    return -(-mapped // ADDRESS_SPACE_GRAIN) * ADDRESS_SPACE_GRAIN


def _become(uid: int) -> None:
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def _drop_privileges(workdir: str, scratch: str, uid: int) -> None:
    """As root, hand the work folder to the grader's private ``uid`` and become it: the student
    then cannot signal the grader, write outside its folder or read files closed to others.

    Its folders stay root's (readable by the user's group): the files the grader put there are
    the student's to read and rewrite, but no new file is made anywhere but the scratch folder."""
    for folder, dirs, files in os.walk(workdir):
        if folder == scratch:
            dirs.clear()  # the student's own, and bounded where it is a memory folder
            os.chown(folder, uid, uid)
            continue
        os.chown(folder, 0, uid)
        os.chmod(folder, 0o750)
        for name in files:
            os.lchown(os.path.join(folder, name), uid, uid)
    _become(uid)


def _private_folders(
    workdir: str, scratch: str, folder_bytes: int, submission: str, private: bool, own_pids: bool = False
) -> bool:
    """Give this worker a mount namespace of its own where ``scratch`` is a memory folder of
    ``folder_bytes`` and every folder all users may write to (/tmp...) shows that folder's
    ``tmp``: whatever the student writes is bounded, private, and gone with the worker.
    False where the kernel refuses (no CAP_SYS_ADMIN, as in a container): then ``scratch`` is a
    plain folder of the work folder. ``private``: the fork server found that workers get mounts
    and IPC of their own here (``_can_unshare``), and so no longer cleans the shared folders: a
    failure then raises, since the worker must not run unbounded. ``own_pids``: the worker is in
    its submission's own pid namespace, and gets a /proc that shows that namespace only."""
    libc = ctypes.CDLL(None, use_errno=True)
    os.mkdir(scratch, 0o700)
    if libc.unshare(_CLONE_NEWNS | _CLONE_NEWIPC) != 0:
        if private:  # the others had their own: this one would leave what nobody cleans
            raise OSError(ctypes.get_errno(), "the sandbox could not give the worker its own mounts")
        _private_ipc()
        return False
    _mount(libc, "none", "/", _MS_REC | _MS_PRIVATE)  # else its mounts would reach the grader's namespace
    options = f"size={folder_bytes},nr_inodes=4096,mode=0700".encode()
    if libc.mount(b"tmpfs", scratch.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options) != 0:
        raise OSError(ctypes.get_errno(), "the sandbox could not mount the worker's memory folder")
    tmp = os.path.join(scratch, "tmp")
    os.mkdir(tmp)
    os.chmod(tmp, 0o1777)
    # Held open: once /tmp is covered, paths under it (the work folder and the submission's
    # staged copy, often) lead elsewhere.
    held = {folder: os.open(folder, os.O_PATH) for folder in (workdir, submission)}
    held_tmp = os.open(tmp, os.O_PATH)
    for place in SHARED_FOLDERS:
        if os.path.isdir(place) and not os.path.islink(place):
            _mount(libc, f"/proc/self/fd/{held_tmp}", place, _MS_BIND)
    for folder, fd in held.items():
        if not os.path.isdir(folder):  # it lived in a folder now covered (TMPDIR=/tmp): shown again where it was
            os.makedirs(folder, 0o711)
            _mount(libc, f"/proc/self/fd/{fd}", folder, _MS_BIND | _MS_REC)
        os.close(fd)
    os.close(held_tmp)
    if own_pids:
        # The grader's processes, the fork server's age, how many workers came before: none of it
        # shows, alone or in a class.
        if libc.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None) != 0:
            raise OSError(ctypes.get_errno(), "the sandbox could not give the worker its own /proc")
    return True


def _mount(libc, source: str, target: str, flags: int) -> None:
    if libc.mount(source.encode(), target.encode(), None, flags, None) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"the sandbox could not mount {source} on {target}: {os.strerror(error)}")


_CLONE_NEWIPC = 0x08000000
_CLONE_NEWNS = 0x00020000
_CLONE_NEWPID = 0x20000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x8, 0x1000, 0x4000, 0x40000
_PR_SET_PDEATHSIG = 1


def _as(uid: int, work, untouchable: bool = False) -> None:
    """Run ``work()`` in a child that becomes ``uid``, and wait for it: what the user may do to
    its own processes and files needs no capability the fork server lacks (under bubblewrap).
    ``untouchable``: ``uid`` is the child's effective user only (``_untouchable_by``)."""
    pid = os.fork()
    if pid == 0:
        try:
            if untouchable:
                other = _untouchable_by(uid)
                os.setgroups([])
                os.setresgid(other, uid, other)
                os.setresuid(other, uid, other)  # no user of root's left: every capability goes
            else:
                _become(uid)
            work()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def _kill_all() -> None:
    for _ in range(3):  # a process forking at the moment of the kill gets a second try
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            break


def _untouchable_by(uid: int) -> int:
    """The real and saved user of the child that ends ``uid``'s processes: one no process runs
    as, outside the private users' range (``mode.private_uid_of``)."""
    return uid + 1_000_000


def _kill_everything_of(uid: int) -> bool:
    """Kill every process running as ``uid``: what a submission left behind, however it hid.

    A child whose effective user is ``uid`` signals -1, which reaches exactly the processes of
    that user (the fork server's own: nothing else runs as it). Its real and saved users are
    another, so that none of those processes may signal it back: a leftover that signals all it
    may, again and again, would otherwise end the child first whenever it signals first. False
    when some are still there after 5 s (stuck in the kernel, where no signal reaches them)."""
    if not _processes_of(uid):
        return True  # the usual case, the worker reaped and nothing left: no killer to fork
    deadline = time.monotonic() + 5.0
    while True:
        _as(uid, _kill_all, untouchable=True)
        ending = time.monotonic() + 0.5
        while time.monotonic() < ending:  # reap ours, and wait until the others are gone too
            try:
                while os.waitpid(-1, os.WNOHANG)[0] != 0:
                    pass
            except ChildProcessError:
                pass
            if not _processes_of(uid):
                return True
            time.sleep(0.005)
        if time.monotonic() > deadline:
            return False


def _clean_up_after(uid: int, folders: list[str]) -> None:
    """Remove what the processes of ``uid`` (all dead now) left: System V IPC objects in this IPC
    namespace, its entries in the ``folders`` it may write in, and its keyrings."""
    _as(uid, lambda: remove_leftovers(uid, folders))


def _folders_writable_by(uid: int) -> list[str]:
    """The folders in or beneath the shared folders where ``uid`` may make an entry, as a child
    that becomes ``uid`` finds them (``leftovers.writable_folders``)."""
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(reading)
            _become(uid)
            with os.fdopen(writing, "w") as out:
                json.dump(writable_folders(), out)
        finally:
            os._exit(0)
    os.close(writing)
    with os.fdopen(reading) as answer:
        text = answer.read()
    os.waitpid(pid, 0)
    try:
        return [str(f) for f in json.loads(text)]
    except ValueError:
        return list(SHARED_FOLDERS)


def _can_unshare() -> bool:
    """Can a worker have mounts and an IPC namespace of its own here (CAP_SYS_ADMIN)?"""
    pid = os.fork()
    if pid == 0:
        os._exit(0 if ctypes.CDLL(None, use_errno=True).unshare(_CLONE_NEWNS | _CLONE_NEWIPC) == 0 else 1)
    return os.waitpid(pid, 0)[1] == 0


def _private_ipc() -> None:
    """A System V IPC namespace of this worker's own, where the fork server may make one (root
    with CAP_SYS_ADMIN, plain mode): nothing of another's visible, its segments die with it."""
    ctypes.CDLL(None, use_errno=True).unshare(_CLONE_NEWIPC)


def _processes_of(uid: int) -> list[str]:
    """The processes of ``uid`` still alive: not those that have exited and wait to be reaped (a
    zombie holds nothing and runs nothing, and where no init reaps orphans, as in some containers,
    it may wait for ever)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and os.stat(f"/proc/{name}").st_uid == uid and not _exited(name):
                found.append(name)
        except OSError:
            pass
    return found


def _exited(pid: str) -> bool:
    """Has process ``pid`` exited, a zombie or dead (or is it gone)?"""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True


def _set_limits(limits: dict, baseline_vm: int) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # Address space is capped above what numpy already mapped, so the cap is the student's share.
    memory = baseline_vm + limits["memory_bytes"]
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_bytes"], limits["file_bytes"]))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits["processes"], limits["processes"]))
    resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu_seconds"], limits["cpu_seconds"] + 1))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a full output file makes write() fail, not the process die


def _become_worker(
    control: socket.socket,
    request: dict,
    fds: list[int],
    baseline_vm: int,
    uid: int | None,
    private: bool,
    own_pids: bool,
) -> None:
    from attnlab.sandbox.inside.worker import BoundedText, Worker

    channel_fd, stdout_fd, stderr_fd = fds
    control.close()
    os.setsid()  # its own process group, so the grader can kill it with everything it started
    os.dup2(stdout_fd, 1)
    os.dup2(stderr_fd, 2)
    os.close(stdout_fd)
    os.close(stderr_fd)
    workdir = request["workdir"]
    scratch = os.path.join(workdir, "scratch")
    if os.geteuid() == 0 and uid is not None:
        _private_folders(workdir, scratch, request["limits"]["folder_bytes"], request["submission"], private, own_pids)
        _drop_privileges(workdir, scratch, uid)
    else:
        os.mkdir(scratch, 0o700)
    os.chdir(scratch)  # where relative paths write: the one folder the student may fill
    _set_limits(request["limits"], baseline_vm)
    measured = bool(request.get("measured"))
    if measured:  # a memory-measured call's worker: no other process beside it, ever
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
        _map_cached_file_pages()
    syscalls.deny(measured)
    # First words on the channel, once the worker is set up and before any student code runs (a
    # worker that dies before them is the sandbox's failure, not the student's): the kernel
    # attaches this process's pid as the grader sees it (the grader may live in another pid namespace).
    # Then nothing of the submission runs until the grader says so, once it has put this worker in
    # its slot's control groups (where the machine has them).
    with socket.socket(fileno=os.dup(channel_fd)) as first:
        first.send(b"hello")
        if first.recv(1, socket.MSG_WAITALL) != b"g":
            os._exit(0)
    # A worker's calls (a program's above all) make and drop many small containers: collections
    # of the youngest objects ten times less often (cycles are still collected; a worker lives
    # one submission).
    gc.set_threshold(7000, 10, 10)
    sys.stdout = BoundedText(1, request["limits"]["output_chars"])
    sys.stderr = BoundedText(2, request["limits"]["output_chars"])
    sys.dont_write_bytecode = True
    channel = socket.socket(fileno=channel_fd)
    Worker(
        channel, request["submission"], request["module"], request["serves"], request["standins"], remember=not measured
    ).serve()


def _map_cached_file_pages() -> None:
    """A memory-measured worker, before any of the submission's code runs: map every page of its
    file mappings (libraries) that the page cache holds, so that the library code the call runs
    later adds nothing to the resident size it is measured by: only what it allocates does."""
    import numpy as np

    libc = ctypes.CDLL(None, use_errno=True)
    page = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/self/maps") as maps:
        lines = maps.read().splitlines()
    for line in lines:
        fields = line.split(maxsplit=5)
        if (
            len(fields) < 6
            or not fields[5].startswith("/")
            or fields[5].startswith("/dev/")
            or not fields[1].startswith("r")
        ):
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        present = (ctypes.c_ubyte * ((end - start) // page))()
        if libc.mincore(ctypes.c_void_p(start), ctypes.c_size_t(end - start), present) != 0:
            continue
        cached = np.flatnonzero(np.frombuffer(present, np.uint8) & 1)
        # Reading one byte of a page maps it; a page the cache does not hold (past the end of the
        # file, or never read) is left alone.
        np.frombuffer((ctypes.c_ubyte * (end - start)).from_address(start), np.uint8)[cached * page].sum()


def _import_library(name: str, warmup: str | None) -> None:
    """Import ``name`` here, so that every later worker inherits it, and run the course's warm-up
    for it (``[course.warmup]``): what its first use loads, every worker then has."""
    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 - the student's import of it then fails, and says why
        return
    if warmup:
        try:
            exec(compile(warmup, f"<the course's warm-up for {name}>", "exec"), {"__name__": "__warmup__"})
        except Exception as error:  # noqa: BLE001 - a broken warm-up costs speed, never a grade
            print(
                f"attnlab: the course's warm-up for {name} failed ({type(error).__name__}: {error}); workers start cold",
                file=sys.stderr,
            )


def main(control_fd: int) -> None:
    """Serve the grader on ``control_fd`` until it goes; ``sys.argv[2]``, when given, is the
    environment's configuration (``SandboxEnvironment.as_config``). Ctrl-C is the grader's: it
    stops this server by closing the socket, and a reply that finds it closed ends the server
    without a word (it printed a ``BrokenPipeError`` traceback over the grader's last lines)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _serve(control_fd)
    except (BrokenPipeError, ConnectionResetError):
        pass


def _serve(control_fd: int) -> None:
    """The zygote: import once, then fork a server for each submission (``begin``) and reap it."""
    control = socket.socket(fileno=control_fd)
    config = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    warmups = config.get("warmups", {})
    import numpy  # noqa: F401 - paid once here, inherited by every fork

    import attnlab.sandbox.inside.worker  # noqa: F401 - likewise
    import attnlab.sandbox.inside.module_harness  # noqa: F401 - likewise, and its folder may be closed to workers (Gradescope's source)

    # Modules student code plausibly imports, loaded while we can still read them: once a worker
    # runs as nobody, a Python installed in a private folder (pyenv under /root) is unreadable.
    for name in PREIMPORTED:
        try:
            importlib.import_module(name)
        except ImportError:
            pass

    from attnlab.sandbox.inside import worker

    worker.use_libraries(
        tuple(config.get("libraries", ("numpy",))),
        {module: tuple(names) for module, names in config.get("libraries_of", {}).items()},
    )
    # The course's own packages, imported while they can be read (as above) and inherited warm.
    for name in config.get("preimport", ()):
        _import_library(name, warmups.get(name))
    imported: set[str] = set(config.get("preimport", ()))
    # Workers with mounts and IPC of their own leave nothing in the shared folders or this IPC
    # namespace: cleaning those after each submission is needed only where the kernel refuses.
    private = os.geteuid() == 0 and _can_unshare()
    uid = config.get("uid")
    # What the workers' user may write in the shared folders, found before any submission ran.
    writable = _folders_writable_by(uid) if uid is not None and os.geteuid() == 0 and not private else []
    while True:
        try:
            data, fds, _flags, _address = socket.recv_fds(control, CONTROL_MESSAGE_BYTES, 4)
        except OSError:
            return
        if not data:
            return
        request = json.loads(data)
        if request["op"] == "begin":
            # A heavy library (torch) is imported here the first time a submission needs it,
            # so every later one inherits it, and a numpy-only class never pays for it.
            _import_needed(request.get("needs", ()), imported, warmups)
            # All a server inherits (numpy, torch) out of its collector's sight: a full collection
            # in a worker would walk it, and copy every page it touched.
            gc.freeze()
            pid = os.fork()
            if pid == 0:
                try:
                    control.close()
                    _serve_submission(socket.socket(fileno=fds[0]), uid, private, writable, imported, warmups)
                finally:
                    os._exit(0)
            for fd in fds:
                os.close(fd)
            control.send(json.dumps({"pid": pid}).encode())
        elif request["op"] == "reap":
            try:
                _pid, status = os.waitpid(request["pid"], 0)
                reply = _exit_status(status)
            except ChildProcessError:
                reply = {}
            control.send(json.dumps(reply).encode())


def _own_pid_namespace() -> int | None:
    """Where the kernel allows: this process's later children in a pid namespace of their own,
    whose init (returned: its pid here) reaps orphans there and dies with this process, taking
    every process of the namespace with it. None where it does not."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWPID) != 0:
        return None
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    pid = os.fork()
    if pid == 0:
        try:
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            while True:
                try:
                    while os.waitpid(-1, os.WNOHANG)[0] != 0:
                        pass
                except ChildProcessError:
                    pass
                signal.sigwait({signal.SIGCHLD})
        finally:
            os._exit(0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    return pid


def _import_needed(needs, imported: set[str], warmups: dict) -> bool:
    """Import the libraries of ``needs`` not yet in ``imported`` (and add them); True when any was."""
    missing = [name for name in needs if name not in imported]
    for name in missing:
        _import_library(name, warmups.get(name))
        imported.add(name)
    return bool(missing)


def _serve_submission(
    control: socket.socket, uid: int | None, private: bool, writable: list[str], imported: set[str], warmups: dict
) -> None:
    """One submission's server: fork its workers, one after another, each after every process the
    submission left is gone; end them all when the grader closes the line."""
    baseline_vm = _virtual_memory_bytes()
    init = _own_pid_namespace() if private else None
    as_root = os.geteuid() == 0 and uid is not None
    try:
        while True:
            try:
                data, fds, _flags, _address = socket.recv_fds(control, CONTROL_MESSAGE_BYTES, 4)
            except OSError:
                return
            if not data:
                return
            request = json.loads(data)
            if request["op"] == "spawn":
                # Not asked for when the submission began: imported here, for its workers.
                if _import_needed(request.get("needs", ()), imported, warmups):
                    baseline_vm = _virtual_memory_bytes()
                    gc.freeze()
                # What an earlier worker left cannot reach this one; what cannot be ended (stuck in
                # the kernel) would share this worker's memory budget: no worker starts beside it.
                if as_root and not _kill_everything_of(uid):
                    for fd in fds:
                        os.close(fd)
                    left = "a process the submission left could not be ended (it is stuck in the kernel)"
                    control.send(json.dumps({"error": left}).encode())
                    continue
                pid = os.fork()
                if pid == 0:
                    try:
                        _become_worker(control, request, fds, baseline_vm, uid, private, init is not None)
                    finally:
                        os._exit(0)
                for fd in fds:
                    os.close(fd)
                control.send(json.dumps({"pid": pid}).encode())
            elif request["op"] == "clean":
                if as_root:
                    _kill_everything_of(uid)
                    if not private:
                        _clean_up_after(uid, writable)
                control.send(b"{}")
            elif request["op"] == "reap":
                try:
                    _pid, status = os.waitpid(request["pid"], 0)
                    reply = _exit_status(status)
                except ChildProcessError:
                    reply = {}
                control.send(json.dumps(reply).encode())
    finally:
        if init is not None:
            os.kill(init, signal.SIGKILL)  # the namespace's init: every process in it goes too
        if as_root:
            _kill_everything_of(uid)
            if not private:
                _clean_up_after(uid, writable)


if __name__ == "__main__":
    main(int(sys.argv[1]))
