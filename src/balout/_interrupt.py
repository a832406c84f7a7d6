"""Ctrl-C during runs that keep what they finished (simulations, the arena)."""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


@contextmanager
def ctrl_c_sets(stop: threading.Event, interrupt: bool = False):
    """Within the block Ctrl-C sets `stop` rather than raising
    KeyboardInterrupt wherever the main thread is: one raised inside the
    thread pool's locks can leave them broken ('release unlocked lock').
    With ``interrupt``, for work in the main thread alone, it also raises
    KeyboardInterrupt there, to stop at once; `stop` still ends the run
    should that exception be lost (Python ignores one raised inside a
    finalizer that the garbage collector happens to run). Only in the main
    thread, over Python's own handler (another handler, such as a
    notebook's, is left in place)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return

    def on_ctrl_c(signum, frame) -> None:
        stop.set()
        if interrupt:
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
