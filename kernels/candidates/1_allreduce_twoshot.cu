// PKB problem 1, bf16 sum all-reduce: the two-shot variant of
// 1_allreduce_push.cu (reduce-scatter + all-gather through peer stores) at
// every size and W. Same source, with the two-shot path forced.
#define PKB_FORCE_TWOSHOT 1
#include "1_allreduce_push.cu"
