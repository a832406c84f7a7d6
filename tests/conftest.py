import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import signal  # noqa: E402


def pytest_configure(config):
    """Run as in a terminal, where Python handles Ctrl-C. A shell starts a
    background job (``pytest &`` in a script) with SIGINT ignored, and Python
    then leaves it ignored: the tests that press Ctrl-C
    (``_thread.interrupt_main``) would wait forever for an interrupt that
    never comes, and the CLI children they signal would ignore it too."""
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL):
        signal.signal(signal.SIGINT, signal.default_int_handler)
