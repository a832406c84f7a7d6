"""Build the reference C programs of this folder as shared libraries and call
them through ctypes. Used by the benchmarks (the yardsticks they time the
extension against) and by tests/test_search.py (the plain solver checks the
double-dummy solver's values on whole deals).

Nothing here is part of the package: the programs share no code with it.
"""
from __future__ import annotations

import ctypes
import os
import platform
import shutil
import subprocess
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))


def compiler() -> list:
    """The C compiler: $CC, Python's own, or the first of cc, gcc, clang on
    the PATH (the project's build needs one already)."""
    for cc in (os.environ.get("CC"), sysconfig.get_config_var("CC"), "cc", "gcc", "clang"):
        if cc and shutil.which(cc.split()[0]):
            return cc.split()
    raise RuntimeError("no C compiler found ($CC, Python's CC, cc, gcc or clang); balout's own build needs one too")


def build(name: str, out_dir: str) -> ctypes.CDLL:
    """NAME.c compiled with the extension's optimisation flags into out_dir,
    and loaded. Raises RuntimeError, with the compiler's message, if it
    cannot be built."""
    src = os.path.join(HERE, name + ".c")
    flags = ["-O3", "-shared", "-fPIC"]
    if platform.machine().lower() in ("x86_64", "amd64"):
        flags.append("-mpopcnt")
    lib = os.path.join(out_dir, name + ".so")
    command = [*compiler(), *flags, src, "-o", lib]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr.strip()}")
    try:
        return ctypes.CDLL(lib)
    except OSError as exc:
        raise RuntimeError(f"cannot load {lib}: {exc}") from exc


class PlainSolver:
    """plain_dd.c: a textbook alpha-beta with a transposition table, the
    yardstick of issue #5."""

    def __init__(self, lib: ctypes.CDLL, table_bits: int = 18):
        lib.plain_dd_new.restype = ctypes.c_void_p
        lib.plain_dd_new.argtypes = (ctypes.c_int,)
        lib.plain_dd_free.argtypes = (ctypes.c_void_p,)
        lib.plain_dd_value.argtypes = (ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32), ctypes.c_int,
                                       ctypes.c_int, ctypes.POINTER(ctypes.c_uint64))
        self._lib = lib
        self._solver = lib.plain_dd_new(table_bits)
        if not self._solver:
            raise MemoryError("plain_dd_new: cannot allocate the table")

    def rest(self, state) -> tuple:
        """(card points the team to act takes from here to the end, nodes),
        from a trick start of a state in play, every card visible."""
        if state.trick_ids:
            raise ValueError("the plain solver starts at a trick start")
        nodes = ctypes.c_uint64()
        hands = (ctypes.c_uint32 * 4)(*state.hand_masks)
        v = self._lib.plain_dd_value(self._solver, hands, state.to_act, state.trump_id, ctypes.byref(nodes))
        return v, nodes.value

    def close(self) -> None:
        if self._solver:
            self._lib.plain_dd_free(self._solver)
            self._solver = None
