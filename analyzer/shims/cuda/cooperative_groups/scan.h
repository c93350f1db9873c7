// pkbcheck shim: forwards to cooperative_groups.h.
#pragma once
#include "../cooperative_groups.h"
