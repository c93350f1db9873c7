//===- pkb/support/Expected.h - A value or an error -------------*- C++ -*-===//
//
// The error convention of new code: a function that can fail returns
// Expected<T> (Expected<void> for no value) holding either its value or an
// Error with a message for people. Test with `if (!R)`, read with `*R` or
// `R->`, and the error with `R.error().Message`.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_SUPPORT_EXPECTED_H
#define PKB_SUPPORT_EXPECTED_H

#include <string>
#include <utility>
#include <variant>

namespace pkb::support {

/// Why an operation failed, for people ("fork: Resource temporarily
/// unavailable").
struct Error {
  std::string Message;
};

/// Makes an Error (so that `return fail("...")` reads well).
inline Error fail(std::string Message) { return Error{std::move(Message)}; }

/// A T or an Error.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T Value) : V(std::move(Value)) {}
  Expected(Error E) : V(std::move(E)) {}
  /// True when it holds a value.
  explicit operator bool() const { return V.index() == 0; }
  /// The value; only when it holds one.
  T &operator*() { return std::get<0>(V); }
  const T &operator*() const { return std::get<0>(V); }
  T *operator->() { return &std::get<0>(V); }
  const T *operator->() const { return &std::get<0>(V); }
  /// The error; only when it holds no value.
  const Error &error() const { return std::get<1>(V); }

private:
  std::variant<T, Error> V;
};

/// Success or an Error.
template <> class [[nodiscard]] Expected<void> {
public:
  Expected() = default;
  Expected(Error E) : Err(std::move(E)), Failed(true) {}
  /// True on success.
  explicit operator bool() const { return !Failed; }
  /// The error; only after a failure.
  const Error &error() const { return Err; }

private:
  Error Err;
  bool Failed = false;
};

} // namespace pkb::support

#endif // PKB_SUPPORT_EXPECTED_H
