/* Information-set MCTS (see ismcts.h). */
