// glibc's allocator interface (malloc_trim), which the Glibc module does not export.
#include <malloc.h>
