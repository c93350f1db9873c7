//===- ModelJson.cpp - JSON form of models and findings -------------------===//
//
// Schema "pkbcheck-model/1", documented field by field in
// docs/model-schema.md. Keys are snake_case; absent optional values are
// omitted rather than null, except where the schema says otherwise.
//
//===----------------------------------------------------------------------===//

#include "pkb/ModelJson.h"

using nlohmann::json;

namespace pkb {

json toJson(const ExprRef &E) {
  if (!E)
    return nullptr;
  return E->str();
}

json toJson(const SourceLoc &L) {
  return json{{"file", L.File}, {"line", L.Line}, {"col", L.Col}};
}

static json addressJson(const Address &A) {
  json J{{"base", A.Base}, {"space", toString(A.Space)}};
  if (A.Peer)
    J["peer"] = toJson(A.Peer);
  if (A.Peer && A.PeerLoc.isValid())
    J["peer_line"] = A.PeerLoc.Line;
  if (A.Index)
    J["index"] = toJson(A.Index);
  if (A.ByteOffset)
    J["byte_offset"] = toJson(A.ByteOffset);
  return J;
}

json toJson(const Event &E) {
  json J{{"kind", toString(E.Kind)}, {"line", E.Loc.Line}, {"col", E.Loc.Col}};
  if (accessesMemory(E.Kind)) {
    J["addr"] = addressJson(E.Addr);
    if (E.CopyOf)
      J["copy_of"] = addressJson(*E.CopyOf);
    J["width"] = E.Width;
  }
  if (accessesMemory(E.Kind) || E.Kind == EventKind::Fence) {
    J["order"] = toString(E.Order);
    J["scope"] = toString(E.Scp);
  }
  if (!E.AtomicOp.empty())
    J["atomic_op"] = E.AtomicOp;
  if (E.Value)
    J["value"] = toJson(E.Value);
  if (E.Kind == EventKind::Barrier)
    J["barrier"] = toString(E.Barrier);
  if (E.BarrierId)
    J["barrier_id"] = toJson(E.BarrierId);
  if (E.BarrierThreads)
    J["barrier_threads"] = toJson(E.BarrierThreads);
  if (E.ExitCond)
    J["exit_cond"] = toJson(E.ExitCond);
  if (!E.CompareOp.empty())
    J["compare_op"] = E.CompareOp;
  if (!E.Text.empty())
    J["text"] = E.Text;
  if (!E.Guard.empty()) {
    json G = json::array();
    for (const ExprRef &C : E.Guard)
      G.push_back(toJson(C));
    J["guard"] = G;
  }
  if (!E.Loops.empty())
    J["loops"] = E.Loops;
  if (!E.InlinedFrom.empty())
    J["inlined_from"] = E.InlinedFrom;
  if (E.InstLoc.isValid())
    J["inst_line"] = E.InstLoc.Line;
  if (E.RmwStore)
    J["rmw_store"] = true;
  return J;
}

/// The enrichment facts of a kernel (docs/model-schema.md, "Facts").
static json factsJson(const KernelFacts &F) {
  json Pairs = json::array();
  for (const RmwPair &P : F.RmwPairs)
    Pairs.push_back(json{P.Load, P.Store});
  json J{{"flag_bases", F.FlagBases},
         {"sym_bases", F.SymBases},
         {"cross_rank_flags", F.CrossRankFlags},
         {"signals", F.Signals},
         {"waits", F.Waits},
         {"soft_grid_barriers", F.SoftGridBarriers},
         {"rmw_pairs", Pairs}};
  // Present only when set, like the optional fields of events.
  json Dims = json::array();
  if (F.Block1D)
    Dims.push_back("block");
  if (F.Grid1D)
    Dims.push_back("grid");
  if (!Dims.empty())
    J["one_dim_launch"] = Dims;
  return J;
}

json toJson(const KernelModel &K) {
  json Params = json::array();
  for (const Param &P : K.Params) {
    json PJ{{"name", P.Name}, {"type", P.Type}, {"role", toString(P.Role)}};
    if (P.ElemBytes)
      PJ["elem_bytes"] = P.ElemBytes;
    if (!P.Why.empty())
      PJ["why"] = P.Why;
    Params.push_back(PJ);
  }
  json Loops = json::array();
  for (const Loop &L : K.Loops) {
    json LJ{{"id", L.Id},
            {"var", L.InductionVar},
            {"init", toJson(L.Init)},
            {"bound", toJson(L.Bound)},
            {"step", toJson(L.Step)},
            {"ascending", L.Ascending},
            {"line", L.Loc.Line}};
    if (L.ParentId >= 0)
      LJ["parent"] = L.ParentId;
    Loops.push_back(LJ);
  }
  json Events = json::array();
  for (const Event &E : K.Events)
    Events.push_back(toJson(E));
  json Shared = json::array();
  for (const auto &[Name, Bytes] : K.SharedVars)
    Shared.push_back(json{{"name", Name}, {"elem_bytes", Bytes}});
  json Launches = json::array();
  for (const LaunchSite &S : K.Launches) {
    json LJ{{"grid", {toJson(S.GridX), toJson(S.GridY), toJson(S.GridZ)}},
            {"block", {toJson(S.BlockX), toJson(S.BlockY), toJson(S.BlockZ)}},
            {"cooperative", S.Cooperative},
            {"line", S.Loc.Line},
            {"host_callers", S.HostCallers}};
    if (!S.Args.empty()) {
      json Args = json::array();
      for (const LaunchSite::Arg &A : S.Args) {
        json AJ{{"param", A.Param}, {"value", toJson(A.Value)}};
        if (A.Host)
          AJ["host"] = toJson(A.Host);
        if (A.CallDependent)
          AJ["call_dependent"] = true;
        if (A.OutTensor >= 0)
          AJ["out_tensor"] = A.OutTensor;
        Args.push_back(std::move(AJ));
      }
      LJ["args"] = Args;
    }
    if (S.Guard)
      LJ["guard"] = toJson(S.Guard);
    if (S.ParamCond)
      LJ["param_cond"] = toJson(S.ParamCond);
    if (S.HostCondKnown)
      LJ["host_cond"] = S.HostCond ? toJson(S.HostCond) : json(true);
    Launches.push_back(LJ);
  }
  json J{{"name", K.Name},      {"line", K.Loc.Line}, {"params", Params},
         {"loops", Loops},      {"events", Events},   {"shared", Shared},
         {"launches", Launches}};
  if (!K.DeviceVars.empty())
    J["device_vars"] = K.DeviceVars;
  if (!K.Notes.empty())
    J["notes"] = K.Notes;
  if (!K.LocalDefs.empty()) {
    json Defs = json::object();
    for (const auto &[Name, V] : K.LocalDefs)
      Defs[Name] = toJson(V);
    J["local_defs"] = std::move(Defs);
  }
  if (K.Facts.Done)
    J["facts"] = factsJson(K.Facts);
  return J;
}

json toJson(const HostOp &H) {
  json J{{"kind", toString(H.Kind)},
         {"callee", H.Callee},
         {"line", H.Loc.Line},
         {"col", H.Loc.Col}};
  if (!H.Target.empty())
    J["target"] = H.Target;
  if (!H.Args.empty())
    J["args"] = H.Args;
  J["depth"] = H.Depth;
  if (!H.Kernels.empty())
    J["kernels"] = H.Kernels;
  if (!H.Guards.empty())
    J["guards"] = H.Guards;
  if (!H.UniformGuards.empty())
    J["uniform_guards"] = H.UniformGuards;
  if (!H.ArgBuffers.empty())
    J["arg_buffers"] = H.ArgBuffers;
  if (H.SourceTensor >= 0)
    J["source_tensor"] = H.SourceTensor;
  if (H.Bytes)
    J["bytes"] = toJson(H.Bytes);
  if (H.AtBufferStart)
    J["at_buffer_start"] = true;
  return J;
}

json toJson(const ModuleModel &M) {
  json Kernels = json::array();
  for (const KernelModel &K : M.Kernels)
    Kernels.push_back(toJson(K));
  json Host = json::array();
  for (const HostOp &H : M.HostOps)
    Host.push_back(toJson(H));
  return json{{"schema", "pkbcheck-model/1"},
              {"file", M.File},
              {"kernels", Kernels},
              {"host_ops", Host}};
}

json toJson(const Finding &F) {
  json Rel = json::array();
  for (const RelatedEvent &R : F.Related)
    Rel.push_back(json{{"role", R.Role},
                       {"file", R.Loc.File},
                       {"line", R.Loc.Line},
                       {"col", R.Loc.Col},
                       {"text", R.Text}});
  json J{{"check", F.CheckId},   {"severity", toString(F.Sev)},
         {"kernel", F.Kernel},   {"file", F.Loc.File},
         {"line", F.Loc.Line},   {"col", F.Loc.Col},
         {"message", F.Message}, {"fix", F.FixHint},
         {"related", Rel}};
  if (!F.Witness.empty())
    J["witness"] = F.Witness;
  if (!F.AlsoIn.empty())
    J["also_in"] = F.AlsoIn;
  return J;
}

json toJson(const Diagnostic &D) {
  return json{{"code", D.Code},     {"severity", toString(D.Sev)},
              {"file", D.Loc.File}, {"line", D.Loc.Line},
              {"col", D.Loc.Col},   {"message", D.Message}};
}

std::string dumpJson(const json &J) {
  return J.dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace pkb
