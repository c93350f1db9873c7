//===- ModelDsl.h - Building kernel models by hand in tests -----*- C++ -*-===//
//
// A tiny DSL for hand-built KernelModels: expression helpers and a
// KernelBuilder that tracks the current guard and loop nest.
//
//===----------------------------------------------------------------------===//
#ifndef PKB_TESTS_MODELDSL_H
#define PKB_TESTS_MODELDSL_H

#include "pkb/Checker.h"
#include "pkb/Enrich.h"
#include "pkb/Model.h"

#include <string>
#include <vector>

namespace pkb {

inline ExprRef operator+(const ExprRef &A, const ExprRef &B) {
  return Expr::binary(ExprOp::Add, A, B);
}
inline ExprRef operator-(const ExprRef &A, const ExprRef &B) {
  return Expr::binary(ExprOp::Sub, A, B);
}
inline ExprRef operator*(const ExprRef &A, const ExprRef &B) {
  return Expr::binary(ExprOp::Mul, A, B);
}
inline ExprRef operator/(const ExprRef &A, const ExprRef &B) {
  return Expr::binary(ExprOp::Div, A, B);
}
inline ExprRef operator%(const ExprRef &A, const ExprRef &B) {
  return Expr::binary(ExprOp::Rem, A, B);
}

namespace dsl {

inline ExprRef c(int64_t V) { return Expr::constant(V); }
inline ExprRef v(const std::string &N) { return Expr::var(N); }
inline ExprRef lt(ExprRef A, ExprRef B) {
  return Expr::binary(ExprOp::Lt, A, B);
}
inline ExprRef ge(ExprRef A, ExprRef B) {
  return Expr::binary(ExprOp::Ge, A, B);
}
inline ExprRef eq(ExprRef A, ExprRef B) {
  return Expr::binary(ExprOp::Eq, A, B);
}
inline ExprRef ne(ExprRef A, ExprRef B) {
  return Expr::binary(ExprOp::Ne, A, B);
}
inline ExprRef lnot(ExprRef A) { return Expr::unary(ExprOp::LNot, A); }
inline ExprRef xor_(ExprRef A, ExprRef B) {
  return Expr::binary(ExprOp::Xor, A, B);
}
inline ExprRef min_(ExprRef A, ExprRef B) {
  return Expr::binary(ExprOp::Min, A, B);
}
inline ExprRef tid() { return v("tid.x"); }
inline ExprRef bid() { return v("bid.x"); }
inline ExprRef rank() { return v("rank"); }
inline ExprRef W() { return v("world_size"); }
inline ExprRef gtid() { return bid() * v("bdim.x") + tid(); }
inline ExprRef stride() { return v("gdim.x") * v("bdim.x"); }

inline Address addr(std::string Base, ExprRef Peer, ExprRef Index,
                    AddrSpace S = AddrSpace::Global) {
  Address A;
  A.Base = std::move(Base);
  A.Peer = std::move(Peer);
  A.Index = std::move(Index);
  A.Space = A.Peer ? AddrSpace::Peer : S;
  return A;
}

/// Builds one KernelModel in program order.
class KB {
public:
  explicit KB(std::string Name = "k") {
    K.Name = std::move(Name);
    K.Loc = {"test.cu", 1, 1};
  }
  KernelModel K;
  std::vector<ExprRef> Guard;
  std::vector<unsigned> Loops;

  KB &param(std::string N, ParamRole R, unsigned Elem = 0) {
    Param P;
    P.Name = std::move(N);
    P.Role = R;
    P.ElemBytes = Elem;
    K.Params.push_back(P);
    return *this;
  }
  /// The usual parameters: bufs (peer table of floats), pads (signal pad
  /// table), out (local floats), n (element count), epoch.
  KB &stdParams() {
    param("bufs", ParamRole::PeerTable, 4);
    param("pads", ParamRole::SignalPadTable, 4);
    param("out", ParamRole::LocalBuffer, 4);
    param("in", ParamRole::LocalBuffer, 4);
    param("n", ParamRole::ElementCount);
    param("epoch", ParamRole::Scalar);
    return *this;
  }
  KB &launch(int64_t Grid, int64_t Block, bool Coop = false) {
    LaunchSite L;
    L.Kernel = K.Name;
    L.GridX = dsl::c(Grid);
    L.BlockX = dsl::c(Block);
    L.Cooperative = Coop;
    K.Launches.push_back(L);
    return *this;
  }
  Event &add(EventKind Kd, unsigned Line) {
    Event E;
    E.Kind = Kd;
    E.Loc = {"test.cu", Line, 1};
    E.Guard = Guard;
    E.Loops = Loops;
    K.Events.push_back(E);
    return K.Events.back();
  }
  Event &mem(EventKind Kd, unsigned Line, Address A, unsigned Width = 4,
             MemOrder O = MemOrder::Plain, Scope S = Scope::None,
             ExprRef Val = nullptr) {
    Event &E = add(Kd, Line);
    E.Addr = std::move(A);
    E.Width = Width;
    E.Order = O;
    E.Scp = S;
    E.Value = std::move(Val);
    return E;
  }
  Event &load(unsigned Line, Address A, unsigned Width = 4) {
    return mem(EventKind::Load, Line, std::move(A), Width);
  }
  Event &store(unsigned Line, Address A, unsigned Width = 4) {
    return mem(EventKind::Store, Line, std::move(A), Width);
  }
  Event &sync(unsigned Line, BarrierKind B = BarrierKind::Block) {
    Event &E = add(EventKind::Barrier, Line);
    E.Barrier = B;
    return E;
  }
  Event &fence(unsigned Line, Scope S = Scope::System) {
    Event &E = add(EventKind::Fence, Line);
    E.Order = MemOrder::SeqCst;
    E.Scp = S;
    return E;
  }
  /// A spin-wait until polled >= Val (or CmpOp).
  Event &spin(unsigned Line, Address A, ExprRef Val,
              MemOrder O = MemOrder::Acquire, Scope S = Scope::System,
              const std::string &Cmp = ">=") {
    Event &E = mem(EventKind::SpinWait, Line, std::move(A), 4, O, S, Val);
    E.CompareOp = Cmp;
    ExprOp Op = Cmp == "=="   ? ExprOp::Eq
                : Cmp == "!=" ? ExprOp::Ne
                              : ExprOp::Ge;
    E.ExitCond = Expr::binary(Op, dsl::v("polled"), Val);
    return E;
  }
  unsigned beginLoop(ExprRef Init, ExprRef Bound, ExprRef Step,
                     std::string Name = "i") {
    Loop L;
    L.Id = static_cast<unsigned>(K.Loops.size()) + 1;
    L.InductionVar = std::move(Name);
    L.Init = std::move(Init);
    L.Bound = std::move(Bound);
    L.Step = std::move(Step);
    L.ParentId = Loops.empty() ? -1 : static_cast<int>(Loops.back());
    K.Loops.push_back(L);
    Loops.push_back(L.Id);
    return L.Id;
  }
  void endLoop() { Loops.pop_back(); }
  void when(ExprRef G) { Guard.push_back(std::move(G)); }
  void end() { Guard.pop_back(); }
  ExprRef lv(unsigned Id) { return dsl::v("loop:" + std::to_string(Id)); }

  /// The standard per-block cross-rank barrier: __syncthreads; threads
  /// t < W signal pads[t][b*8+rank] = Val (release.sys) and wait on
  /// pads[rank][b*8+t] >= Val (acquire.sys); __syncthreads.
  void barrier(unsigned Line, ExprRef Val, bool Release = true,
               bool Acquire = true) {
    sync(Line);
    when(lt(tid(), W()));
    mem(EventKind::Store, Line + 1, addr("pads", tid(), bid() * c(8) + rank()),
        4, Release ? MemOrder::Release : MemOrder::Volatile, Scope::System,
        Val);
    spin(Line + 2, addr("pads", rank(), bid() * c(8) + tid()), Val,
         Acquire ? MemOrder::Acquire : MemOrder::Volatile);
    end();
    sync(Line + 3);
  }

  /// The module of this kernel, enriched (pkb/Enrich.h) like the front
  /// end's models.
  ModuleModel module(std::string File = "test.cu") {
    ModuleModel M;
    M.File = std::move(File);
    M.Kernels.push_back(K);
    enrich(M);
    return M;
  }
};

} // namespace dsl
} // namespace pkb

#endif // PKB_TESTS_MODELDSL_H
