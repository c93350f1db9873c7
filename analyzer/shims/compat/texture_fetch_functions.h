// pkbcheck shim: CUDA 13 removed texture_fetch_functions.h, which Clang 19's
// __clang_cuda_runtime_wrapper.h still includes. Intentionally empty.
#pragma once
