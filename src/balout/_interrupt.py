"""Ctrl-C during runs that keep what they finished (simulations, the arena)."""
from __future__ import annotations

import signal
import threading
from contextlib import contextmanager


@contextmanager
def ctrl_c_sets(stop: threading.Event):
    """Within the block Ctrl-C sets `stop` rather than raising
    KeyboardInterrupt wherever the main thread is: one raised inside the
    thread pool's locks can leave them broken ('release unlocked lock').
    Only in the main thread, over Python's own handler (another handler,
    such as a notebook's, is left in place)."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
