//===- pkb/ModelJson.h - JSON form of models and findings -------*- C++ -*-===//
//
// The JSON written by `pkbcheck dump` (schema: docs/model-schema.md) and by
// `pkbcheck check --format json`.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_MODELJSON_H
#define PKB_MODELJSON_H

#include "pkb/Diagnostic.h"
#include "pkb/Model.h"

#include <nlohmann/json.hpp>

namespace pkb {

/// Expression as a JSON string in C-like syntax (Expr::str), or null.
nlohmann::json toJson(const ExprRef &E);
nlohmann::json toJson(const SourceLoc &L);
nlohmann::json toJson(const Event &E);
nlohmann::json toJson(const KernelModel &K);
nlohmann::json toJson(const HostOp &H);
/// {"schema":"pkbcheck-model/1","file":...,"kernels":[...],"host_ops":[...]}
nlohmann::json toJson(const ModuleModel &M);
nlohmann::json toJson(const Finding &F);
nlohmann::json toJson(const Diagnostic &D);

/// \p J as one line of JSON. File names and messages may hold invalid UTF-8
/// (paths are bytes): it is replaced by U+FFFD instead of making dump()
/// throw (type_error 316), so every report and record is valid JSON.
std::string dumpJson(const nlohmann::json &J);

} // namespace pkb

#endif // PKB_MODELJSON_H
