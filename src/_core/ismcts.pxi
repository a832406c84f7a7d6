# Information-set MCTS wrappers (included by _core.pyx).

cdef extern from "ismcts.h" nogil:
    ctypedef struct IsmctsNode:
        uint32_t visits

    ctypedef struct Ismcts:
        IsmctsNode *nodes
        int32_t n
        int32_t cap
        int32_t max_nodes

    ctypedef struct IsmctsParams:
        int64_t iterations
        double time_budget
        double exploration
        int policy
        uint64_t seed
        double bid_weight

    ctypedef struct IsmctsResult:
        int action
        int64_t iterations
        int32_t nodes
        double scale
        uint64_t legal
        uint32_t visits[50]
        double value[50]

    enum:
        ISMCTS_OK
        ISMCTS_ENOMEM
        ISMCTS_EPHASE
        ISMCTS_EWORLD
        ISMCTS_EARG

    int ismcts_init(Ismcts *t, int32_t max_nodes)
    void ismcts_free(Ismcts *t)
    int ismcts_search(Ismcts *t, const Hand *h, const IsmctsParams *p, IsmctsResult *out)
    double ismcts_scale(const Hand *h)


_ISMCTS_PLAYOUTS = {"random": 0, "greedy": 1}   # POLICY_RANDOM, POLICY_GREEDY (sim.h)
_ISMCTS_MAX_NODES = (1 << 31) - 1


# argument checks, shared with DoubleDummy.pimc (_core.pyx)
cdef object _arg_int(str name, object value, object lo, object hi):
    import numbers
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return value


cdef object _arg_float(str name, object value, double lo, bint strict):
    import math
    import numbers
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value) or value < lo or (strict and value == lo):
        raise ValueError(f"{name} must be a finite number {'>' if strict else '>='} {lo:g}, got {value!r}")
    return value


cdef class ISMCTS:
    """Single-observer information-set Monte Carlo tree search (Cowling,
    Powley & Whitehouse 2012) for the play and the declaration decisions,
    from the point of view of the seat to act.

    Each iteration deals the hidden cards uniformly among the deals consistent
    with what the seat to act knows, descends the tree of actions by UCB1 with
    availability counts, expands one untried action, plays out to the end of
    the hand with a native policy and backs up the hand-score difference (own
    team minus the other, for the seat that chose each action) divided by
    ``scale(state)``: 250 in balout and belote; in baloot 44 (Sun) or 25 (Hokm)
    times the multiplier, or the match target under a gahwa.

    iterations: iteration budget (None: only the time budget); time_budget:
    seconds (None: only the iterations); when both are given the search stops
    at the first reached. With an iteration budget only, the search is
    deterministic for a given seed. exploration: the UCB constant. playout:
    'greedy' or 'random'. max_nodes: bound of the tree (48 bytes a node,
    allocated as the tree grows); once reached the tree stops growing.
    bid_weight: below 1, the deals are weighted by the auction instead
    (see mc_evaluate); each iteration then costs a few microseconds more.
    """
    cdef Ismcts t
    cdef IsmctsParams p
    cdef readonly object iterations
    cdef readonly object time_budget
    cdef readonly double exploration
    cdef readonly str playout
    cdef readonly int max_nodes
    cdef readonly double bid_weight
    cdef bint busy

    def __cinit__(self, *args, **kwargs):
        self.t.nodes = NULL
        self.busy = False

    def __init__(self, iterations=10000, time_budget=None, exploration=0.7, playout="greedy",
                 max_nodes=1000000, bid_weight=1.0):
        if iterations is not None:
            iterations = _arg_int("iterations", iterations, 1, (1 << 62))
        if time_budget is not None:
            time_budget = _arg_float("time_budget", time_budget, 0.0, True)
        if iterations is None and time_budget is None:
            raise ValueError("give an iteration budget, a time budget, or both")
        exploration = _arg_float("exploration", exploration, 0.0, False)
        if not isinstance(playout, str) or playout not in _ISMCTS_PLAYOUTS:
            raise ValueError(f"playout must be one of {sorted(_ISMCTS_PLAYOUTS)}, got {playout!r}")
        max_nodes = _arg_int("max_nodes", max_nodes, 64, _ISMCTS_MAX_NODES)
        bid_weight = _arg_float("bid_weight", bid_weight, 0.0, False)
        if bid_weight > 1.0:
            raise ValueError(f"bid_weight must be in 0..1, got {bid_weight!r}")
        if self.busy:
            raise RuntimeError("this ISMCTS is searching in another thread")
        if self.t.nodes != NULL:
            ismcts_free(&self.t)
        if ismcts_init(&self.t, <int32_t>max_nodes) != ISMCTS_OK:
            raise MemoryError("cannot allocate the search tree")
        self.iterations = iterations
        self.time_budget = time_budget
        self.exploration = exploration
        self.playout = playout
        self.max_nodes = max_nodes
        self.bid_weight = bid_weight
        self.p.bid_weight = bid_weight
        self.p.iterations = iterations if iterations is not None else 0
        self.p.time_budget = time_budget if time_budget is not None else 0.0
        self.p.exploration = exploration
        self.p.policy = _ISMCTS_PLAYOUTS[playout]

    def __dealloc__(self):
        ismcts_free(&self.t)

    def __repr__(self):
        return (f"ISMCTS(iterations={self.iterations!r}, time_budget={self.time_budget!r}, "
                f"exploration={self.exploration!r}, playout={self.playout!r}, max_nodes={self.max_nodes!r}, "
                f"bid_weight={self.bid_weight!r})")

    @staticmethod
    def scale(HandState state not None):
        """Points of hand-score difference per unit of reward in this hand."""
        return ismcts_scale(&state.h)

    def search(self, state, seed=0):
        """Search from the seat to act of `state` (play or declare phase).

        Returns {"action": chosen action id (most visited root action),
        "visits": {action: visits}, "value": {action: mean reward in [-1, 1]
        roughly, for the seat to act}, "iterations": iterations run}.
        """
        cdef HandState st
        cdef IsmctsResult res
        cdef IsmctsParams prm
        cdef int rc
        cdef uint64_t legal
        if not isinstance(state, HandState):
            raise TypeError(f"state must be a balout State, not {type(state).__name__}")
        st = <HandState>state
        seed = _arg_int("seed", seed, 0, (1 << 64) - 1)
        _check_play(st)
        if self.t.nodes == NULL:
            raise RuntimeError("ISMCTS was not initialised")
        if self.busy:
            raise RuntimeError("this ISMCTS is searching in another thread; use one per thread")
        prm = self.p
        prm.seed = <uint64_t>seed
        self.busy = True
        try:
            with nogil:
                rc = ismcts_search(&self.t, &st.h, &prm, &res)
        finally:
            self.busy = False
        _raise_if_stopped()
        if rc == ISMCTS_EWORLD:
            from balout.errors import BaloutError
            raise BaloutError("no deal of the hidden cards is consistent with what the seat to act knows")
        if rc == ISMCTS_ENOMEM:
            raise MemoryError("cannot allocate the search tree")
        if rc != ISMCTS_OK:
            from balout.errors import BaloutError
            raise BaloutError(f"cannot search this position (code {rc})")
        legal = res.legal
        visits = {}
        value = {}
        for a in mask_to_list(legal):
            visits[a] = res.visits[a]
            value[a] = res.value[a]
        return {"action": res.action, "visits": visits, "value": value, "iterations": res.iterations}
