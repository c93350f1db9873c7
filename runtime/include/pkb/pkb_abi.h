/*===- pkb/pkb_abi.h - The pkbcheck candidate ABI -----------------*- C -*-===*
 *
 * A candidate is one .cu file compiled with
 *   nvcc -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC
 * that includes this header and exports the extern "C" functions declared at
 * the bottom. The harness (pkbcheck run) starts one worker process per rank,
 * builds the symmetric heap and signal pads, loads the candidate with dlopen
 * and calls pkb_candidate_setup once, then pkb_candidate_run once per call of
 * the operation. Full example: docs/candidate-abi.md.
 *
 * Vocabulary follows NCCL / torch symmetric memory: rank in [0, world_size),
 * a symmetric buffer has the same size on every rank and every rank can
 * address every peer's copy through a peer-pointer table; the signal pad is
 * a zeroed per-rank array of 32-bit flags that peers write with system-scope
 * release operations and its owner polls with system-scope acquire loads.
 *
 * The pkbcheck analyzer recognizes these types by name: a kernel parameter of
 * type pkb_peer_view (by value), or fields reached through it, get the roles
 * Rank, WorldSize, PeerTable and SignalPadTable with no annotation.
 *===----------------------------------------------------------------------===*/
#ifndef PKB_ABI_H
#define PKB_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** ABI version; bump on any incompatible change. */
#define PKB_ABI_VERSION 1
/** Largest world size the by-value peer view supports. */
#define PKB_MAX_RANKS 8
/** Largest number of symmetric buffers a candidate may request. */
#define PKB_MAX_SYMM_BUFFERS 8
/** Largest number of input or output tensors of one problem. */
#define PKB_MAX_TENSORS 8

/** Element types of tensors. */
typedef enum pkb_dtype {
  PKB_DTYPE_BF16 = 0,
  PKB_DTYPE_F16 = 1,
  PKB_DTYPE_F32 = 2,
  PKB_DTYPE_I32 = 3,
  PKB_DTYPE_I64 = 4,
  PKB_DTYPE_U8 = 5
} pkb_dtype;

/** A dense row-major device tensor of at most 4 dimensions. */
typedef struct pkb_tensor {
  void *data;        /**< device pointer on this rank's GPU */
  int32_t ndim;      /**< number of dimensions, 0..4 */
  int32_t dtype;     /**< a pkb_dtype */
  int64_t shape[4];  /**< extents; shape[i] for i >= ndim is 1 */
} pkb_tensor;

/** One symmetric buffer: same size on every rank, mapped on every rank. */
typedef struct pkb_symm_buffer {
  void *local;        /**< this rank's copy (== peers_host[rank]) */
  void **peers;       /**< device-resident table of world_size peer pointers */
  void **peers_host;  /**< host copy of the same table */
  size_t bytes;       /**< size of each rank's copy */
} pkb_symm_buffer;

/**
 * Passed to kernels by value: everything a kernel needs to reach its peers
 * without a device-side table lookup through host memory.
 *   peers[p]       = rank p's copy of symmetric buffer 0 (mapped here)
 *   signal_pads[p] = rank p's signal pad (mapped here)
 */
typedef struct pkb_peer_view {
  int32_t rank;
  int32_t world_size;
  void *peers[PKB_MAX_RANKS];
  uint32_t *signal_pads[PKB_MAX_RANKS];
} pkb_peer_view;

/** What a candidate asks for in pkb_candidate_setup. */
typedef struct pkb_requirements {
  int32_t num_symm_buffers;                     /**< 0..PKB_MAX_SYMM_BUFFERS */
  size_t symm_bytes[PKB_MAX_SYMM_BUFFERS];      /**< bytes per rank each */
  size_t workspace_bytes;                       /**< local scratch memory */
} pkb_requirements;

/** The per-rank context. Owned by the harness; valid until the worker exits. */
typedef struct pkb_context {
  int32_t abi_version;  /**< PKB_ABI_VERSION */
  int32_t rank;
  int32_t world_size;
  int32_t device;       /**< CUDA device ordinal of this rank */
  void *stream;         /**< cudaStream_t on which every call must run */
  /** Symmetric buffers, filled after setup from pkb_requirements. */
  int32_t num_symm_buffers;
  pkb_symm_buffer symm[PKB_MAX_SYMM_BUFFERS];
  /** Signal pad of this rank: zeroed once before the first call, never
   *  re-zeroed by the harness between calls (use epochs). */
  uint32_t *signal_pad;
  uint32_t **signal_pads;       /**< device table of all ranks' pads */
  size_t signal_pad_bytes;
  /** Local scratch (not symmetric). */
  void *workspace;
  size_t workspace_bytes;
  /** A ready by-value view (peers = symm[0], signal_pads). */
  pkb_peer_view view;
  /** Number of pkb_candidate_run calls made so far (0 for the first). */
  uint64_t call_index;
  /** Problem id and name (e.g. 1, "allreduce") and problem size (elements
   *  or rows, see docs/problems.md). */
  int32_t problem_id;
  const char *problem_name;
  int64_t size;
} pkb_context;

/**
 * Called once per rank before any symmetric allocation. Fill *req; return 0
 * on success, non-zero to report a setup error. `inputs`/`outputs` give the
 * shapes of the largest call the harness will make (data pointers are NULL).
 */
typedef int (*pkb_query_fn)(const pkb_context *ctx, const pkb_tensor *inputs,
                            int num_inputs, const pkb_tensor *outputs,
                            int num_outputs, pkb_requirements *req);

/** Called once per rank after the symmetric heap is mapped. 0 = success. */
typedef int (*pkb_setup_fn)(pkb_context *ctx);

/**
 * One call of the operation: read `inputs`, write `outputs`, on ctx->stream,
 * asynchronously (no host synchronization needed or wanted). Return 0 on
 * success. Must be callable back-to-back with no host synchronization.
 */
typedef int (*pkb_run_fn)(pkb_context *ctx, const pkb_tensor *inputs,
                          int num_inputs, pkb_tensor *outputs, int num_outputs);

/** Optional: called once before the worker exits. */
typedef void (*pkb_teardown_fn)(pkb_context *ctx);

/* Exported symbol names. pkb_candidate_query and pkb_candidate_teardown are
 * optional; pkb_candidate_setup and pkb_candidate_run are required. */
#define PKB_QUERY_SYMBOL "pkb_candidate_query"
#define PKB_SETUP_SYMBOL "pkb_candidate_setup"
#define PKB_RUN_SYMBOL "pkb_candidate_run"
#define PKB_TEARDOWN_SYMBOL "pkb_candidate_teardown"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PKB_ABI_H */
