# The seat's view as float vectors (tensor.h), included by _core.pyx.

import numpy as np

TENSOR_LAYOUT = {"hand": IT_HAND, "offer": IT_OFFER, "receiver": IT_RECEIVER, "dealer": IT_DEALER,
                 "to_act": IT_TO_ACT, "phase": IT_PHASE, "decisions": IT_DECISIONS, "plays": IT_PLAYS,
                 "shown": IT_SHOWN, "belote": IT_BELOTE, "match": IT_MATCH,
                 "decision_slots": DECISION_SLOTS, "num_decisions": NUM_DECISIONS,
                 "size": INFO_TENSOR_SIZE, "observation_size": OBSERVATION_TENSOR_SIZE}


def shown_to(HandState state not None, int seat):
    """What the rules have shown `seat` of the other hands: (a bit per seat
    whose declarations it sees, the announced belote's seat if it sees it or
    -1)."""
    cdef int decl_seats, belote
    _check_seat(seat)
    view_shown(&state.h, seat, &decl_seats, &belote)
    return decl_seats, belote


cdef float[::1] _tensor_out(object out, Py_ssize_t size, str what):
    if out is None:
        return np.zeros(size, np.float32)
    from balout.errors import OptionError
    if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (size,) \
            or not out.flags.c_contiguous or not out.flags.writeable:
        desc = (f"a {out.dtype} array of shape {out.shape}" if isinstance(out, np.ndarray)
                else type(out).__name__)
        raise OptionError(f"out must be a writable, contiguous float32 array of shape ({size},) for the "
                          f"{what}, not {desc}")
    return out


def information_state_tensor_of(HandState state not None, int seat, out=None):
    cdef float[::1] buf
    cdef int status
    _check_seat(seat)
    buf = _tensor_out(out, INFO_TENSOR_SIZE, "information state tensor")
    with nogil:
        status = info_tensor(&state.h, seat, &buf[0])
    if status != 0:
        from balout.errors import BaloutError
        raise BaloutError(f"the hand's decisions do not fit the tensor's {DECISION_SLOTS} slots")
    return buf.base if out is None else out


def observation_tensor_of(HandState state not None, int seat, out=None):
    cdef float[::1] buf
    _check_seat(seat)
    buf = _tensor_out(out, OBSERVATION_TENSOR_SIZE, "observation tensor")
    with nogil:
        observation_tensor(&state.h, seat, &buf[0])
    return buf.base if out is None else out
