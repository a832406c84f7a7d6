/* One translation unit for the whole native core, so that the compiler can
   inline the engine into the simulation loops. */
#include "engine.c"
#include "sim.c"
