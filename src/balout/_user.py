"""The user's own objects, named ``FILE.py:NAME`` or ``module:NAME``: the
experiments of ``balout analyze`` and the bots of the arena."""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Dict, Tuple, Type

_FILES: Dict[Tuple[str, int, int], object] = {}   # (path, mtime, size) -> module, loaded once


def is_spec(name) -> bool:
    return isinstance(name, str) and ":" in name


def spec_attr(spec: str) -> str:
    """The NAME of ``FILE.py:NAME``."""
    return spec.rpartition(":")[2]


def load(spec: str, error: Type[Exception], what: str):
    """The object ``spec`` names; ``error`` saying what went wrong when the
    file or module cannot be loaded or has no such name (``what`` is what the
    name should be, for the message)."""
    where, _, attr = spec.rpartition(":")
    try:
        module = _module(where, error)
    except error:
        raise
    except Exception as e:  # a user's file: report, don't crash
        raise error(f"cannot load {where!r}: {type(e).__name__}: {e}") from e
    if not attr.isidentifier() or not hasattr(module, attr):
        raise error(f"{where!r} has no {what} named {attr!r}")
    return getattr(module, attr)


def _module(where: str, error: Type[Exception]):
    if not (where.endswith(".py") or os.sep in where):
        return importlib.import_module(where)
    if not os.path.isfile(where):
        raise error(f"no such file {where!r}")
    st = os.stat(where)
    key = (os.path.abspath(where), st.st_mtime_ns, st.st_size)
    if key not in _FILES:
        name = f"balout_user_{len(_FILES)}"
        mod_spec = importlib.util.spec_from_file_location(name, where)
        if mod_spec is None or mod_spec.loader is None:
            raise error(f"cannot load {where!r} as a Python module")
        module = importlib.util.module_from_spec(mod_spec)
        sys.modules[name] = module   # so that what it defines pickles to worker processes
        try:
            mod_spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        _FILES[key] = module
    return _FILES[key]
