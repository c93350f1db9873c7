//===- pkb/rt/ResultStore.h - JSONL results with resume ---------*- C++ -*-===//
//
// Results are appended to a JSON Lines file (one object per line, written
// with a single write(2) and flushed as each case finishes). Every record has
// a "key" naming its case; opening an existing file loads the keys so that a
// rerun skips cases already done. A torn last line (a crash mid-write) or any
// malformed line is ignored and counted.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_RT_RESULTSTORE_H
#define PKB_RT_RESULTSTORE_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>

namespace pkb::rt {

/// Key of one case: "problem|kernel-hash|size|world|mode".
std::string resultKey(const std::string &Problem, const std::string &KernelHash,
                      int64_t Size, int WorldSize, const std::string &Mode);

class ResultStore {
public:
  /// Opens (creating if needed) Path and loads the keys of its records.
  /// Throws std::runtime_error when the file cannot be opened.
  explicit ResultStore(std::filesystem::path Path);
  ~ResultStore();
  ResultStore(const ResultStore &) = delete;
  ResultStore &operator=(const ResultStore &) = delete;

  /// True when a record with this key is already in the file.
  bool contains(const std::string &Key) const { return Keys.count(Key) != 0; }
  /// Appends Record (must hold a string "key") as one line; throws
  /// std::runtime_error on I/O failure.
  void append(const nlohmann::json &Record);
  /// Number of malformed lines skipped while loading.
  int malformedLines() const { return Malformed; }
  /// Number of records loaded or appended.
  size_t size() const { return Keys.size(); }
  const std::filesystem::path &path() const { return Path; }

private:
  std::filesystem::path Path;
  int Fd = -1;
  std::set<std::string> Keys;
  int Malformed = 0;
};

} // namespace pkb::rt

#endif // PKB_RT_RESULTSTORE_H
