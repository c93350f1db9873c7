// pkbcheck shim: PyTorch / pybind11 stand-in, see pkb_torch_shim.h.
#pragma once
#include "../pkb_torch_shim.h"
