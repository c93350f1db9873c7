// pkbcheck shim: 8-bit float storage types of cuda_fp8.h (1 byte each).
#pragma once
#include "pkb_half_types.h"
#define PKB_FP8_TYPE(T)                                                        \
  struct __attribute__((aligned(1))) T {                                       \
    unsigned char __x;                                                         \
    T() = default;                                                             \
    __host__ __device__ explicit T(float);                                     \
    __host__ __device__ explicit T(__half);                                    \
    __host__ __device__ explicit T(__nv_bfloat16);                             \
    __host__ __device__ explicit operator float() const;                       \
    __host__ __device__ explicit operator __half() const;                      \
  };
PKB_FP8_TYPE(__nv_fp8_e4m3)
PKB_FP8_TYPE(__nv_fp8_e5m2)
#undef PKB_FP8_TYPE
typedef unsigned char __nv_fp8_storage_t;
