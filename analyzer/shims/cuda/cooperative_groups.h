// pkbcheck shim: the cooperative groups API (CUDA C++ Programming Guide,
// "Cooperative Groups"). The front end recognizes `sync()` on grid_group
// (grid barrier), thread_block (CTA barrier), cluster_group (cluster barrier)
// and thread_block_tile / coalesced_group (warp barrier) by class name.
#ifndef PKB_SHIM_COOPERATIVE_GROUPS_H
#define PKB_SHIM_COOPERATIVE_GROUPS_H
#include "cuda_runtime.h"

namespace cooperative_groups {
class thread_group {
public:
  __device__ void sync() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
};

class thread_block : public thread_group {
public:
  __device__ void sync() const;
  __device__ dim3 group_index() const;
  __device__ dim3 thread_index() const;
  __device__ dim3 dim_threads() const;
  __device__ dim3 group_dim() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
};

class grid_group {
public:
  __device__ void sync() const;
  __device__ bool is_valid() const;
  __device__ unsigned long long size() const;
  __device__ unsigned long long num_threads() const;
  __device__ unsigned long long thread_rank() const;
  __device__ unsigned long long num_blocks() const;
  __device__ unsigned long long block_rank() const;
  __device__ dim3 block_index() const;
  __device__ dim3 group_dim() const;
  __device__ dim3 dim_blocks() const;
};

class cluster_group {
public:
  __device__ void sync() const;
  __device__ void barrier_arrive() const;
  __device__ void barrier_wait() const;
  __device__ unsigned int block_rank() const;
  __device__ unsigned int num_blocks() const;
  __device__ unsigned int size() const;
  __device__ unsigned int thread_rank() const;
  __device__ dim3 block_index() const;
  template <class T> __device__ T *map_shared_rank(T *addr, int rank) const;
  __device__ unsigned int query_shared_rank(const void *addr) const;
};

class coalesced_group : public thread_group {
public:
  __device__ void sync() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
  template <class T> __device__ T shfl(T var, unsigned int src) const;
  template <class T> __device__ T shfl_down(T var, unsigned int d) const;
  template <class T> __device__ T shfl_up(T var, unsigned int d) const;
  __device__ unsigned int ballot(int pred) const;
  __device__ int any(int pred) const;
  __device__ int all(int pred) const;
};

template <unsigned int Size, class Parent = void>
class thread_block_tile : public thread_group {
public:
  __device__ void sync() const;
  __device__ unsigned int size() const;
  __device__ unsigned int num_threads() const;
  __device__ unsigned int thread_rank() const;
  __device__ unsigned int meta_group_rank() const;
  __device__ unsigned int meta_group_size() const;
  template <class T> __device__ T shfl(T var, int src) const;
  template <class T> __device__ T shfl_down(T var, unsigned int d) const;
  template <class T> __device__ T shfl_up(T var, unsigned int d) const;
  template <class T> __device__ T shfl_xor(T var, unsigned int m) const;
  __device__ unsigned int ballot(int pred) const;
  __device__ int any(int pred) const;
  __device__ int all(int pred) const;
  __device__ unsigned int match_any(unsigned int v) const;
};

__device__ thread_block this_thread_block();
__device__ grid_group this_grid();
__device__ cluster_group this_cluster();
__device__ coalesced_group coalesced_threads();
template <unsigned int Size, class ParentT>
__device__ thread_block_tile<Size> tiled_partition(const ParentT &);
__device__ thread_group tiled_partition(const thread_group &, unsigned int);
template <class Group> __device__ void sync(const Group &g) { g.sync(); }
template <class Group> __device__ unsigned long long group_size(const Group &g);
template <class Group>
__device__ unsigned long long thread_rank(const Group &g);

template <class T> struct plus {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    return a + b;
  }
};
template <class T> struct less {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    return a < b ? a : b;
  }
};
template <class T> struct greater {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    return a > b ? a : b;
  }
};
template <class T> struct bit_and {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    return a & b;
  }
};
template <class T> struct bit_or {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    return a | b;
  }
};
template <class T> struct bit_xor {
  __host__ __device__ T operator()(const T &a, const T &b) const {
    return a ^ b;
  }
};
template <class Group, class T, class Op>
__device__ T reduce(const Group &g, T value, Op op);
template <class Group, class T, class Op>
__device__ T inclusive_scan(const Group &g, T value, Op op);
template <class Group, class T, class Op>
__device__ T exclusive_scan(const Group &g, T value, Op op);
template <class Group> __device__ void wait(const Group &g);
template <class Group, class T>
__device__ void memcpy_async(const Group &g, T *dst, const T *src,
                             size_t bytes);
} // namespace cooperative_groups

#endif // PKB_SHIM_COOPERATIVE_GROUPS_H
