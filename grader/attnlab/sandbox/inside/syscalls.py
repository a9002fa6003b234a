"""What a worker may not ask of the kernel: a seccomp filter, installed before any student code runs.

Every worker: the kernel's keyrings (``add_key``, ``request_key``, ``keyctl``) and POSIX message
queues (``mq_*``), stores that outlive the processes that filled them, where a submission could
leave answers for a later process (a live run, a classmate). And namespaces and mounts of its own
(``unshare``, ``setns``, ``clone`` with a namespace flag, ``mount`` and the calls of the new mount
API): in a user namespace of its own a process could mount a FUSE file system it serves itself and
leave a process stuck on it, in a state no signal ends, holding memory of its slot's budget that
its classmates would then lack. ``clone3`` (whose flags are behind a pointer the filter cannot
read) fails with ENOSYS, on which the C library makes its threads with ``clone``. Other refused
calls fail with EPERM, and no process of the worker may gain privileges again.

A memory-measured call's worker besides: no file opened for writing (``/proc/self/clear_refs``
would reset its peak; a file in a memory folder would hold memory outside it), no memory outside
its address space it could fill (``memfd_create``, pipes, sockets, System V objects, io_uring),
and no page given back with ``madvise`` (room it could then fill unseen under its peak). What it
holds is then in its own pages, which the grader counts.
"""

from __future__ import annotations

import ctypes
import os

_X86_64, _AARCH64 = 0xC000003E, 0xC00000B7
_KEYRINGS_AND_QUEUES = {
    _X86_64: (248, 249, 250, 240, 241, 242, 243, 244, 245),
    _AARCH64: (217, 218, 219, 180, 181, 182, 183, 184, 185),
}
# memfd_create, memfd_secret, pipe(2), socket, socketpair, shmget, shmat (memory another process
# filled), msgget, semget, io_uring_setup, openat2 (its flags are behind a pointer the filter
# cannot read), creat.
_MEASURED_DENIED = {
    _X86_64: (319, 447, 22, 293, 41, 53, 29, 30, 68, 64, 425, 437, 85),
    _AARCH64: (279, 447, 59, 198, 199, 194, 196, 186, 190, 425, 437),
}
# unshare, setns, mount, umount2, pivot_root, and the new mount API (open_tree, move_mount, fsopen,
# fsconfig, fsmount, fspick, mount_setattr: the same numbers on both).
_NAMESPACES_AND_MOUNTS = {
    _X86_64: (272, 308, 165, 166, 155, 428, 429, 430, 431, 432, 433, 442),
    _AARCH64: (97, 268, 40, 39, 41, 428, 429, 430, 431, 432, 433, 442),
}
_CLONE3 = 435  # both
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET: clone's first argument.
_NEW_NAMESPACE = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
_CLONE_ARGUMENTS = {_X86_64: [(56, 0, "any", _NEW_NAMESPACE)], _AARCH64: [(220, 0, "any", _NEW_NAMESPACE)]}
# Calls refused for some values of one argument: (number, argument, rule, value). "any": refused
# when the argument shares a bit with the value; "is": when it is the value.
_WRITING = os.O_ACCMODE | os.O_TRUNC  # O_WRONLY, O_RDWR, or a truncation
_GIVING_BACK = (4, 8, 9, 20, 21)  # MADV_DONTNEED, MADV_FREE, MADV_REMOVE, MADV_COLD, MADV_PAGEOUT
_MEASURED_ARGUMENTS = {
    _X86_64: [(2, 1, "any", _WRITING), (257, 2, "any", _WRITING), *((28, 2, "is", a) for a in _GIVING_BACK)],
    _AARCH64: [(56, 2, "any", _WRITING), *((233, 2, "is", a) for a in _GIVING_BACK)],
}
_X32_BIT = 0x40000000
_LD, _JEQ, _JGE, _AND, _RET = 0x20, 0x15, 0x35, 0x54, 0x06
_EPERM, _ENOSYS, _ALLOW = 0x00050000 | 1, 0x00050000 | 38, 0x7FFF0000


def _program(arch: int, measured: bool) -> list[tuple[int, int, int, int]]:
    """The filter, as classic BPF (code, jump if true, jump if false, k); jumps are forward
    offsets, written here as labels and resolved at the end."""
    denied = [*_KEYRINGS_AND_QUEUES[arch], *_NAMESPACES_AND_MOUNTS[arch], *(_MEASURED_DENIED[arch] if measured else ())]
    rules: dict[int, list] = {}
    for number, argument, rule, value in [*_CLONE_ARGUMENTS[arch], *(_MEASURED_ARGUMENTS[arch] if measured else ())]:
        rules.setdefault(number, []).append((argument, rule, value))
    code: list[tuple] = [(_LD, 0, 0, 4), (_JEQ, 0, "deny", arch), (_LD, 0, 0, 0), (_JGE, "deny", 0, _X32_BIT)]
    code += [(_JEQ, "nosys", 0, _CLONE3)]
    code += [(_JEQ, "deny", 0, number) for number in denied]
    code += [(_JEQ, f"check-{number}", 0, number) for number in rules]
    code += [(_RET, 0, 0, _ALLOW)]
    for number, checks in rules.items():
        code.append(("label", f"check-{number}"))
        for place, (argument, rule, value) in enumerate(checks):
            then = f"check-{number}-{place + 1}" if place + 1 < len(checks) else "allow"
            # The low 32 bits of the argument (seccomp_data.args[argument], little-endian).
            code.append((_LD, 0, 0, 16 + 8 * argument))
            if rule == "is":
                code.append((_JEQ, "deny", then, value))
            else:
                code += [(_AND, 0, 0, value), (_JEQ, then, "deny", 0)]
            code.append(("label", then))
    code += [("label", "allow"), (_RET, 0, 0, _ALLOW), ("label", "deny"), (_RET, 0, 0, _EPERM)]
    code += [("label", "nosys"), (_RET, 0, 0, _ENOSYS)]
    places, program = {}, []
    for item in code:
        if item[0] == "label":
            places[item[1]] = len(program)
        else:
            program.append(item)
    resolved = []
    for index, (op, true, false, k) in enumerate(program):
        jumps = [places[j] - index - 1 if isinstance(j, str) else j for j in (true, false)]
        resolved.append((op, *jumps, k))
    return resolved


def deny(measured: bool = False) -> bool:
    """Install the filter on this process and its children to come (``measured``: a
    memory-measured call's worker), and forbid gaining privileges; False where that cannot be done."""
    arch = {"x86_64": _X86_64, "aarch64": _AARCH64}.get(os.uname().machine)
    if arch is None:
        return False
    program = _program(arch, measured)

    class Instruction(ctypes.Structure):
        _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint32)]

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Instruction))]

    instructions = (Instruction * len(program))(*[Instruction(*i) for i in program])
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(Program(len(program), instructions)), 0, 0) == 0
