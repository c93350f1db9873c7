//===- pkb/Enrich.h - Model-enrichment pass ---------------------*- C++ -*-===//
//
// enrich() runs once per module between the front ends (Clang front end,
// Python extractor) and the checkers. It derives, from the events, roles and
// host operations alone, the facts the checkers share: signal, wait and flag
// bases, cross-rank flags, software grid barriers, read-modify-write pairs,
// the epoch parameter role, typed atomic/compare operations and the kernels
// each host call launches (docs/model-schema.md, "Facts"). Checkers read
// these facts instead of looking at source positions, names or text.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_ENRICH_H
#define PKB_ENRICH_H

#include "pkb/Model.h"

namespace pkb {

/// Enriches one kernel in place: typed RmwOp/CmpOp on every event, the
/// Epoch role on call-counter parameters, and KernelModel::Facts. Does
/// nothing when Facts.Done is set. The Clang front end calls it on every
/// kernel it builds.
void enrichKernel(KernelModel &K);

/// Enriches every kernel of \p M and sets HostOp::Kernels of its kernel
/// calls (which needs the kernels of all units and the Python extractor's
/// host operations together). Idempotent; the driver calls it once per
/// file for check and dump, the test DSL on hand-built modules.
void enrich(ModuleModel &M);

} // namespace pkb

#endif // PKB_ENRICH_H
