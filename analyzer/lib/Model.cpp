//===- Model.cpp - Kernel model helpers -----------------------------------===//

#include "pkb/Model.h"
#include "pkb/Diagnostic.h"

#include <algorithm>

#include <fmt/format.h>

namespace pkb {

ExprRef Expr::constant(int64_t V) {
  auto E = std::make_shared<Expr>();
  E->Op = ExprOp::Const;
  E->Value = V;
  return E;
}

ExprRef Expr::var(std::string Name) {
  auto E = std::make_shared<Expr>();
  E->Op = ExprOp::Var;
  E->Name = std::move(Name);
  return E;
}

ExprRef Expr::opaque(std::string Text) {
  auto E = std::make_shared<Expr>();
  E->Op = ExprOp::Opaque;
  E->Name = std::move(Text);
  return E;
}

ExprRef Expr::unary(ExprOp Op, ExprRef A) {
  auto E = std::make_shared<Expr>();
  E->Op = Op;
  E->Ops.push_back(std::move(A));
  return E;
}

ExprRef Expr::binary(ExprOp Op, ExprRef A, ExprRef B) {
  auto E = std::make_shared<Expr>();
  E->Op = Op;
  E->Ops.push_back(std::move(A));
  E->Ops.push_back(std::move(B));
  return E;
}

ExprRef Expr::select(ExprRef C, ExprRef T, ExprRef F) {
  auto E = std::make_shared<Expr>();
  E->Op = ExprOp::Select;
  E->Ops = {std::move(C), std::move(T), std::move(F)};
  return E;
}

static const char *binarySpelling(ExprOp Op) {
  switch (Op) {
  case ExprOp::Add:
    return "+";
  case ExprOp::Sub:
    return "-";
  case ExprOp::Mul:
    return "*";
  case ExprOp::Div:
    return "/";
  case ExprOp::Rem:
    return "%";
  case ExprOp::Shl:
    return "<<";
  case ExprOp::Shr:
    return ">>";
  case ExprOp::And:
    return "&";
  case ExprOp::Or:
    return "|";
  case ExprOp::Xor:
    return "^";
  case ExprOp::LAnd:
    return "&&";
  case ExprOp::LOr:
    return "||";
  case ExprOp::Eq:
    return "==";
  case ExprOp::Ne:
    return "!=";
  case ExprOp::Lt:
    return "<";
  case ExprOp::Le:
    return "<=";
  case ExprOp::Gt:
    return ">";
  case ExprOp::Ge:
    return ">=";
  default:
    return nullptr;
  }
}

static std::string operand(const ExprRef &E) {
  if (!E)
    return "?";
  std::string S = E->str();
  bool Atomic = E->Op == ExprOp::Const || E->Op == ExprOp::Var ||
                E->Op == ExprOp::Opaque || E->Op == ExprOp::Min ||
                E->Op == ExprOp::Max;
  return Atomic ? S : "(" + S + ")";
}

std::string Expr::str() const {
  switch (Op) {
  case ExprOp::Const:
    return std::to_string(Value);
  case ExprOp::Var:
    return Name;
  case ExprOp::Opaque:
    return "opaque(" + Name + ")";
  case ExprOp::Min:
  case ExprOp::Max:
    return fmt::format("{}({}, {})", Op == ExprOp::Min ? "min" : "max",
                       Ops.size() > 0 && Ops[0] ? Ops[0]->str() : "?",
                       Ops.size() > 1 && Ops[1] ? Ops[1]->str() : "?");
  case ExprOp::Neg:
    return "-" + operand(Ops.empty() ? nullptr : Ops[0]);
  case ExprOp::Not:
    return "~" + operand(Ops.empty() ? nullptr : Ops[0]);
  case ExprOp::LNot:
    return "!" + operand(Ops.empty() ? nullptr : Ops[0]);
  case ExprOp::Select:
    return fmt::format("{} ? {} : {}",
                       operand(Ops.size() > 0 ? Ops[0] : nullptr),
                       operand(Ops.size() > 1 ? Ops[1] : nullptr),
                       operand(Ops.size() > 2 ? Ops[2] : nullptr));
  default:
    break;
  }
  const char *Sp = binarySpelling(Op);
  if (!Sp || Ops.size() != 2)
    return "?";
  return operand(Ops[0]) + " " + Sp + " " + operand(Ops[1]);
}

bool Expr::mentions(const std::string &VarName) const {
  if (Op == ExprOp::Var && Name == VarName)
    return true;
  for (const ExprRef &O : Ops)
    if (O && O->mentions(VarName))
      return true;
  return false;
}

bool Expr::hasOpaque() const {
  if (Op == ExprOp::Opaque)
    return true;
  for (const ExprRef &O : Ops)
    if (O && O->hasOpaque())
      return true;
  return false;
}

const Param *KernelModel::findParam(const std::string &N) const {
  for (const Param &P : Params)
    if (P.Name == N)
      return &P;
  return nullptr;
}

const Param *KernelModel::paramOf(const std::string &Base) const {
  if (const Param *P = findParam(Base))
    return P;
  size_t Dot = Base.find('.');
  return Dot == std::string::npos ? nullptr : findParam(Base.substr(0, Dot));
}

bool KernelModel::isSharedAccess(const Event &E) const {
  if (E.Addr.Space == AddrSpace::Shared)
    return true;
  for (const auto &SV : SharedVars)
    if (SV.first == E.Addr.Base)
      return true;
  return false;
}

bool KernelModel::isDeviceVarAccess(const Event &E) const {
  return E.Addr.Space == AddrSpace::Global &&
         std::find(DeviceVars.begin(), DeviceVars.end(), E.Addr.Base) !=
             DeviceVars.end();
}

const Loop *KernelModel::findLoop(unsigned Id) const {
  for (const Loop &L : Loops)
    if (L.Id == Id)
      return &L;
  return nullptr;
}

const char *toString(ParamRole R) {
  switch (R) {
  case ParamRole::Unknown:
    return "unknown";
  case ParamRole::LocalBuffer:
    return "local_buffer";
  case ParamRole::PeerTable:
    return "peer_table";
  case ParamRole::SignalPad:
    return "signal_pad";
  case ParamRole::SignalPadTable:
    return "signal_pad_table";
  case ParamRole::Rank:
    return "rank";
  case ParamRole::WorldSize:
    return "world_size";
  case ParamRole::ElementCount:
    return "element_count";
  case ParamRole::Context:
    return "context";
  case ParamRole::Scalar:
    return "scalar";
  case ParamRole::Epoch:
    return "epoch";
  case ParamRole::Multicast:
    return "multicast";
  }
  return "unknown";
}

const char *toString(Scope S) {
  switch (S) {
  case Scope::None:
    return "none";
  case Scope::CTA:
    return "cta";
  case Scope::Cluster:
    return "cluster";
  case Scope::GPU:
    return "gpu";
  case Scope::System:
    return "sys";
  }
  return "none";
}

const char *toString(MemOrder O) {
  switch (O) {
  case MemOrder::Plain:
    return "plain";
  case MemOrder::Volatile:
    return "volatile";
  case MemOrder::Relaxed:
    return "relaxed";
  case MemOrder::Acquire:
    return "acquire";
  case MemOrder::Release:
    return "release";
  case MemOrder::AcqRel:
    return "acq_rel";
  case MemOrder::SeqCst:
    return "seq_cst";
  }
  return "plain";
}

const char *toString(AddrSpace S) {
  switch (S) {
  case AddrSpace::Unknown:
    return "unknown";
  case AddrSpace::Global:
    return "global";
  case AddrSpace::Peer:
    return "peer";
  case AddrSpace::Shared:
    return "shared";
  case AddrSpace::Local:
    return "local";
  case AddrSpace::Multicast:
    return "multicast";
  }
  return "unknown";
}

const char *toString(EventKind K) {
  switch (K) {
  case EventKind::Load:
    return "load";
  case EventKind::Store:
    return "store";
  case EventKind::Atomic:
    return "atomic";
  case EventKind::Reduction:
    return "reduction";
  case EventKind::Fence:
    return "fence";
  case EventKind::Barrier:
    return "barrier";
  case EventKind::SpinWait:
    return "spin_wait";
  case EventKind::Return:
    return "return";
  case EventKind::Call:
    return "call";
  case EventKind::Opaque:
    return "opaque";
  case EventKind::BulkCopy:
    return "bulk_copy";
  }
  return "opaque";
}

const char *toString(BarrierKind K) {
  switch (K) {
  case BarrierKind::None:
    return "none";
  case BarrierKind::Warp:
    return "warp";
  case BarrierKind::Block:
    return "block";
  case BarrierKind::Cluster:
    return "cluster";
  case BarrierKind::Grid:
    return "grid";
  case BarrierKind::Named:
    return "named";
  }
  return "none";
}

namespace {
struct RmwName {
  RmwOp Op;
  const char *Name;
};
constexpr RmwName RmwNames[] = {
    {RmwOp::Add, "add"},  {RmwOp::Sub, "sub"}, {RmwOp::Exch, "exch"},
    {RmwOp::Cas, "cas"},  {RmwOp::Min, "min"}, {RmwOp::Max, "max"},
    {RmwOp::Inc, "inc"},  {RmwOp::Dec, "dec"}, {RmwOp::And, "and"},
    {RmwOp::Or, "or"},    {RmwOp::Xor, "xor"}, {RmwOp::Other, "other"},
    {RmwOp::None, "none"}};
struct CmpName {
  CmpOp Op;
  const char *Name;
};
constexpr CmpName CmpNames[] = {
    {CmpOp::Eq, "=="}, {CmpOp::Ne, "!="}, {CmpOp::Lt, "<"}, {CmpOp::Le, "<="},
    {CmpOp::Gt, ">"},  {CmpOp::Ge, ">="}, {CmpOp::None, ""}};
} // namespace

bool accessesMemory(EventKind K) {
  return K == EventKind::Load || K == EventKind::Store ||
         K == EventKind::Atomic || K == EventKind::Reduction ||
         K == EventKind::BulkCopy || K == EventKind::SpinWait;
}

bool writesMemory(EventKind K) {
  return K == EventKind::Store || K == EventKind::Atomic ||
         K == EventKind::Reduction || K == EventKind::BulkCopy;
}

bool sameAddress(const Address &A, const Address &B) {
  auto Key = [](const ExprRef &E) { return E ? E->str() : std::string("?"); };
  return A.Base == B.Base && Key(A.Peer) == Key(B.Peer) &&
         Key(A.Index) == Key(B.Index) && Key(A.ByteOffset) == Key(B.ByteOffset);
}

const char *toString(RmwOp O) {
  for (const RmwName &N : RmwNames)
    if (N.Op == O)
      return N.Name;
  return "none";
}

const char *toString(CmpOp O) {
  for (const CmpName &N : CmpNames)
    if (N.Op == O)
      return N.Name;
  return "";
}

RmwOp parseRmwOp(const std::string &S) {
  if (S.empty())
    return RmwOp::None;
  for (const RmwName &N : RmwNames)
    if (S == N.Name)
      return N.Op;
  return RmwOp::Other;
}

CmpOp parseCmpOp(const std::string &S) {
  for (const CmpName &N : CmpNames)
    if (S == N.Name)
      return N.Op;
  return CmpOp::None;
}

const char *toString(HostOp::OpKind K) {
  switch (K) {
  case HostOp::SymmAlloc:
    return "symm_alloc";
  case HostOp::Rendezvous:
    return "rendezvous";
  case HostOp::SymmWrite:
    return "symm_write";
  case HostOp::SymmRead:
    return "symm_read";
  case HostOp::Barrier:
    return "barrier";
  case HostOp::KernelCall:
    return "kernel_call";
  case HostOp::Collective:
    return "collective";
  case HostOp::Other:
    return "other";
  }
  return "other";
}

const char *toString(Severity S) {
  switch (S) {
  case Severity::Note:
    return "note";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  return "note";
}

} // namespace pkb
