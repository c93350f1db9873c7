// pkbcheck shim: a declaration-only cuda_runtime.h for parsing CUDA device
// code with Clang (-nocudainc) on machines without a CUDA toolkit. Covers the
// CUDA C++ language qualifiers, built-in variables, vector types, the common
// device intrinsics (atomics, fences, barriers, warp shuffles, cache-hinted
// loads/stores) and the host runtime API used to launch kernels. Semantics are
// in the front end (recognized by name), never in these declarations.
#ifndef PKB_SHIM_CUDA_RUNTIME_H
#define PKB_SHIM_CUDA_RUNTIME_H

#define PKB_SHIMS 1
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
#ifndef CUDART_VERSION
#define CUDART_VERSION 12080
#endif
#ifndef CUDA_VERSION
#define CUDA_VERSION 12080
#endif
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 8
#define __CUDACC_VER_BUILD__ 0
#endif

// Language qualifiers (CUDA C++ Programming Guide, "C++ Language Extensions").
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __grid_constant__
#define __cluster_dims__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#define __device_builtin__
#define __cudart_builtin__
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))
#define CUDART_CB

// Like Clang's __clang_cuda_runtime_wrapper.h: device overloads of the math
// library are forward-declared before the host headers, then Clang's own CUDA
// device headers (resource directory) supply math and warp intrinsics below.
#ifdef __cplusplus
#include <__clang_cuda_math_forward_declares.h>
#include <cmath>
#include <cstdlib>
#endif
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <__clang_cuda_builtin_vars.h>

//===----------------------------------------------------------------------===//
// Vector types (vector_types.h).
//===----------------------------------------------------------------------===//
#define PKB_VEC1(T, N, A)                                                      \
  struct __attribute__((aligned(A))) N##1 { T x; };                           \
  typedef struct N##1 N##1;
#define PKB_VEC2(T, N, A)                                                      \
  struct __attribute__((aligned(A))) N##2 { T x, y; };                        \
  typedef struct N##2 N##2;
#define PKB_VEC3(T, N)                                                         \
  struct N##3 { T x, y, z; };                                                  \
  typedef struct N##3 N##3;
#define PKB_VEC4(T, N, A)                                                      \
  struct __attribute__((aligned(A))) N##4 { T x, y, z, w; };                  \
  typedef struct N##4 N##4;
#define PKB_VECS(T, N, A1, A2, A4)                                             \
  PKB_VEC1(T, N, A1) PKB_VEC2(T, N, A2) PKB_VEC3(T, N) PKB_VEC4(T, N, A4)
PKB_VECS(signed char, char, 1, 2, 4)
PKB_VECS(unsigned char, uchar, 1, 2, 4)
PKB_VECS(short, short, 2, 4, 8)
PKB_VECS(unsigned short, ushort, 2, 4, 8)
PKB_VECS(int, int, 4, 8, 16)
PKB_VECS(unsigned int, uint, 4, 8, 16)
PKB_VECS(long, long, 8, 16, 16)
PKB_VECS(unsigned long, ulong, 8, 16, 16)
PKB_VECS(long long, longlong, 8, 16, 16)
PKB_VECS(unsigned long long, ulonglong, 8, 16, 16)
PKB_VECS(float, float, 4, 8, 16)
PKB_VECS(double, double, 8, 16, 16)
#undef PKB_VECS
#undef PKB_VEC1
#undef PKB_VEC2
#undef PKB_VEC3
#undef PKB_VEC4

#define PKB_MAKE2(N, T)                                                        \
  static inline __host__ __device__ N##2 make_##N##2(T x, T y) {               \
    N##2 r;                                                                    \
    r.x = x;                                                                   \
    r.y = y;                                                                   \
    return r;                                                                  \
  }
#define PKB_MAKE3(N, T)                                                        \
  static inline __host__ __device__ N##3 make_##N##3(T x, T y, T z) {          \
    N##3 r;                                                                    \
    r.x = x;                                                                   \
    r.y = y;                                                                   \
    r.z = z;                                                                   \
    return r;                                                                  \
  }
#define PKB_MAKE4(N, T)                                                        \
  static inline __host__ __device__ N##4 make_##N##4(T x, T y, T z, T w) {     \
    N##4 r;                                                                    \
    r.x = x;                                                                   \
    r.y = y;                                                                   \
    r.z = z;                                                                   \
    r.w = w;                                                                   \
    return r;                                                                  \
  }
#define PKB_MAKES(N, T) PKB_MAKE2(N, T) PKB_MAKE3(N, T) PKB_MAKE4(N, T)
PKB_MAKES(char, signed char)
PKB_MAKES(uchar, unsigned char)
PKB_MAKES(short, short)
PKB_MAKES(ushort, unsigned short)
PKB_MAKES(int, int)
PKB_MAKES(uint, unsigned int)
PKB_MAKES(long, long)
PKB_MAKES(ulong, unsigned long)
PKB_MAKES(longlong, long long)
PKB_MAKES(ulonglong, unsigned long long)
PKB_MAKES(float, float)
PKB_MAKES(double, double)
#undef PKB_MAKES
#undef PKB_MAKE2
#undef PKB_MAKE3
#undef PKB_MAKE4

struct dim3 {
  unsigned int x, y, z;
#ifdef __cplusplus
  constexpr __host__ __device__ dim3(unsigned int vx = 1, unsigned int vy = 1,
                                     unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr __host__ __device__ dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr __host__ __device__ operator uint3() const {
    return uint3{x, y, z};
  }
#endif
};
typedef struct dim3 dim3;

__device__ inline __cuda_builtin_threadIdx_t::operator dim3() const {
  return dim3(x, y, z);
}
__device__ inline __cuda_builtin_threadIdx_t::operator uint3() const {
  return {x, y, z};
}
__device__ inline __cuda_builtin_blockIdx_t::operator dim3() const {
  return dim3(x, y, z);
}
__device__ inline __cuda_builtin_blockIdx_t::operator uint3() const {
  return {x, y, z};
}
__device__ inline __cuda_builtin_blockDim_t::operator dim3() const {
  return dim3(x, y, z);
}
__device__ inline __cuda_builtin_blockDim_t::operator uint3() const {
  return {x, y, z};
}
__device__ inline __cuda_builtin_gridDim_t::operator dim3() const {
  return dim3(x, y, z);
}
__device__ inline __cuda_builtin_gridDim_t::operator uint3() const {
  return {x, y, z};
}

//===----------------------------------------------------------------------===//
// Host runtime API (cuda_runtime_api.h, driver_types.h): types and the
// functions model-generated host code calls.
//===----------------------------------------------------------------------===//
typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorLaunchTimeout = 702,
  cudaErrorPeerAccessNotEnabled = 705,
  cudaErrorLaunchFailure = 719,
  cudaErrorCooperativeLaunchTooLarge = 720,
  cudaErrorNotSupported = 801,
  cudaErrorNotReady = 600,
  cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorUnknown = 999
} cudaError_t;
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef unsigned long long cudaTextureObject_t;
typedef enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
} cudaMemcpyKind;
typedef enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 11
} cudaFuncAttribute;
typedef enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97
} cudaDeviceAttr;
typedef enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeClusterDimension = 4
} cudaLaunchAttributeID;
typedef union cudaLaunchAttributeValue {
  int cooperative;
  struct {
    unsigned int x, y, z;
  } clusterDim;
  char pad[64];
} cudaLaunchAttributeValue;
typedef struct cudaLaunchAttribute {
  cudaLaunchAttributeID id;
  cudaLaunchAttributeValue val;
} cudaLaunchAttribute;
typedef struct cudaLaunchConfig_t {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;
typedef struct cudaIpcMemHandle_st {
  char reserved[64];
} cudaIpcMemHandle_t;
typedef struct cudaIpcEventHandle_st {
  char reserved[64];
} cudaIpcEventHandle_t;
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  size_t sharedMemPerBlockOptin;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int multiProcessorCount;
  int major;
  int minor;
  int cooperativeLaunch;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
};
#define cudaIpcMemLazyEnablePeerAccess 0x01
#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02

#ifdef __cplusplus
extern "C" {
#endif
__host__ __device__ cudaError_t cudaGetLastError(void);
__host__ __device__ cudaError_t cudaPeekAtLastError(void);
__host__ __device__ const char *cudaGetErrorString(cudaError_t);
__host__ const char *cudaGetErrorName(cudaError_t);
__host__ __device__ cudaError_t cudaGetDevice(int *);
__host__ cudaError_t cudaSetDevice(int);
__host__ __device__ cudaError_t cudaGetDeviceCount(int *);
__host__ cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *, int);
__host__ __device__ cudaError_t cudaDeviceGetAttribute(int *, cudaDeviceAttr,
                                                       int);
__host__ __device__ cudaError_t cudaDeviceSynchronize(void);
__host__ cudaError_t cudaDeviceCanAccessPeer(int *, int, int);
__host__ cudaError_t cudaDeviceEnablePeerAccess(int, unsigned int);
__host__ __device__ cudaError_t cudaMalloc(void **, size_t);
__host__ cudaError_t cudaMallocHost(void **, size_t);
__host__ cudaError_t cudaHostAlloc(void **, size_t, unsigned int);
__host__ cudaError_t cudaMallocManaged(void **, size_t, unsigned int);
__host__ __device__ cudaError_t cudaFree(void *);
__host__ cudaError_t cudaFreeHost(void *);
__host__ cudaError_t cudaMemcpy(void *, const void *, size_t, cudaMemcpyKind);
__host__ __device__ cudaError_t cudaMemcpyAsync(void *, const void *, size_t,
                                                cudaMemcpyKind,
                                                cudaStream_t = 0);
__host__ cudaError_t cudaMemcpyPeerAsync(void *, int, const void *, int, size_t,
                                         cudaStream_t = 0);
__host__ cudaError_t cudaMemset(void *, int, size_t);
__host__ __device__ cudaError_t cudaMemsetAsync(void *, int, size_t,
                                                cudaStream_t = 0);
__host__ cudaError_t cudaMemcpyToSymbol(const void *, const void *, size_t,
                                        size_t = 0,
                                        cudaMemcpyKind = cudaMemcpyHostToDevice);
__host__ cudaError_t
cudaMemcpyToSymbolAsync(const void *, const void *, size_t, size_t = 0,
                        cudaMemcpyKind = cudaMemcpyHostToDevice,
                        cudaStream_t = 0);
__host__ cudaError_t cudaGetSymbolAddress(void **, const void *);
__host__ cudaError_t cudaStreamCreate(cudaStream_t *);
__host__ cudaError_t cudaStreamCreateWithFlags(cudaStream_t *, unsigned int);
__host__ cudaError_t cudaStreamDestroy(cudaStream_t);
__host__ cudaError_t cudaStreamSynchronize(cudaStream_t);
__host__ cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t,
                                         unsigned int = 0);
__host__ cudaError_t cudaEventCreate(cudaEvent_t *);
__host__ cudaError_t cudaEventCreateWithFlags(cudaEvent_t *, unsigned int);
__host__ cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t = 0);
__host__ cudaError_t cudaEventSynchronize(cudaEvent_t);
__host__ cudaError_t cudaEventElapsedTime(float *, cudaEvent_t, cudaEvent_t);
__host__ cudaError_t cudaEventDestroy(cudaEvent_t);
__host__ cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *, void *);
__host__ cudaError_t cudaIpcOpenMemHandle(void **, cudaIpcMemHandle_t,
                                          unsigned int);
__host__ cudaError_t cudaIpcCloseMemHandle(void *);
__host__ cudaError_t cudaLaunchKernel(const void *, dim3, dim3, void **,
                                      size_t, cudaStream_t);
__host__ cudaError_t cudaLaunchCooperativeKernel(const void *, dim3, dim3,
                                                 void **, size_t,
                                                 cudaStream_t);
__host__ cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *,
                                         const void *, void **);
__host__ cudaError_t cudaFuncSetAttribute(const void *, cudaFuncAttribute,
                                          int);
__host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int *, const void *, int, size_t);
__host__ cudaError_t cudaPointerGetAttributes(void *, const void *);

// Kernel launch configuration (what `k<<<g, b, s, st>>>` lowers to).
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                     size_t sharedMem = 0, void *stream = 0);
cudaError_t cudaConfigureCall(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                              cudaStream_t stream = 0);
#ifdef __cplusplus
}

template <class T>
static inline __host__ cudaError_t
cudaLaunchKernel(T *func, dim3 grid, dim3 block, void **args,
                 size_t sharedMem = 0, cudaStream_t stream = 0) {
  return cudaLaunchKernel((const void *)func, grid, block, args, sharedMem,
                          stream);
}
template <class T>
static inline __host__ cudaError_t
cudaLaunchCooperativeKernel(T *func, dim3 grid, dim3 block, void **args,
                            size_t sharedMem = 0, cudaStream_t stream = 0) {
  return cudaLaunchCooperativeKernel((const void *)func, grid, block, args,
                                     sharedMem, stream);
}
template <class... KArgs, class... Args>
static inline __host__ cudaError_t
cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(KArgs...),
                   Args &&...args) {
  return cudaLaunchKernelExC(config, (const void *)kernel, nullptr);
}
template <class T>
static inline __host__ cudaError_t cudaFuncSetAttribute(T *func,
                                                        cudaFuncAttribute attr,
                                                        int value) {
  return cudaFuncSetAttribute((const void *)func, attr, value);
}
template <class T>
static inline __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int *n, T func, int blockSize, size_t smem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, (const void *)func,
                                                       blockSize, smem);
}
// The C++ symbol overloads (`cudaMemcpyToSymbol(gVar, &x, n)`).
template <class T>
static inline __host__ cudaError_t
cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                   size_t offset = 0,
                   cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T>
static inline __host__ cudaError_t
cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                        size_t offset = 0,
                        cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                        cudaStream_t stream = 0) {
  return cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset,
                                 kind, stream);
}
template <class T>
static inline __host__ cudaError_t cudaGetSymbolAddress(void **devPtr,
                                                        const T &symbol) {
  return cudaGetSymbolAddress(devPtr, (const void *)&symbol);
}
#endif

//===----------------------------------------------------------------------===//
// Device intrinsics (CUDA C++ Programming Guide, "Synchronization Functions",
// "Memory Fence Functions", "Atomic Functions", "Warp Shuffle Functions",
// "Load Functions Using Cache Hints").
//===----------------------------------------------------------------------===//
#ifdef __cplusplus
typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;

// Address-space predicates and conversions (sm_20_intrinsics.h); the names
// Clang's intrinsics header expects to exist.
static __device__ inline unsigned int __isGlobal(const void *p) {
  return __nvvm_isspacep_global(p);
}
static __device__ inline unsigned int __isShared(const void *p) {
  return __nvvm_isspacep_shared(p);
}
static __device__ inline unsigned int __isConstant(const void *p) {
  return __nvvm_isspacep_const(p);
}
static __device__ inline unsigned int __isLocal(const void *p) {
  return __nvvm_isspacep_local(p);
}
__device__ size_t __cvta_generic_to_global(const void *);
__device__ size_t __cvta_generic_to_shared(const void *);
__device__ size_t __cvta_generic_to_constant(const void *);
__device__ size_t __cvta_generic_to_local(const void *);
__device__ void *__cvta_global_to_generic(size_t);
__device__ void *__cvta_shared_to_generic(size_t);

// Math, conversion and warp intrinsics from Clang's resource directory:
// __threadfence*, __syncthreads_*, __shfl_*_sync, __ballot_sync, __ldg,
// __syncwarp, __activemask, __popc, __expf, min/max(int, int), ...
#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>
#include <__clang_cuda_cmath.h>
#include <__clang_cuda_intrinsics.h>

// Atomics: Op (gpu scope), Op_system (sys scope) and Op_block (cta scope),
// CUDA C++ Programming Guide, "Atomic Functions".
#define PKB_ATOMIC_OP3(NAME, T)                                                \
  __device__ T NAME(T *address, T val);                                        \
  __device__ T NAME##_system(T *address, T val);                               \
  __device__ T NAME##_block(T *address, T val);
#define PKB_ATOMIC_CAS(T)                                                      \
  __device__ T atomicCAS(T *address, T compare, T val);                        \
  __device__ T atomicCAS_system(T *address, T compare, T val);                 \
  __device__ T atomicCAS_block(T *address, T compare, T val);
PKB_ATOMIC_OP3(atomicAdd, int)
PKB_ATOMIC_OP3(atomicAdd, unsigned int)
PKB_ATOMIC_OP3(atomicAdd, unsigned long long int)
PKB_ATOMIC_OP3(atomicAdd, float)
PKB_ATOMIC_OP3(atomicAdd, double)
PKB_ATOMIC_OP3(atomicSub, int)
PKB_ATOMIC_OP3(atomicSub, unsigned int)
PKB_ATOMIC_OP3(atomicExch, int)
PKB_ATOMIC_OP3(atomicExch, unsigned int)
PKB_ATOMIC_OP3(atomicExch, unsigned long long int)
PKB_ATOMIC_OP3(atomicExch, float)
PKB_ATOMIC_OP3(atomicMin, int)
PKB_ATOMIC_OP3(atomicMin, unsigned int)
PKB_ATOMIC_OP3(atomicMin, long long int)
PKB_ATOMIC_OP3(atomicMin, unsigned long long int)
PKB_ATOMIC_OP3(atomicMax, int)
PKB_ATOMIC_OP3(atomicMax, unsigned int)
PKB_ATOMIC_OP3(atomicMax, long long int)
PKB_ATOMIC_OP3(atomicMax, unsigned long long int)
PKB_ATOMIC_OP3(atomicInc, unsigned int)
PKB_ATOMIC_OP3(atomicDec, unsigned int)
PKB_ATOMIC_OP3(atomicAnd, int)
PKB_ATOMIC_OP3(atomicAnd, unsigned int)
PKB_ATOMIC_OP3(atomicAnd, unsigned long long int)
PKB_ATOMIC_OP3(atomicOr, int)
PKB_ATOMIC_OP3(atomicOr, unsigned int)
PKB_ATOMIC_OP3(atomicOr, unsigned long long int)
PKB_ATOMIC_OP3(atomicXor, int)
PKB_ATOMIC_OP3(atomicXor, unsigned int)
PKB_ATOMIC_OP3(atomicXor, unsigned long long int)
PKB_ATOMIC_CAS(int)
PKB_ATOMIC_CAS(unsigned int)
PKB_ATOMIC_CAS(unsigned long long int)
PKB_ATOMIC_CAS(unsigned short int)
#undef PKB_ATOMIC_OP3
#undef PKB_ATOMIC_CAS

// Intrinsics the toolkit defines in sm_*_intrinsics.h.
__device__ void __nanosleep(unsigned int);
// Device-side assert target (as in Clang's __clang_cuda_runtime_wrapper.h),
// so that <cassert>'s assert() compiles in device code.
__device__ void __assertfail(const char *, const char *, unsigned, const char *,
                             __SIZE_TYPE__);
__device__ static inline void __assert_fail(const char *M, const char *F,
                                            unsigned L, const char *Fn) {
  __assertfail(M, F, L, Fn, 1);
}
__device__ unsigned long long __globaltimer(void);
template <class T> __device__ T __ldcg(const T *ptr);
template <class T> __device__ T __ldca(const T *ptr);
template <class T> __device__ T __ldcs(const T *ptr);
template <class T> __device__ T __ldlu(const T *ptr);
template <class T> __device__ T __ldcv(const T *ptr);
template <class T> __device__ void __stwb(T *ptr, T value);
template <class T> __device__ void __stcg(T *ptr, T value);
template <class T> __device__ void __stcs(T *ptr, T value);
template <class T> __device__ void __stwt(T *ptr, T value);
__device__ unsigned int __reduce_add_sync(unsigned int mask, unsigned int v);
__device__ unsigned int __reduce_max_sync(unsigned int mask, unsigned int v);
__device__ unsigned int __reduce_min_sync(unsigned int mask, unsigned int v);
template <class T>
__device__ unsigned int __match_any_sync(unsigned int mask, T value);
template <class T>
__device__ unsigned int __match_all_sync(unsigned int mask, T value, int *pred);

// nvcc's global min/max overloads (math_functions.hpp) beyond min(int, int).
#define PKB_MINMAX(A, B, R)                                                    \
  static inline __host__ __device__ R min(A a, B b) { return a < b ? a : b; } \
  static inline __host__ __device__ R max(A a, B b) { return a > b ? a : b; }
PKB_MINMAX(unsigned int, unsigned int, unsigned int)
PKB_MINMAX(int, unsigned int, unsigned int)
PKB_MINMAX(unsigned int, int, unsigned int)
PKB_MINMAX(long, long, long)
PKB_MINMAX(unsigned long, unsigned long, unsigned long)
PKB_MINMAX(long long, long long, long long)
PKB_MINMAX(unsigned long long, unsigned long long, unsigned long long)
PKB_MINMAX(long long, unsigned long long, unsigned long long)
PKB_MINMAX(unsigned long long, long long, unsigned long long)
PKB_MINMAX(float, float, float)
PKB_MINMAX(double, double, double)
PKB_MINMAX(float, double, double)
PKB_MINMAX(double, float, double)
#undef PKB_MINMAX
#endif // __cplusplus

#endif // PKB_SHIM_CUDA_RUNTIME_H
