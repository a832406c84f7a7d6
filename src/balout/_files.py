"""Writing files so that an interruption never leaves a partial one, and
reading back the .npz files balout writes."""
from __future__ import annotations

import os
import tempfile
import zipfile
from typing import IO, Any, Callable, Dict, Type, TypeVar, Union

import numpy as np

from .errors import BaloutError, OptionError

#: where balout reads or writes a file: a str or an os.PathLike (pathlib.Path)
PathLike = Union[str, "os.PathLike[str]"]
_T = TypeVar("_T")


def file_path(path, what: str = "the file", error: Type[BaloutError] = OptionError) -> str:
    """``path`` as a str, if it is one (a str or an os.PathLike naming a
    str). An int would reach open() as a file descriptor, and its file (the
    terminal, say) be closed after the call."""
    p = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if not isinstance(p, str) or not p:
        shown = repr(path) if isinstance(path, (str, bytes, int, float, type(None))) else f"a {type(path).__name__}"
        raise error(f"{what} must be given as a path (a str or os.PathLike), not {shown}")
    return p


def atomic_write(path: PathLike, write: Callable[[IO[bytes]], Any]) -> None:
    """Write through ``write(file)`` into a temporary file beside ``path``,
    then rename it over ``path``; on any error or Ctrl-C the temporary file is
    removed and ``path`` is untouched."""
    path = file_path(path)
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".balout-", suffix=".tmp", dir=folder)
    except OSError as e:  # name the file asked for, not the temporary one
        raise type(e)(e.errno, e.strerror, path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_npz(path: PathLike, what: str, check: Callable[[Dict[str, np.ndarray]], _T]) -> _T:
    """``check`` of every array of the .npz archive at ``path``; an
    :class:`OptionError` saying that the file is not ``what``, and why, if it
    cannot be read as one (missing, empty, truncated, a single .npy array,
    pickled objects) or if ``check`` finds a fault (its ValueError says which)."""
    path = file_path(path)
    try:
        with open(path, "rb") as f:
            z = np.load(f, allow_pickle=False)
            if not isinstance(z, np.lib.npyio.NpzFile):
                raise ValueError("a single array (.npy), not an .npz archive")
            with z:
                arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as e:
        raise OptionError(f"{path} is not {what} ({type(e).__name__}: {e})") from None
    try:
        return check(arrays)
    except ValueError as e:
        raise OptionError(f"{path} is not {what} ({e})") from None
