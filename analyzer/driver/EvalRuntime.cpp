//===- EvalRuntime.cpp - The GPU stage of pkbcheck eval -------------------===//

#include "Eval.h"

#ifdef PKB_HAVE_RUNTIME
#include "pkb/rt/Session.h"
#endif

namespace pkb {

DynamicRunner makeDynamicRunner(const EvalOptions &Opts, std::string &Reason) {
#ifndef PKB_HAVE_RUNTIME
  (void)Opts;
  Reason = "this build has no runtime (CUDA toolkit and NCCL were not found "
           "when it was configured)";
  return nullptr;
#else
  Reason = "the runtime stage is not wired yet";
  (void)Opts;
  return nullptr;
#endif
}

} // namespace pkb
