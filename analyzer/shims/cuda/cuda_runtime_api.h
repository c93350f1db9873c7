// pkbcheck shim: forwards to the shim cuda_runtime.h.
#pragma once
#include "cuda_runtime.h"
