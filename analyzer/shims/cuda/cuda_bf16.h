// pkbcheck shim: 16-bit float types, see pkb_half_types.h.
#pragma once
#include "pkb_half_types.h"
