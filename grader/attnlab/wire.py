"""How values cross between the trusted grader and an untrusted worker.

A message is a JSON header plus raw array buffers, framed with lengths. Only
plain data is representable: None, bool, int, float, str, tuples, lists,
str-keyed dicts and numpy arrays of a float, bool or integer dtype. The
decoder assumes its peer is hostile: it checks every size and dtype and
rebuilds arrays as fresh base-class ``ndarray`` objects, so a subclass that
lies in ``__eq__`` (or anything else the student built) never reaches the
grader. There is deliberately no pickle: unpickling a hostile stream runs code.

What a message decodes to is bounded by its own size: each buffer is one array's data, named
once, its bytes exactly the array's (no strides, no broadcasting, no view of another buffer);
and the header holds at most ``MAX_HEADER_VALUES`` values, counted before it is parsed.

Headers are written and read with orjson where it is installed (a program's
results are a few hundred kB of JSON per submission; the standard library took
ten times as long to write them, twice as long to read), else with ``json``.
A float that is not finite travels as ``{"__float__": "nan"}``: orjson would
write it as null, and strict JSON has no word for it.
"""

from __future__ import annotations

import hashlib
import json
import math
import select
import socket
import struct
import time
from typing import Callable

import numpy as np

try:
    import orjson
except ImportError:  # the engine works without it, at the standard library's speed
    orjson = None

MAX_HEADER_BYTES = 4 << 20
MAX_BUFFERS = 4096
# One array, either way: the hidden suites' largest is 256 KiB. A result past it is the student's
# error, named, before it is sent; a peer that sends one anyway breaks the format.
MAX_ARRAY_BYTES = 64 << 20
# A message is held whole by its receiver: room for one array at the limit and more besides (a
# program sends its results in messages of about 16 MiB at most).
MAX_MESSAGE_BYTES = 2 * MAX_ARRAY_BYTES
# Lists, tuples and text travel in the JSON header, which is slow and large to write past these
# bounds: a student's oversized list is named as such, not mistaken for a timeout.
MAX_ITEMS = 1 << 16
MAX_TEXT_CHARS = 1 << 20
MAX_DEPTH = 32
# Values (numbers, texts, containers) in one header, all levels together, and what one may cost
# its reader (a Python object and its slot, parsed and then rebuilt) from as little as two bytes
# of JSON: counted against the message's limit with its arrays.
MAX_HEADER_VALUES = 4 * MAX_ITEMS
VALUE_BYTES = 160
ARRAY_KINDS = "fbiu"  # float, bool, signed and unsigned integers

_PREFIX = struct.Struct("!IH")  # header length, number of buffers
_FLOAT = struct.Struct("<d")


class WireError(Exception):
    """The peer sent something that is not plain data; the message says what."""


class PeerClosed(Exception):
    """The other end closed the channel (a worker that exited or crashed)."""


# ---------------------------------------------------------------- values


def encode(value, buffers: list) -> object:
    """Turn ``value`` into a JSON-able tree, appending array payloads to ``buffers``."""
    return _encode(value, buffers, 0)


def _encode(value, buffers, depth):
    if depth > MAX_DEPTH:
        raise WireError("nesting deeper than 32 levels")
    # Arrays and tuples first: most results are one or the other.
    if isinstance(value, np.ndarray):
        array = _plain_array(value)
        buffers.append(array)
        return {"__nd__": [len(buffers) - 1, array.dtype.str, list(array.shape)]}
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, buffers, depth + 1) for v in _countable(value)]}
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _plain_text(value)
    if isinstance(value, np.generic):  # numpy scalars travel as Python scalars
        if value.dtype.kind not in ARRAY_KINDS:
            raise WireError(f"a numpy scalar of dtype {value.dtype} is not a number")
        return _encode(value.item(), buffers, depth)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        value = float(value)
        return value if math.isfinite(value) else {"__float__": repr(value)}
    if isinstance(value, list):
        return [_encode(v, buffers, depth + 1) for v in _countable(value)]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise WireError("a dict with non-string keys")
        return {"__dict__": [[k, _encode(v, buffers, depth + 1)] for k, v in _countable(value).items()]}
    raise WireError(f"a value of type {type(value).__name__}")


def _countable(items):
    """``items`` (a list, tuple or dict), if it has few enough to travel in a header."""
    if len(items) > MAX_ITEMS:
        raise WireError(
            f"a {type(items).__name__} of {len(items)} items, more than the {MAX_ITEMS} one may hold (an array may hold more)"
        )
    return items


def _plain_text(value: str) -> str:
    if len(value) > MAX_TEXT_CHARS:
        raise WireError(f"a text of {len(value)} characters, more than the {MAX_TEXT_CHARS} one may be")
    return value


def _plain_array(value: np.ndarray) -> np.ndarray:
    """``value`` as a base-class array (itself when it is one: a subclass's methods go no
    further), if its dtype may cross the wire."""
    array = value if type(value) is np.ndarray else np.asarray(value)
    if array.dtype.kind not in ARRAY_KINDS:
        raise _refused_dtype(array.dtype)
    if array.nbytes > MAX_ARRAY_BYTES:
        raise WireError(
            f"an array of {array.nbytes / (1 << 20):.0f} MiB (shape {array.shape}), more than the {MAX_ARRAY_BYTES >> 20} MiB one array may be"
        )
    return array


def _refused_dtype(dtype) -> WireError:
    return WireError(f"an array of dtype {dtype} (only float, bool and integer arrays are accepted)")


def decode(tree, buffers: list, copy: bool = True) -> object:
    """Rebuild a value from ``encode``'s tree; raise ``WireError`` on anything unexpected, a
    buffer named twice included (one buffer is one array: decoded, a value is no larger than
    the message that carried it).

    With ``copy=False`` arrays are writable views of ``buffers`` (which must be writable and
    outlive them): for the worker's own arguments, never for what the grader receives."""
    try:
        return _decode(tree, buffers, 0, copy, set())
    except WireError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, RecursionError) as error:
        raise WireError(f"malformed value ({type(error).__name__}: {error})") from None


def as_bytes(array: np.ndarray) -> memoryview:
    """The array's data as a flat byte view, C order (zero-size and 0-d arrays included)."""
    if array.flags.c_contiguous and array.size:
        return memoryview(array).cast("B")  # a tenth of the cost of the general way, per array
    return memoryview(np.require(array, requirements="C").reshape(-1).view(np.uint8))


def copy_plain(value):
    """A fresh copy of ``value``, exactly what encoding and decoding it gives (what crossing the
    wire does), made without the detour: raises ``WireError`` for what ``encode`` refuses."""
    return _copy(value, 0)


def _copy(value, depth):
    if depth > MAX_DEPTH:
        raise WireError("nesting deeper than 32 levels")
    # Arrays and tuples first: a copy per nested call a program makes, most of them arrays.
    if isinstance(value, np.ndarray):
        return _plain_array(value).copy(order="C")
    if isinstance(value, tuple):
        return tuple([_copy(v, depth + 1) for v in _countable(value)])
    if value is None or type(value) in (bool, int, float):
        return value
    if type(value) is str:
        return _plain_text(value)
    if isinstance(value, list):
        return [_copy(v, depth + 1) for v in _countable(value)]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise WireError("a dict with non-string keys")
        return {str(k): _copy(v, depth + 1) for k, v in _countable(value).items()}
    # Subclasses of the plain types and numpy scalars: as encoding them would.
    return decode(encode(value, buffers := []), [as_bytes(array) for array in buffers])


def leaves(value):
    """Every value in a plain value that is not a tuple, list or dict (those are opened)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (tuple, list)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        else:
            yield item


def fingerprint(value) -> str:
    """A digest of a plain value that is the same for any two values ``copy_plain`` makes
    equal, computed on either side of the wire (``WireError`` for what cannot cross it)."""
    hasher = hashlib.blake2b(digest_size=16)
    _feed(value, hasher.update, 0)
    return hasher.hexdigest()


_ARRAY_TAGS: dict[tuple, bytes] = {}  # (dtype, shape) -> the bytes that open an array's digest
_SEQUENCE_TAGS = {(kind, n): (b"(%d;" if kind is tuple else b"[%d;") % n for kind in (tuple, list) for n in range(64)}


def _feed(value, update, depth) -> None:
    # Runs for every nested call a program makes, over a thousand per submission: the exact
    # plain types first, with their opening bytes kept; subclasses and numpy scalars after.
    if depth > MAX_DEPTH:
        raise WireError("nesting deeper than 32 levels")
    kind = type(value)
    if kind is np.ndarray:
        if value.nbytes > MAX_ARRAY_BYTES:
            _plain_array(value)  # raises, in encode's words
        tag = _ARRAY_TAGS.get((value.dtype, value.shape)) or _array_tag(value)
        update(tag)
        try:
            update(value)
        except (BufferError, ValueError):  # not C-contiguous
            update(as_bytes(value))
        return
    if kind is tuple or kind is list:
        update(
            _SEQUENCE_TAGS.get((kind, len(value))) or (b"(%d;" if kind is tuple else b"[%d;") % len(_countable(value))
        )
        for item in value:
            _feed(item, update, depth + 1)
        return
    if kind is float:
        update(b"f" + _FLOAT.pack(value))
    elif value is None:
        update(b"N")
    elif kind is bool:
        update(b"T" if value else b"F")
    elif kind is int:
        update(b"i%d;" % value)
    elif kind is str:
        data = _plain_text(value).encode("utf-8", "surrogatepass")
        update(b"s%d;" % len(data))
        update(data)
    elif kind is dict:
        update(b"{%d;" % len(_countable(value)))
        for key, item in value.items():
            if type(key) is not str:
                if not isinstance(key, str):
                    raise WireError("a dict with non-string keys")
                key = str(key)
            _feed(key, update, depth + 1)
            _feed(item, update, depth + 1)
    # Subclasses of the plain types, and numpy scalars: as the plain value they cross as.
    elif isinstance(value, np.ndarray):
        _feed(np.asarray(value), update, depth)
    elif isinstance(value, np.generic):
        if value.dtype.kind not in ARRAY_KINDS:
            raise WireError(f"a numpy scalar of dtype {value.dtype} is not a number")
        _feed(value.item(), update, depth)
    elif isinstance(value, bool):
        _feed(bool(value), update, depth)
    elif isinstance(value, int):
        _feed(int(value), update, depth)
    elif isinstance(value, float):
        _feed(float(value), update, depth)
    elif isinstance(value, str):
        _feed(str(value), update, depth)
    elif isinstance(value, tuple):
        _feed(tuple(value), update, depth)
    elif isinstance(value, list):
        _feed(list(value), update, depth)
    elif isinstance(value, dict):
        _feed(dict(value), update, depth)
    else:
        raise WireError(f"a value of type {type(value).__name__}")


def _array_tag(array: np.ndarray) -> bytes:
    """The bytes that open an array's digest (its dtype and shape), after checking its dtype."""
    dtype = array.dtype
    if dtype.kind not in ARRAY_KINDS:
        raise _refused_dtype(dtype)
    tag = f"a{dtype.str}{array.shape};".encode()
    if len(_ARRAY_TAGS) < 4096:  # the shapes of a hidden suite; a hostile peer's are not kept
        _ARRAY_TAGS[(dtype, array.shape)] = tag
    return tag


def _decode(tree, buffers, depth, copy, used):
    # Runs for every argument and result that crosses, thousands per submission: the exact JSON
    # types by identity first (a header holds nothing else), the rare kinds after.
    if depth > MAX_DEPTH:
        raise WireError("nesting deeper than 32 levels")
    kind = type(tree)
    if kind is dict:
        if len(tree) != 1:
            raise WireError("an unknown kind of value")
        described = tree.get("__nd__")
        if described is not None:
            return _decode_array(described, buffers, copy, used)
        items = tree.get("__tuple__")
        if items is not None:
            return tuple([_decode(v, buffers, depth + 1, copy, used) for v in _as_list(items)])
        if "__dict__" in tree:
            pairs = _as_list(tree["__dict__"])
            if not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in pairs):
                raise WireError("a malformed dict")
            return {k: _decode(v, buffers, depth + 1, copy, used) for k, v in pairs}
        if "__float__" in tree:
            if tree["__float__"] not in _NON_FINITE:
                raise WireError("a malformed float")
            return float(tree["__float__"])
        raise WireError("an unknown kind of value")
    if kind is list:
        return [_decode(v, buffers, depth + 1, copy, used) for v in tree]
    if tree is None or kind is int or kind is float or kind is str or kind is bool:
        return tree
    raise WireError("an unknown kind of value")


_NON_FINITE = ("nan", "inf", "-inf")


def _as_list(value) -> list:
    if not isinstance(value, list):
        raise WireError("a malformed container")
    return value


_DTYPES: dict[str, np.dtype] = {}  # dtype text -> the accepted dtype it names


def _accepted_dtype(text) -> np.dtype:
    dtype = _DTYPES.get(text) if type(text) is str else None
    if dtype is not None:
        return dtype
    if not isinstance(text, str) or len(text) > 8:
        raise WireError("an array with a malformed dtype")
    dtype = np.dtype(text)
    if dtype.kind not in ARRAY_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise _refused_dtype(dtype)
    if len(_DTYPES) < 64:
        _DTYPES[text] = dtype
    return dtype


def _decode_array(described, buffers, copy, used) -> np.ndarray:
    if not (type(described) is list and len(described) == 3):
        raise WireError("a malformed array")
    index, dtype_text, shape = described
    if not (type(index) is int and 0 <= index < len(buffers)):
        raise WireError("an array without its data")
    if index in used:
        raise WireError("one buffer named as the data of two arrays")
    used.add(index)
    dtype = _accepted_dtype(dtype_text)
    if type(shape) is not list or len(shape) > 32:
        raise WireError("an array with a malformed shape")
    size = dtype.itemsize
    for n in shape:
        # No axis past what one array's bytes allow: an empty array of axes (0, 2**62) is refused too.
        if type(n) is not int or not 0 <= n <= MAX_ARRAY_BYTES:
            raise WireError("an array with a malformed shape")
        size *= n
    payload = buffers[index]
    if size != memoryview(payload).nbytes:
        raise WireError("an array whose data does not match its shape")
    if dtype.kind == "b" and copy:
        # A bool is one byte, but only 0 and 1 are bools: any other byte is read as True.
        return np.frombuffer(payload, dtype=np.uint8).astype(bool).reshape(shape)
    array = np.frombuffer(payload, dtype=dtype).reshape(shape)
    # A fresh, writable, base-class array that owns its memory (or a view, when asked for).
    return array.copy() if copy or array.size == 0 else array


# ---------------------------------------------------------------- framing

_JOIN_BYTES = 1 << 20


def dumps(header) -> bytes:
    """A header as JSON bytes. orjson refuses what ``json`` still writes exactly (an int past 64
    bits, a str with a lone surrogate): those go the slow way."""
    if orjson is not None:
        try:
            return orjson.dumps(header)
        except TypeError:
            pass
    return json.dumps(header, allow_nan=True).encode()


def loads(data):
    """A header read from JSON bytes (``ValueError`` or ``RecursionError`` when it is not JSON)."""
    if orjson is not None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass  # what orjson does not read (see ``dumps``) may still be JSON: the standard library decides
    return json.loads(bytes(data))


def dumps_text(tree) -> str:
    """A tree as JSON text, to travel inside a header as a string: the same text for the same
    tree on either side of the wire (``dumps``; ASCII where orjson declines)."""
    return dumps(tree).decode()


def loads_text(text) -> object:
    """A tree from ``dumps_text``'s text (``WireError`` when it is not JSON text)."""
    if not isinstance(text, str):
        raise WireError("a value that is not JSON text")
    try:
        return loads(text.encode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError, TypeError):
        raise WireError("a value that is not JSON text") from None


def digest(tree, buffers: list) -> bytes:
    """A digest of a value as it came over the wire (its tree and the buffers it refers to), to
    key what the grader worked out from it once."""
    return _digest(dumps(tree), buffers)


def digest_framed(parts: list) -> bytes:
    """A digest of a message as ``frame`` made it (every part, in order)."""
    hasher = hashlib.blake2b(digest_size=16)
    for part in parts:
        hasher.update(part)
    return hasher.digest()


def digest_text(text: str, buffers: list) -> bytes:
    """``digest`` of a value whose tree came as JSON text (``dumps_text``)."""
    return _digest(text.encode("utf-8", "surrogatepass"), buffers)


def _digest(dumped: bytes, buffers: list) -> bytes:
    hasher = hashlib.blake2b(dumped, digest_size=16)
    for data in buffers:
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.digest()


def header_values(data, start: int = 0) -> int:
    """At least how many values the JSON header ``data[start:]`` holds (each follows a bracket,
    brace, comma or colon, or is the first), read off its bytes without parsing it."""
    return 1 + sum(data.count(mark, start) for mark in (b",", b"[", b"{", b":"))


def _oversize(data, start: int, lengths) -> str | None:
    """Why a message of the header ``data[start:]`` and these buffer lengths is too large to
    read (None: it is not)."""
    values = header_values(data, start)
    if values > MAX_HEADER_VALUES:
        return f"a value of more than {MAX_HEADER_VALUES} numbers, texts and lists in all (an array may hold more)"
    if sum(lengths) + VALUE_BYTES * values > MAX_MESSAGE_BYTES:
        return f"a message larger than {MAX_MESSAGE_BYTES >> 20} MiB"
    return None


def frame(header: dict, buffers: list = ()) -> list:
    """One message as the byte strings that go on the wire, in order (``WireError`` when the
    receiver would refuse it as too large)."""
    body = dumps(header)
    # A C-contiguous array is a byte string to join and send as it is (a memoryview each cost as
    # much as the rest of the framing).
    payloads = [
        array
        if type(array) is np.ndarray and array.flags.c_contiguous
        else as_bytes(array)
        if isinstance(array, np.ndarray)
        else memoryview(array)
        for array in buffers
    ]
    # Prefix, then every buffer's length, then the header, then the buffers back to back: the
    # receiver reads a message in three reads, whatever the number of buffers.
    sizes = [data.nbytes for data in payloads]
    too_large = _oversize(body, 0, sizes)
    if too_large is not None:
        raise WireError(too_large)
    return [_PREFIX.pack(len(body), len(payloads)), struct.pack(f"!{len(payloads)}Q", *sizes), body, *payloads]


def send(sock: socket.socket, header: dict, buffers: list = ()) -> None:
    """Send one message: a JSON-able ``header`` and the array payloads it refers to
    (``PeerClosed`` when the other end is gone or has stopped reading)."""
    send_framed(sock, frame(header, buffers))


def send_framed(sock: socket.socket, parts: list, deadline: float | None = None) -> None:
    """Send a message made by ``frame`` (which may be kept and sent many times). Raises
    ``PeerClosed`` when the other end is gone or has stopped reading; with a ``deadline``
    (``time.monotonic()``), ``TimeoutError`` when it does not read the message by then."""
    try:
        if sum(len(part) if type(part) is bytes else memoryview(part).nbytes for part in parts) <= _JOIN_BYTES:
            parts = [b"".join(parts)]  # one system call for the small messages that are most of them
        for part in parts:
            if deadline is None:
                sock.sendall(part)
            else:
                _send_by(sock, memoryview(part).cast("B"), deadline)
    except (BrokenPipeError, ConnectionResetError):
        raise PeerClosed from None


def _send_by(sock: socket.socket, data: memoryview, deadline: float) -> None:
    """Send ``data`` whole, waiting (select) while the peer's buffer is full, until ``deadline``."""
    sent = 0
    while sent < len(data):
        try:
            sent += sock.send(data[sent:], socket.MSG_DONTWAIT)
        except BlockingIOError:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError from None
            select.select([], [sock], [], remaining)  # until there is room, or to ask the deadline again


def receive(
    sock: socket.socket, deadline: float | None = None, admit: Callable[[dict, int], None] | None = None
) -> tuple[dict, list]:
    """Receive one message, waiting until ``deadline`` (``time.monotonic()``) at most.

    A deadline is read as ``deadline - time.monotonic()``: the seconds left to wait before it is
    asked again (``sandbox.deadlines.Deadline`` answers so in CPU time). Raises ``TimeoutError``
    past the deadline, ``PeerClosed`` on end of file and ``WireError`` for a message that breaks
    the format or its size limits. ``admit`` is called with the header and the message's size in
    bytes (header and buffers) before the buffers are read: it may raise to refuse them, which are
    then left unread (the channel cannot be used again).
    """
    header_length, n_buffers = _PREFIX.unpack(_read_exact(sock, _PREFIX.size, deadline))
    if header_length > MAX_HEADER_BYTES or n_buffers > MAX_BUFFERS:
        raise WireError("a message larger than the limits")
    lengths_and_header = _read_exact(sock, 8 * n_buffers + header_length, deadline)
    lengths = struct.unpack_from(f"!{n_buffers}Q", lengths_and_header)
    total = sum(lengths)
    if total > MAX_MESSAGE_BYTES:
        raise WireError(f"a message larger than {MAX_MESSAGE_BYTES >> 20} MiB")
    if n_buffers and max(lengths) > MAX_ARRAY_BYTES:
        raise WireError(f"an array larger than {MAX_ARRAY_BYTES >> 20} MiB")
    body = memoryview(lengths_and_header)[8 * n_buffers :]
    too_large = _oversize(lengths_and_header, 8 * n_buffers, lengths)
    if too_large is not None:
        raise WireError(too_large)  # before the header is parsed: parsing is what would swell
    try:
        header = loads(body)
    except (ValueError, RecursionError, TypeError):
        raise WireError("a message whose header is not JSON") from None
    if not isinstance(header, dict):
        raise WireError("a message whose header is not an object")
    if admit is not None:
        admit(header, header_length + total)
    data = memoryview(_read_exact(sock, total, deadline)) if total else memoryview(b"")
    buffers, start = [], 0
    for length in lengths:
        buffers.append(data[start : start + length])
        start += length
    return header, buffers


def _read_exact(sock: socket.socket, n: int, deadline: float | None) -> bytearray:
    data = bytearray(n)
    view, received = memoryview(data), 0
    while received < n:
        try:
            # What has arrived is read at once; select() is only for waiting, under the deadline.
            count = sock.recv_into(view[received:], n - received, socket.MSG_DONTWAIT if deadline is not None else 0)
        except BlockingIOError:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError from None
            select.select([sock], [], [], remaining)  # until data comes, or to ask the deadline again
            continue
        except (ConnectionResetError, BrokenPipeError):
            raise PeerClosed from None
        if count == 0:
            raise PeerClosed
        received += count
    return data
