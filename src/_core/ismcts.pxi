# Information-set MCTS wrappers (included by _core.pyx).
