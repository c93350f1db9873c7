// DELIBERATELY BROKEN (expected verdict: compile-error): a type error.
#include <pkb/pkb_abi.h>

extern "C" int pkb_candidate_setup(pkb_context *Ctx) {
  return Ctx->no_such_field;
}

extern "C" int pkb_candidate_run(pkb_context *Ctx, const pkb_tensor *In,
                                 int NumIn, pkb_tensor *Out, int NumOut) {
  return 0;
}
