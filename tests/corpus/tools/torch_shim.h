// torch_shim.h - the few PyTorch C++ declarations that corpus .py kernels use,
// so that their CUDA_SRC can be compiled with plain nvcc (no libtorch here).
// Only for compile checking: nothing here is functional.
#pragma once

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace torch {
/// Stand-in for at::Tensor: a data pointer and an element count.
class Tensor {
public:
  template <typename T> T *data_ptr() const { return static_cast<T *>(Ptr); }
  void *data_ptr() const { return Ptr; }
  int64_t numel() const { return Numel; }
  int64_t size(int64_t) const { return Numel; }
  int64_t dim() const { return 1; }
  bool is_contiguous() const { return true; }

private:
  void *Ptr = nullptr;
  int64_t Numel = 0;
};
} // namespace torch

namespace at {
using torch::Tensor;
namespace cuda {
/// The real function returns a CUDAStream convertible to cudaStream_t.
inline cudaStream_t getCurrentCUDAStream() { return nullptr; }
} // namespace cuda
} // namespace at

#define TORCH_CHECK(cond, ...)                                                 \
  do {                                                                         \
    if (!(cond)) {                                                             \
    }                                                                          \
  } while (0)
