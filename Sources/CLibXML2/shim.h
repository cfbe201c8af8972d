#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H

// Debian's libxml2 is built with ICU support and its headers then include the
// system ICU headers, whose types clash with the ICU that Foundation ships
// ("'UErrorCode' has different definitions in different modules"). SafeXML
// never uses libxml2's ICU-specific API, so hide it before anything else is
// included.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>
#include <libxml/tree.h>

#endif
