"""What a submission's processes leave where every user may write, found and removed.

Where workers cannot have mounts and an IPC namespace of their own (no CAP_SYS_ADMIN, as in a
container), they share the machine's System V IPC objects and its shared folders. After each
submission the fork server forks a child that becomes the submission's private user and calls
``remove_leftovers`` there: running as that user, the kernel itself says what it could have
reached, and what it owns.

Found by what the user could write, never by walking what it can read: the folders it may make
an entry in (``writable_folders``, found once per fork server) and, below them, the folders it
may still write in. A machine with 100,000 files readable by all in /tmp (a checkout with its
virtual environment) once made a bounded walk stop before /dev/shm, where a classmate's file
waited. Nothing here depends on a kernel setting (``kernel.shm_rmid_forced``) or on /proc
being complete.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import stat
import subprocess

SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")
"""Folders every user may write to, on any Linux."""
_IPC_RMID = 0
# Per kind: (its /proc/sysvipc table, the column of the id there, the control call's INFO and
# STAT_ANY commands, and STAT for kernels before 4.17). STAT_ANY needs no read permission.
_IPC_KINDS = {
    "shm": ("shmid", 14, 15, 13),
    "sem": ("semid", 19, 20, 18),
    "msg": ("msqid", 12, 13, 11),
}
_IPC_PERM = 256  # bytes enough for any *id_ds; ipc_perm is at its start: key, uid, gid, cuid, cgid


def _folders_below(top: str) -> list[str]:
    """Every folder beneath ``top`` (not ``top``), parents before children, found without
    recursion (a folder nested thousands deep is no deeper for a loop) and without following a
    symbolic link."""
    found, stack = [], [top]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    found.append(entry.path)
                    stack.append(entry.path)
            except OSError:
                continue
    return found


def writable_folders(tops=SHARED_FOLDERS) -> list[str]:
    """Every folder in or beneath ``tops`` where this process's user may make an entry (write and
    search permission, as the kernel decides: ``os.access`` with the real user), found by a walk
    of what it may read; symbolic links are not followed."""
    found = []
    for top in tops:
        if os.path.isdir(top) and not os.path.islink(top) and os.access(top, os.W_OK | os.X_OK):
            found.append(top)
        found.extend(folder for folder in _folders_below(top) if _writable_folder(folder))
    return sorted(set(found))


def _writable_folder(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode) and os.access(path, os.W_OK | os.X_OK)
    except OSError:
        return False


def remove_files_of(uid: int, folders: list[str]) -> None:
    """Remove every entry ``uid`` owns in ``folders`` (each whole), and in the folders below them
    it may write in (made since they were found); run as ``uid``."""
    seen, stack = set(), list(folders)
    while stack:
        folder = stack.pop()
        if folder in seen:
            continue
        seen.add(folder)
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if info.st_uid == uid:
                _remove(entry.path, stat.S_ISDIR(info.st_mode))
            elif stat.S_ISDIR(info.st_mode) and os.access(entry.path, os.W_OK | os.X_OK):
                stack.append(entry.path)


def _remove(path: str, folder: bool) -> None:
    """Remove ``path`` whole; a folder its owner closed to itself (mode 000) is opened first.
    A folder goes by coreutils' ``chmod -R`` and ``rm -rf``, which walk a tree of any depth (a
    path past PATH_MAX too); without them, by a walk of this process's own."""
    if not folder:
        try:
            os.unlink(path)
        except OSError:
            pass
        return
    chmod, rm = shutil.which("chmod"), shutil.which("rm")
    if chmod and rm:
        subprocess.run([chmod, "-R", "u+rwx", "--", path], stderr=subprocess.DEVNULL, check=False)
        subprocess.run([rm, "-rf", "--", path], stderr=subprocess.DEVNULL, check=False)
        return
    _open_to_owner(path)
    folders, index = [path], 0
    while index < len(folders):  # every folder, parents first, without recursion
        try:
            entries = list(os.scandir(folders[index]))
        except OSError:
            entries = []
        index += 1
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    _open_to_owner(entry.path)
                    folders.append(entry.path)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass
    for inner in reversed(folders):  # children before parents
        try:
            os.rmdir(inner)
        except OSError:
            pass


def _open_to_owner(path) -> None:
    try:
        if path is not None and not os.path.islink(path):
            os.chmod(path, 0o700)
    except OSError:
        pass


def ipc_objects(kind: str) -> list[tuple[int, int, int]]:
    """The System V IPC objects of ``kind`` ("shm", "sem", "msg") in this IPC namespace, as
    (id, owner, creator): read from /proc/sysvipc, or where that cannot be read (a /proc masked
    or incomplete), asked of the kernel index by index."""
    try:
        return _ipc_objects_in_proc(kind)
    except (OSError, ValueError):
        return ipc_objects_by_index(kind)


def _ipc_objects_in_proc(kind: str) -> list[tuple[int, int, int]]:
    with open(f"/proc/sysvipc/{kind}") as table:
        header, *rows = [line.split() for line in table]
    ident, owner, creator = (header.index(column) for column in (_IPC_KINDS[kind][0], "uid", "cuid"))
    return [(int(row[ident]), int(row[owner]), int(row[creator])) for row in rows]


def ipc_objects_by_index(kind: str) -> list[tuple[int, int, int]]:
    """As ``ipc_objects``, from the kernel's control calls (``*_INFO`` for the highest index in
    use, then ``*_STAT_ANY``, or ``*_STAT`` before Linux 4.17, for each index)."""
    libc = ctypes.CDLL(None, use_errno=True)
    _, info, stat_any, stat_plain = _IPC_KINDS[kind]
    buffer = ctypes.create_string_buffer(_IPC_PERM)
    control = {
        "shm": lambda i, c: libc.shmctl(i, c, buffer),
        "sem": lambda i, c: libc.semctl(i, 0, c, buffer),
        "msg": lambda i, c: libc.msgctl(i, c, buffer),
    }[kind]
    highest = control(0, info)
    found = []
    for index in range(max(highest, -1) + 1):
        ident = control(index, stat_any)
        if ident < 0 and ctypes.get_errno() == 22:  # EINVAL: a kernel without STAT_ANY
            ident = control(index, stat_plain)
        if ident >= 0:
            owner, creator = (int.from_bytes(buffer.raw[offset : offset + 4], "little") for offset in (4, 12))
            found.append((ident, owner, creator))
    return found


def remove_ipc_of(uid: int) -> None:
    """Remove the System V IPC objects ``uid`` owns or created (an owner may hand its object to
    another user with IPC_SET, never its creation); run as ``uid``, who may remove them."""
    libc = ctypes.CDLL(None, use_errno=True)
    removers = {
        "shm": lambda i: libc.shmctl(i, _IPC_RMID, None),
        "sem": lambda i: libc.semctl(i, 0, _IPC_RMID),
        "msg": lambda i: libc.msgctl(i, _IPC_RMID, None),
    }
    for kind, remove in removers.items():
        for ident, owner, creator in ipc_objects(kind):
            if uid in (owner, creator):
                remove(ident)


def clear_keyrings() -> None:
    """As the private user: empty its user, user-session and persistent keyrings (where a worker
    could not be denied them, what it left there goes with the submission)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    number = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine)
    if number is None:
        return
    keyctl_clear, keyctl_get_persistent = 7, 22
    user, user_session, process = -4, -5, -2
    keyrings = [user, user_session]
    persistent = libc.syscall(number, ctypes.c_long(keyctl_get_persistent), ctypes.c_long(-1), ctypes.c_long(process))
    if persistent > 0:
        keyrings.append(persistent)
    for keyring in keyrings:
        libc.syscall(number, ctypes.c_long(keyctl_clear), ctypes.c_long(keyring))


def remove_leftovers(uid: int, folders: list[str]) -> None:
    """As ``uid``, whose processes are all gone: its System V IPC objects, its entries in the
    ``folders`` it may write in (``writable_folders``), and its keyrings."""
    remove_ipc_of(uid)
    remove_files_of(uid, folders)
    clear_keyrings()
