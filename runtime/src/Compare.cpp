//===- Compare.cpp - Output comparison with tolerances --------------------===//
#include "pkb/rt/Compare.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace pkb::rt {

Tolerance defaultTolerance(pkb_dtype T) {
  switch (T) {
  case PKB_DTYPE_F32:
    return {1e-5, 1e-5};
  case PKB_DTYPE_F16:
  case PKB_DTYPE_BF16:
    return {1e-2, 1e-2};
  default:
    return {0, 0};
  }
}

size_t dtypeSize(pkb_dtype T) {
  switch (T) {
  case PKB_DTYPE_BF16:
  case PKB_DTYPE_F16:
    return 2;
  case PKB_DTYPE_F32:
  case PKB_DTYPE_I32:
    return 4;
  case PKB_DTYPE_I64:
    return 8;
  case PKB_DTYPE_U8:
    return 1;
  }
  return 0;
}

std::string_view dtypeName(pkb_dtype T) {
  switch (T) {
  case PKB_DTYPE_BF16:
    return "bf16";
  case PKB_DTYPE_F16:
    return "f16";
  case PKB_DTYPE_F32:
    return "f32";
  case PKB_DTYPE_I32:
    return "i32";
  case PKB_DTYPE_I64:
    return "i64";
  case PKB_DTYPE_U8:
    return "u8";
  }
  return "?";
}

std::optional<pkb_dtype> parseDtype(std::string_view Name) {
  for (pkb_dtype T : {PKB_DTYPE_BF16, PKB_DTYPE_F16, PKB_DTYPE_F32,
                      PKB_DTYPE_I32, PKB_DTYPE_I64, PKB_DTYPE_U8})
    if (dtypeName(T) == Name)
      return T;
  return std::nullopt;
}

uint64_t poisonPattern(pkb_dtype T) {
  switch (T) {
  case PKB_DTYPE_BF16:
    return 0x7FD1;
  case PKB_DTYPE_F16:
    return 0x7E5B;
  case PKB_DTYPE_F32:
    return 0x7FD1DEADu;
  case PKB_DTYPE_I32:
    return 0xDEADBEEFu;
  case PKB_DTYPE_I64:
    return 0xDEADBEEFDEADBEEFull;
  case PKB_DTYPE_U8:
    return 0xA5;
  }
  return 0;
}

float bf16ToFloat(uint16_t Bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(Bits) << 16);
}

uint16_t floatToBf16(float F) {
  uint32_t U = std::bit_cast<uint32_t>(F);
  if (std::isnan(F))
    return static_cast<uint16_t>((U >> 16) | 0x40); // keep it a quiet NaN
  uint32_t Rounding = 0x7FFF + ((U >> 16) & 1);
  return static_cast<uint16_t>((U + Rounding) >> 16);
}

float f16ToFloat(uint16_t H) {
  uint32_t Sign = (H >> 15) & 1, Exp = (H >> 10) & 0x1F, Man = H & 0x3FF;
  float V;
  if (Exp == 0)
    V = std::ldexp(static_cast<float>(Man), -24);
  else if (Exp == 31)
    V = Man ? std::numeric_limits<float>::quiet_NaN()
            : std::numeric_limits<float>::infinity();
  else
    V = std::ldexp(static_cast<float>(Man | 0x400), static_cast<int>(Exp) - 25);
  return Sign ? -V : V;
}

uint16_t floatToF16(float F) {
  uint32_t U = std::bit_cast<uint32_t>(F);
  uint16_t Sign = static_cast<uint16_t>((U >> 16) & 0x8000);
  float A = std::fabs(F);
  if (std::isnan(F))
    return static_cast<uint16_t>(Sign | 0x7E00);
  if (A >= 65520.0f) // rounds to infinity
    return static_cast<uint16_t>(Sign | 0x7C00);
  if (A < std::ldexp(1.0f, -14)) { // subnormal: units of 2^-24
    float Q = std::nearbyint(A * std::ldexp(1.0f, 24)); // ties to even
    return static_cast<uint16_t>(Sign | static_cast<uint16_t>(Q));
  }
  int E;
  float M = std::frexp(A, &E);           // A = M * 2^E, M in [0.5, 1)
  float Q = std::nearbyint(M * 2048.0f); // 11 significant bits
  if (Q >= 2048.0f) {
    Q /= 2;
    ++E;
  }
  uint32_t Exp = static_cast<uint32_t>(E - 1 + 15);
  return static_cast<uint16_t>(Sign | (Exp << 10) |
                               (static_cast<uint32_t>(Q) & 0x3FF));
}

namespace {
uint64_t rawBits(const void *Data, size_t Size, int64_t I) {
  uint64_t V = 0;
  std::memcpy(&V, static_cast<const char *>(Data) + I * Size, Size);
  return V;
}
bool isIntegerType(pkb_dtype T) {
  return T == PKB_DTYPE_I32 || T == PKB_DTYPE_I64 || T == PKB_DTYPE_U8;
}
} // namespace

double elementAsDouble(const void *Data, pkb_dtype T, int64_t I) {
  uint64_t B = rawBits(Data, dtypeSize(T), I);
  switch (T) {
  case PKB_DTYPE_BF16:
    return bf16ToFloat(static_cast<uint16_t>(B));
  case PKB_DTYPE_F16:
    return f16ToFloat(static_cast<uint16_t>(B));
  case PKB_DTYPE_F32:
    return std::bit_cast<float>(static_cast<uint32_t>(B));
  case PKB_DTYPE_I32:
    return static_cast<int32_t>(static_cast<uint32_t>(B));
  case PKB_DTYPE_I64:
    return static_cast<double>(static_cast<int64_t>(B));
  case PKB_DTYPE_U8:
    return static_cast<double>(B & 0xFF);
  }
  return 0;
}

CompareResult compareBuffers(const void *Got, const void *Ref, int64_t N,
                             pkb_dtype T, Tolerance Tol) {
  CompareResult R;
  R.Elements = N;
  const size_t Size = dtypeSize(T);
  const uint64_t Poison = poisonPattern(T);
  const bool Exact = isIntegerType(T);
  for (int64_t I = 0; I < N; ++I) {
    uint64_t GB = rawBits(Got, Size, I), RB = rawBits(Ref, Size, I);
    if (GB == Poison && RB != Poison) {
      if (R.FirstUnwritten < 0)
        R.FirstUnwritten = I;
      ++R.Unwritten;
      continue;
    }
    if (GB == RB)
      continue;
    double G = elementAsDouble(Got, T, I), F = elementAsDouble(Ref, T, I);
    bool Match;
    if (Exact) {
      Match = false; // bit patterns differ
    } else if (std::isnan(G) || std::isnan(F)) {
      Match = std::isnan(G) && std::isnan(F);
    } else if (std::isinf(G) || std::isinf(F)) {
      Match = G == F;
    } else {
      Match = std::fabs(G - F) <= Tol.Atol + Tol.Rtol * std::fabs(F);
    }
    if (std::isfinite(G) && std::isfinite(F)) {
      double Abs = std::fabs(G - F);
      if (Abs > R.MaxAbsErr) {
        R.MaxAbsErr = Abs;
        R.MaxAbsIndex = I;
      }
      if (F != 0)
        R.MaxRelErr = std::max(R.MaxRelErr, Abs / std::fabs(F));
    }
    if (!Match) {
      if (R.FirstMismatch < 0) {
        R.FirstMismatch = I;
        R.GotAtFirst = G;
        R.RefAtFirst = F;
      }
      ++R.Mismatches;
    }
  }
  return R;
}

nlohmann::json toJson(const CompareResult &R) {
  nlohmann::json J = {{"elements", R.Elements},
                      {"mismatches", R.Mismatches},
                      {"unwritten", R.Unwritten},
                      {"max_abs_err", R.MaxAbsErr},
                      {"max_rel_err", R.MaxRelErr}};
  if (R.FirstMismatch >= 0) {
    J["first_mismatch"] = R.FirstMismatch;
    // NaN/inf are not valid JSON numbers: print them as strings.
    auto Num = [](double V) -> nlohmann::json {
      if (std::isfinite(V))
        return V;
      return fmt::format("{}", V);
    };
    J["got_at_first"] = Num(R.GotAtFirst);
    J["ref_at_first"] = Num(R.RefAtFirst);
  }
  if (R.FirstUnwritten >= 0)
    J["first_unwritten"] = R.FirstUnwritten;
  return J;
}

std::string describe(const CompareResult &R) {
  if (R.ok())
    return fmt::format("all {} elements match (max abs err {:.3g}, max rel "
                       "err {:.3g})",
                       R.Elements, R.MaxAbsErr, R.MaxRelErr);
  std::string S;
  if (R.Unwritten)
    S += fmt::format("{} of {} elements unwritten (first at {}); ", R.Unwritten,
                     R.Elements, R.FirstUnwritten);
  if (R.Mismatches)
    S += fmt::format("{} of {} elements wrong; first at {}: got {} expected "
                     "{}; ",
                     R.Mismatches, R.Elements, R.FirstMismatch, R.GotAtFirst,
                     R.RefAtFirst);
  S += fmt::format("max abs err {:.3g}, max rel err {:.3g}", R.MaxAbsErr,
                   R.MaxRelErr);
  return S;
}

} // namespace pkb::rt
