//===- Topo001Multicast.cpp - TOPO-001 ------------------------------------===//
//
// multimem / NVLink multicast used on a target without multicast, or a
// multicast pointer used without a null check (PTX ISA, "multimem"
// instructions; NVLS needs NVSwitch hardware).
//
//===----------------------------------------------------------------------===//
#include "Checks.h"
#include "Engine.h"

namespace pkb::chk {
namespace {

class Topo001 : public KernelChecker {
public:
  PKB_CHECK_INFO("TOPO-001", "multicast-unavailable",
                 "NVLink multicast (multimem) is used on a target without it, "
                 "or a multicast pointer is used without a null check.",
                 "topo-001", ExplainsRuntimeError)
  PKB_CHECK_NEEDS(HasMulticast)

  void checkKernel(Analysis &A, std::vector<Finding> &Out,
                   std::vector<Diagnostic> &) const override {
    for (size_t I = 0; I < A.size(); ++I) {
      const Event &E = A.ev(I);
      const Param *P = A.paramOf(E.Addr.Base);
      bool Mc = isMemEvent(E) && (E.Addr.Space == AddrSpace::Multicast ||
                                  (P && P->Role == ParamRole::Multicast));
      if (!Mc)
        continue;
      std::string Base = E.Addr.Base;
      bool Checked = false;
      for (const ExprRef &G : E.Guard)
        if (anyVar(G, [&](const std::string &N) {
              return !Base.empty() && N.find(Base) != std::string::npos;
            }))
          Checked = true;
      for (const ExprRef &G : E.Guard)
        if (!Base.empty() && G->hasOpaque() &&
            G->str().find(Base) != std::string::npos)
          Checked = true;
      if (Checked)
        continue;
      // No machine named: the code needs NVLS; say so, fail nothing.
      const Topology &T = A.O.Target;
      std::string What = "multicast access " + describe(E);
      What += !T.named() ? " needs NVLink SHARP (NVLS); it fails where the "
                           "multicast pointer is null (no --topology given)"
              : T.Multicast
                  ? " does not check that the multicast pointer is non-null"
                  : " on target '" + T.Name +
                        "', which has no NVLink multicast (NVLS); the "
                        "multicast pointer is null there";
      Finding F = makeFinding(
          info().Id, A.K, E.Loc, What,
          "guard the multimem path with `if (mc_ptr != nullptr)` and fall "
          "back to peer-pointer loads/stores");
      F.Sev = !T.named()    ? Severity::Note
              : T.Multicast ? Severity::Warning
                            : Severity::Error;
      relate(F, "multicast", E);
      if (T.named())
        F.Witness["target"] = T.Name;
      emit(Out, std::move(F));
    }
  }
};

} // namespace

std::unique_ptr<Checker> makeTopo001() { return std::make_unique<Topo001>(); }

} // namespace pkb::chk
