// pkbcheck shim: Clang 19 __clang_cuda_intrinsics.h includes this toolkit
// header; its __match_*_sync overloads are declared in cuda_runtime.h.
#pragma once
