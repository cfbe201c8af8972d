// Declarations only: see include/CFuzzerDriver.h. (A C target needs one source file.)
#include "CFuzzerDriver.h"
