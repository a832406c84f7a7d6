"""Writing files so that an interruption never leaves a partial one."""
from __future__ import annotations

import os
import tempfile
from typing import IO, Callable


def atomic_write(path: str, write: Callable[[IO[bytes]], None]) -> None:
    """Write through ``write(file)`` into a temporary file beside ``path``,
    then rename it over ``path``; on any error or Ctrl-C the temporary file is
    removed and ``path`` is untouched."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".balout-", suffix=".tmp", dir=folder)
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
