"""Provides the one way the app reads a person's file (a game record, settings, the adaptive level, drills, the stats
cache, lesson progress, the reference cache, a model's card and analysis sidecar): `read_json`.

In order: a regular file (a folder, a FIFO, a device is refused without being opened for reading, so nothing hangs;
a symbolic link too where `links` is False), at most `max_bytes`, UTF-8 text, strict JSON (finite numbers only: no
NaN, no Infinity, no 1e999; no control characters in any string, so no terminal escape code reaches a screen), then
the caller's `typed` makes the value from it. Anything else is `FileError` (or the caller's subclass): one line that
names the file, what is wrong and what to do (a FileError `typed` raises itself is passed on as it is). A file the
app would write over (`keep`) is first kept aside as `<name>.damaged-<time><suffix>` beside it: never overwritten,
never deleted.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from datetime import datetime
from pathlib import Path

from ..i18n import _, number


class FileError(ValueError):
    """A person's file that cannot be used: the message is one line naming the file, what is wrong and what to do;
    `kept` is where the file was put aside (None: it was left where it is); `reason` what is wrong, alone."""

    def __init__(self, message: str, kept: Path | None = None):
        super().__init__(message)
        self.kept, self.reason = kept, message


def aside(path: Path) -> Path:
    """Where a damaged file is kept when a good one replaces it: `<name>.damaged-<time><suffix>` beside it."""
    path = Path(path)
    return path.with_name(f"{path.stem}.damaged-{datetime.now():%Y%m%d-%H%M%S-%f}{path.suffix}")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(_("it holds the number {text}, which is not finite").format(text=text))
    return value


def _no_constant(name: str):
    raise ValueError(_("it holds {name}, which is not a number JSON allows").format(name=name))


_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters (a terminal escape code starts with one) and the marks that reverse the text shown."""


def loads(text: str):
    """Strict JSON: finite numbers only, and no control character in any string (or key)."""
    data = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    todo = [data]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            if _CONTROL.search(item):
                raise ValueError(_("a text in it holds control characters ({sample})").format(sample=repr(item[:24])))
        elif isinstance(item, dict):
            todo.extend(item)
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return data


def _text(path: Path, max_bytes: int, links: bool) -> str:
    """The file's text, after the checks of a regular file and its size (ValueError says what it is instead)."""
    if not links and stat.S_ISLNK(os.lstat(path).st_mode):
        raise ValueError(_("is a symbolic link, which is not followed"))
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(_("is not a regular file but a folder") if stat.S_ISDIR(info.st_mode) else
                         _("is not a regular file but a FIFO") if stat.S_ISFIFO(info.st_mode) else
                         _("is not a regular file but a device"))
    if info.st_size > max_bytes:
        raise ValueError(_("is too large (over {n} bytes)").format(n=number(max_bytes)))
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) * (not links))
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced between the two looks
            raise ValueError(_("is not a regular file"))
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(_("is too large (over {n} bytes)").format(n=number(max_bytes)))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(_("is not UTF-8 text")) from None


_MISSING = object()


def read_json(path, what: str, typed=None, *, max_bytes: int, then: str, keep: bool = True, links: bool = True,
              missing=_MISSING, decode=loads, error: type[FileError] = FileError):
    """`typed(data)` of the file at `path` read as the module's docstring says; `what` names the kind of file
    ("the settings file"), `then` says what happens or what to do ("the defaults are used"). A missing file is
    `missing` where given, else an `error`; `decode` turns the text into data (default: strict JSON)."""
    path = Path(path)
    try:
        text = _text(path, max_bytes, links)
    except FileNotFoundError:
        if missing is not _MISSING:
            return missing
        raise error(_("cannot read {what} {path}: there is no such file; check its name").format(
            what=what, path=path)) from None
    except OSError as err:
        reason = _("cannot be read ({error})").format(error=err.strerror or err)
    except ValueError as err:
        reason = str(err)
    else:
        try:
            return (typed or (lambda data: data))(decode(text))
        except FileError:  # `typed`'s own refusal (a newer game record): its message is already whole
            raise
        except json.JSONDecodeError as err:
            reason = _("is damaged: invalid JSON at line {line} column {column} ({error})").format(
                line=number(err.lineno), column=number(err.colno), error=err.msg)
        except RecursionError:
            reason = _("is damaged (its JSON is nested too deeply)")
        except KeyError as err:
            reason = _("is damaged (it has no {key})").format(key=err)
        except (ValueError, TypeError, AttributeError, IndexError) as err:
            reason = _("is damaged ({error})").format(error=err)
    refused = refuse(path, _("{what} {path} {reason}").format(what=what, path=path, reason=reason), then, keep, error)
    refused.reason = reason
    raise refused


def refuse(path: Path, problem: str, then: str, keep: bool = True,
           error: type[FileError] = FileError) -> FileError:
    """The error for a file that cannot be used (`problem` names it and says what is wrong, `then` what happens
    now), once it is kept aside where `keep` (renamed, never deleted)."""
    if not keep:
        return error(_("{problem}; {then}").format(problem=problem, then=then))
    kept = aside(path)
    try:
        path.rename(kept)
    except OSError as err:
        return error(_("{problem}; {then} (it could not be kept aside: {error}; it is left as it is)").format(
            problem=problem, then=then, error=err.strerror or err))
    return error(_("{problem}; it was kept as {name}, {then}").format(problem=problem, name=kept.name, then=then),
                 kept)
