//===- pkb/rt/Compare.h - Output comparison with tolerances -----*- C++ -*-===//
//
// Host-side comparison of a candidate's output against the reference output.
// An element passes when |got - ref| <= atol + rtol * |ref| (the rule of
// torch.allclose / numpy.isclose); NaN matches only NaN, an infinity only the
// same infinity. Integer types compare exactly. Elements whose bit pattern is
// still the poison pattern (and whose reference is not) are counted as
// unwritten, separately from wrong values.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_COMPARE_H
#define PKB_RT_COMPARE_H

#include "pkb/pkb_abi.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pkb::rt {

/// Absolute and relative tolerance of one output tensor.
struct Tolerance {
  double Atol = 0;
  double Rtol = 0;
};

/// Default tolerances: fp32 1e-5/1e-5, fp16 and bf16 1e-2/1e-2, integers 0.
Tolerance defaultTolerance(pkb_dtype T);

/// Bytes per element of a dtype (bf16 2, f32 4, i64 8, ...).
size_t dtypeSize(pkb_dtype T);

/// Lower-case name ("bf16", "f32", ...).
std::string_view dtypeName(pkb_dtype T);

/// Inverse of dtypeName.
std::optional<pkb_dtype> parseDtype(std::string_view Name);

/// Poison bit pattern written into outputs before each call, in the low
/// dtypeSize(T) bytes: distinctive quiet NaNs for floating types (bf16
/// 0x7FD1, f16 0x7E5B, f32 0x7FD1DEAD), 0xDEADBEEF... for integers, 0xA5 for
/// u8.
uint64_t poisonPattern(pkb_dtype T);

/// bfloat16 bits to float (exact).
float bf16ToFloat(uint16_t Bits);
/// float to bfloat16 bits, round to nearest even (NaN stays NaN).
uint16_t floatToBf16(float F);
/// IEEE binary16 bits to float (exact, subnormals included).
float f16ToFloat(uint16_t Bits);
/// float to IEEE binary16 bits, round to nearest even.
uint16_t floatToF16(float F);

/// Value of element I of a typed host buffer, widened to double.
double elementAsDouble(const void *Data, pkb_dtype T, int64_t I);

/// Result of comparing one output buffer.
struct CompareResult {
  int64_t Elements = 0;
  int64_t Mismatches = 0; ///< written elements outside tolerance
  int64_t Unwritten = 0;  ///< elements still holding the poison pattern
  int64_t FirstMismatch = -1;
  int64_t FirstUnwritten = -1;
  double GotAtFirst = 0; ///< candidate value at FirstMismatch
  double RefAtFirst = 0; ///< reference value at FirstMismatch
  double MaxAbsErr = 0;  ///< over finite pairs
  double MaxRelErr = 0;  ///< |got-ref|/|ref| over finite pairs, ref != 0
  int64_t MaxAbsIndex = -1;
  bool ok() const { return Mismatches == 0 && Unwritten == 0; }
};

/// Compares N elements of Got against Ref (both host buffers of type T).
CompareResult compareBuffers(const void *Got, const void *Ref, int64_t N,
                             pkb_dtype T, Tolerance Tol);

/// JSON form: elements, mismatches, unwritten, first_mismatch, ...
nlohmann::json toJson(const CompareResult &R);

/// One-line human description, e.g. "3 of 1024 elements wrong; first at 17:
/// got 1.5 expected 2.0; max abs err 0.5, max rel err 0.25".
std::string describe(const CompareResult &R);

} // namespace pkb::rt

#endif // PKB_RT_COMPARE_H
