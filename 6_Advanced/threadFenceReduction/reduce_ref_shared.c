/* reduce_ref_shared.c: the CPU reference, tolerance and checks of the
 * reduction samples live in 0_Simple/reduction/reduce_ref.c (one source of
 * truth); this wrapper compiles them into this sample. */
#include "../../0_Simple/reduction/reduce_ref.c"
