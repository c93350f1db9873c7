// pkbcheck shim: 16-bit float types (__half, __nv_bfloat16) and their pairs
// with the conversions and arithmetic intrinsics of cuda_fp16.h/cuda_bf16.h.
// Declarations only; sizes and alignments match the toolkit (2 and 4 bytes).
#ifndef PKB_SHIM_HALF_TYPES_H
#define PKB_SHIM_HALF_TYPES_H
#include "cuda_runtime.h"

#define PKB_HD __host__ __device__
#define PKB_HALF_TYPE(H, H2, RAW, RAW2)                                        \
  struct RAW {                                                                 \
    unsigned short x;                                                          \
  };                                                                           \
  struct RAW2 {                                                                \
    unsigned short x, y;                                                       \
  };                                                                           \
  struct __attribute__((aligned(2))) H {                                       \
    unsigned short __x;                                                        \
    H() = default;                                                             \
    PKB_HD H(const RAW &r) : __x(r.x) {}                                       \
    PKB_HD H(float f);                                                         \
    PKB_HD H(double f);                                                        \
    PKB_HD H(int i);                                                           \
    PKB_HD H(unsigned int i);                                                  \
    PKB_HD H(long long i);                                                     \
    PKB_HD H(unsigned long long i);                                            \
    PKB_HD H(short i);                                                         \
    PKB_HD H(unsigned short i);                                                \
    PKB_HD operator float() const;                                             \
    PKB_HD operator RAW() const { return RAW{__x}; }                           \
    PKB_HD H &operator=(float f);                                              \
    PKB_HD H &operator=(const RAW &r) {                                        \
      __x = r.x;                                                               \
      return *this;                                                            \
    }                                                                          \
  };                                                                           \
  struct __attribute__((aligned(4))) H2 {                                      \
    H x, y;                                                                    \
    H2() = default;                                                            \
    PKB_HD H2(const H &a, const H &b) : x(a), y(b) {}                          \
    PKB_HD H2(const RAW2 &r);                                                  \
    PKB_HD operator RAW2() const;                                              \
  };                                                                           \
  PKB_HD H operator+(const H &, const H &);                                    \
  PKB_HD H operator-(const H &, const H &);                                    \
  PKB_HD H operator*(const H &, const H &);                                    \
  PKB_HD H operator/(const H &, const H &);                                    \
  PKB_HD H operator-(const H &);                                               \
  PKB_HD H &operator+=(H &, const H &);                                        \
  PKB_HD H &operator-=(H &, const H &);                                        \
  PKB_HD H &operator*=(H &, const H &);                                        \
  PKB_HD H &operator/=(H &, const H &);                                        \
  PKB_HD bool operator==(const H &, const H &);                                \
  PKB_HD bool operator!=(const H &, const H &);                                \
  PKB_HD bool operator<(const H &, const H &);                                 \
  PKB_HD bool operator>(const H &, const H &);                                 \
  PKB_HD bool operator<=(const H &, const H &);                                \
  PKB_HD bool operator>=(const H &, const H &);                                \
  PKB_HD H2 operator+(const H2 &, const H2 &);                                 \
  PKB_HD H2 operator-(const H2 &, const H2 &);                                 \
  PKB_HD H2 operator*(const H2 &, const H2 &);                                 \
  PKB_HD H2 operator/(const H2 &, const H2 &);                                 \
  PKB_HD H2 &operator+=(H2 &, const H2 &);                                     \
  PKB_HD H2 &operator-=(H2 &, const H2 &);                                     \
  PKB_HD H2 &operator*=(H2 &, const H2 &);                                     \
  __device__ H __hadd(H, H);                                                   \
  __device__ H __hsub(H, H);                                                   \
  __device__ H __hmul(H, H);                                                   \
  __device__ H __hdiv(H, H);                                                   \
  __device__ H __hfma(H, H, H);                                                \
  __device__ H __hneg(H);                                                      \
  __device__ H __habs(H);                                                      \
  __device__ H __hmax(H, H);                                                   \
  __device__ H __hmin(H, H);                                                   \
  __device__ H2 __hadd2(H2, H2);                                               \
  __device__ H2 __hsub2(H2, H2);                                               \
  __device__ H2 __hmul2(H2, H2);                                               \
  __device__ H2 __h2div(H2, H2);                                               \
  __device__ H2 __hfma2(H2, H2, H2);                                           \
  __device__ H2 __hneg2(H2);                                                   \
  __device__ H2 __habs2(H2);                                                   \
  __device__ H2 __hmax2(H2, H2);                                               \
  __device__ H2 __hmin2(H2, H2);                                               \
  __device__ H atomicAdd(H *, H);                                              \
  __device__ H2 atomicAdd(H2 *, H2);

PKB_HALF_TYPE(__half, __half2, __half_raw, __half2_raw)
PKB_HALF_TYPE(__nv_bfloat16, __nv_bfloat162, __nv_bfloat16_raw,
              __nv_bfloat162_raw)
#undef PKB_HALF_TYPE

typedef __half half;
typedef __half2 half2;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

// fp16 conversions.
PKB_HD __half __float2half(float);
PKB_HD __half __float2half_rn(float);
PKB_HD __half __float2half_rz(float);
PKB_HD float __half2float(__half);
PKB_HD __half2 __float2half2_rn(float);
PKB_HD __half2 __floats2half2_rn(float, float);
PKB_HD __half2 __float22half2_rn(float2);
PKB_HD float2 __half22float2(__half2);
PKB_HD float __low2float(__half2);
PKB_HD float __high2float(__half2);
PKB_HD __half __low2half(__half2);
PKB_HD __half __high2half(__half2);
PKB_HD __half2 __half2half2(__half);
PKB_HD __half __int2half_rn(int);
PKB_HD int __half2int_rn(__half);
PKB_HD __half __ushort_as_half(unsigned short);
PKB_HD unsigned short __half_as_ushort(__half);
// bf16 conversions.
PKB_HD __nv_bfloat16 __float2bfloat16(float);
PKB_HD __nv_bfloat16 __float2bfloat16_rn(float);
PKB_HD __nv_bfloat16 __float2bfloat16_rz(float);
PKB_HD float __bfloat162float(__nv_bfloat16);
PKB_HD __nv_bfloat162 __float2bfloat162_rn(float);
PKB_HD __nv_bfloat162 __floats2bfloat162_rn(float, float);
PKB_HD __nv_bfloat162 __float22bfloat162_rn(float2);
PKB_HD float2 __bfloat1622float2(__nv_bfloat162);
PKB_HD float __low2float(__nv_bfloat162);
PKB_HD float __high2float(__nv_bfloat162);
PKB_HD __nv_bfloat16 __low2bfloat16(__nv_bfloat162);
PKB_HD __nv_bfloat16 __high2bfloat16(__nv_bfloat162);
PKB_HD __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16);
PKB_HD __nv_bfloat16 __int2bfloat16_rn(int);
PKB_HD int __bfloat162int_rn(__nv_bfloat16);
PKB_HD __nv_bfloat16 __ushort_as_bfloat16(unsigned short);
PKB_HD unsigned short __bfloat16_as_ushort(__nv_bfloat16);
PKB_HD __half2 make_half2(__half, __half);
PKB_HD __half2 __halves2half2(__half, __half);
PKB_HD __half2 __lowhigh2highlow(__half2);
PKB_HD __nv_bfloat162 make_bfloat162(__nv_bfloat16, __nv_bfloat16);
PKB_HD __nv_bfloat162 __halves2bfloat162(__nv_bfloat16, __nv_bfloat16);
PKB_HD __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162);
#undef PKB_HD
#endif // PKB_SHIM_HALF_TYPES_H
