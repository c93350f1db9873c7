//===- pkb/support/Toolkit.h - Finding the CUDA toolkit ---------*- C++ -*-===//
//
// The one search for the CUDA toolkit, used by the front end (headers) and
// the runtime (nvcc, compute-sanitizer). Candidates, in this order:
//   1. an explicit path (--cuda-path), when given;
//   2. $CUDA_PATH;  3. $CUDA_HOME;  4. /usr/local/cuda;
//   5. the parent of every PATH directory that holds bin/nvcc.
// CMake finds the toolkit for the build on its own (FindCUDAToolkit).
//
//===----------------------------------------------------------------------===//
#ifndef PKB_SUPPORT_TOOLKIT_H
#define PKB_SUPPORT_TOOLKIT_H

#include <functional>
#include <string>
#include <vector>

namespace pkb::support {

/// Toolkit root candidates in the order above (duplicates removed; empty
/// variables skipped). Explicit may be empty.
std::vector<std::string> toolkitRootCandidates(const std::string &Explicit);

/// The first candidate root for which Usable returns true; "" if none.
std::string
findToolkitRoot(const std::string &Explicit,
                const std::function<bool(const std::string &)> &Usable);

/// The executable bin/Tool of the first candidate root that has it, then
/// Tool in a PATH directory; "" if none. Override, when it names a file
/// (a tool-specific variable such as PKB_NVCC), comes first.
std::string findToolkitTool(const std::string &Tool,
                            const std::string &Explicit = "",
                            const std::string &Override = "");

/// The value of the environment variable Name, "" when unset.
std::string envOr(const char *Name);

} // namespace pkb::support

#endif // PKB_SUPPORT_TOOLKIT_H
