"""The one writer of output files (``jtms export -o``, ``--out``, ``--plot``): never clobbers
what it should not.

What a path names decides how it is written:

- **a new path, or a regular file**: atomically. The output goes to a hidden temporary file
  next to it, is flushed to disk, and is renamed over the path only when complete, so a failed
  or interrupted command leaves the old file (or nothing) behind, never half a file. A
  replaced file keeps its permission bits.
- **a symbolic link**: the file it points to is written (atomically, as above, when that is a
  regular file or does not exist yet); the link itself stays a link.
- **anything else** (``-`` for standard output, a FIFO, a character or block device such as
  ``/dev/null`` or ``/dev/full``, a regular file with several hard links): written through,
  in place. Such a path is never replaced by a new file. A path under ``/dev/`` or
  ``/proc/`` (``/dev/stdout``, ``/dev/fd/3``) is appended to even when it leads to a regular
  file: ``jtms fuzz --out /dev/stdout > report.txt`` keeps the report that went there.
- **a directory, a symbolic-link loop, a missing folder**: refused before any work.

Every failure to write (a full disk, a read-only file system, a device that refuses the
bytes) is one :class:`~theory.model.errors.InputError` line naming the option and the path (the CLI
exits 2); the temporary file is removed and cleaning up never raises a second error.

```python
with open_output("m.jsonl", "--output") as out:      # doctest: +SKIP
    out.write("...")
write_output("graph.json", "--out", text)             # doctest: +SKIP
```
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import IO, Any

from theory.model.errors import InputError, shorten

STDOUT = "-"


def _fail(option: str, path: str, problem: str, what: str = "the output") -> InputError:
    return InputError(f"{option} {shorten(path)!r}: cannot write {what}: {problem}")


def _problem(error: OSError) -> str:
    if error.errno == errno.ENOSPC:
        return "no space left on the device"
    if error.errno == errno.EROFS:
        return "read-only file system"
    if error.errno == errno.ELOOP:
        return "a symbolic link loop"
    if error.errno == errno.ENAMETOOLONG:
        return "file name too long"
    return error.strerror or type(error).__name__


def plan(
    path: str, option: str, what: str = "the output", keep: Sequence[str] = ()
) -> tuple[str, bool]:
    """Where to write ``path`` and whether atomically: (the file to write, atomic?).

    Refuses (InputError) a directory (or a name ending in a slash), a link loop, a missing
    folder, an unwritable place, and any of the files in ``keep``: those the command reads
    (``jtms export --db m.db -o m.db`` would replace the memory with its own export).
    """
    if path == STDOUT:
        return path, False
    if not path or "\x00" in path:
        raise _fail(option, path, "not a file name", what)
    try:
        info = os.stat(path)  # follows symbolic links
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise _fail(option, path, _problem(error), what) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise _fail(option, path, "is a directory", what)
    if path.endswith(("/", os.sep)):  # "out/" names a folder, never a file "out"
        raise _fail(option, path, "names a directory (it ends with a slash)", what)
    for kept in keep:
        if _same_file(path, kept):
            raise _fail(option, path, f"is {shorten(kept)!r}, which this command reads", what)
    if info is not None and _a_stream(path):  # /dev/stdout > report.txt: the shell's file
        if not os.access(path, os.W_OK):
            raise _fail(option, path, "not writable", what)
        return path, False
    if info is not None and not (stat.S_ISREG(info.st_mode) and info.st_nlink == 1):
        if not os.access(path, os.W_OK):
            raise _fail(option, path, "not writable", what)
        return path, False  # a FIFO, a device, a multiply linked file: write through it
    target = os.path.realpath(path)  # a link's target; the link stays
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise _fail(option, path, f"no such directory {shorten(folder)!r}", what)
    if not os.access(folder, os.W_OK) or (info is not None and not os.access(target, os.W_OK)):
        raise _fail(option, path, "not writable", what)
    return target, True


def _a_stream(path: str) -> bool:
    """Whether ``path`` names one of this process's streams or a device (``/dev/stdout``,
    ``/dev/fd/3``, ``/proc/self/fd/1``, ``/dev/null``): written through and after what is
    there, never replaced, even when it leads to a regular file (a shell's redirection)."""
    return os.path.abspath(path).startswith(("/dev/", "/proc/"))


def _same_file(path: str, other: str) -> bool:
    """Whether writing ``path`` would write the file ``other`` (the same file through a
    link or another spelling, or the same path where neither exists yet)."""
    try:
        return os.path.samefile(path, other)
    except OSError:  # one of them does not exist (yet)
        return os.path.realpath(path) == os.path.realpath(other)


def _new_file_mode() -> int:
    """The permission bits ``open()`` gives a new file: 0o666 less the umask (a temporary
    file is made 0o600; the output it becomes is an ordinary new file)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def check_output(
    path: str, option: str, what: str = "the output", keep: Sequence[str] = ()
) -> None:
    """Refuse, before any work, an output path that :func:`open_output` would refuse."""
    plan(path, option, what, keep)


@contextmanager
def open_output(
    path: str,
    option: str,
    *,
    binary: bool = False,
    what: str = "the output",
    keep: Sequence[str] = (),
) -> Iterator[IO[Any]]:
    """A file to write the output of ``option`` to (see the module docstring); ``what`` names
    the output in messages ("cannot write the export: no space left on the device");
    ``keep``: files the output must not replace (:func:`plan`)."""
    target, atomic = plan(path, option, what, keep)
    if target == STDOUT:
        stream: IO[Any] = sys.stdout.buffer if binary else sys.stdout
        yield stream
        try:
            stream.flush()
        except OSError as error:
            raise _fail(option, path, _problem(error), what) from None
        return
    if not atomic:
        opening = "a" if _a_stream(target) else "w"  # after what the command printed there
        try:
            handle: IO[Any] = (
                open(target, opening + "b") if binary else open(target, opening, encoding="utf-8")
            )
        except OSError as error:
            raise _fail(option, path, _problem(error), what) from None
        try:
            yield handle
            handle.close()
        except OSError as error:
            _close_quietly(handle)
            raise _fail(option, path, _problem(error), what) from None
        except BaseException:
            _close_quietly(handle)
            raise
        return
    folder, name = os.path.split(target)
    try:
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{name[:100]}.", suffix=".partial", dir=folder or "."
        )
    except OSError as error:
        raise _fail(option, path, _problem(error), what) from None
    try:
        handle = (
            os.fdopen(descriptor, "wb") if binary else os.fdopen(descriptor, "w", encoding="utf-8")
        )
    except BaseException:
        with suppress(OSError):
            os.close(descriptor)
        _remove_quietly(temporary)
        raise
    try:
        yield handle
        handle.flush()
        os.fsync(handle.fileno())
        handle.close()
        try:  # a replaced file keeps its bits; a new one gets what open() would give it
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except OSError:
            mode = _new_file_mode()
        with suppress(OSError):
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except OSError as error:
        _close_quietly(handle)
        _remove_quietly(temporary)
        raise _fail(option, path, _problem(error), what) from None
    except BaseException:
        _close_quietly(handle)
        _remove_quietly(temporary)
        raise


def write_output(path: str, option: str, data: str | bytes, what: str = "the output") -> None:
    """Write ``data`` (text or bytes) to ``path`` with :func:`open_output`."""
    with open_output(path, option, binary=isinstance(data, bytes), what=what) as out:
        out.write(data)


# the figure formats of ``--plot`` (matplotlib writes each from its name, headless on Agg)
FIGURE_FORMATS = ("png", "svg", "pdf")


def figure_format(path: str, option: str) -> str:
    """The format of the figure file ``path``, read from its extension (any case): one of
    :data:`FIGURE_FORMATS`. Any other extension, or none (``-`` included), is refused with
    one line before any work: the bytes would not be what the name says."""
    extension = os.path.splitext(path)[1][1:].lower()  # ".png" alone: a name, no extension
    if extension not in FIGURE_FORMATS:
        got = f"'.{extension}'" if extension else "no extension"
        raise InputError(
            f"{option} {shorten(path)!r}: a figure is written as "
            + ", ".join(f".{f}" for f in FIGURE_FORMATS)
            + f" (the format follows the extension), got {got}"
        )
    return extension


def _close_quietly(handle: IO[Any]) -> None:
    """Close after a failure: a second error (the flush of a full disk) is not raised."""
    with suppress(OSError, ValueError):
        handle.close()


def _remove_quietly(path: str) -> None:
    with suppress(OSError):
        os.unlink(path)


__all__ = [
    "FIGURE_FORMATS",
    "STDOUT",
    "check_output",
    "figure_format",
    "open_output",
    "plan",
    "write_output",
]
