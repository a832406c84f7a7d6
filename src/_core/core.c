/* One translation unit for the whole native core, so that the compiler can
   inline the engine into the simulation and search loops (sim.c and
   search.c call the engine's static functions directly). */
#include "engine.c"
#include "sim.c"
#include "search.c"
#include "ismcts.c"
#include "tensor.c"
