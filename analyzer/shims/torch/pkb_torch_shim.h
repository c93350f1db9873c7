// pkbcheck shim: the subset of PyTorch's C++ extension API (torch/extension.h,
// ATen, c10, c10d symmetric memory) and pybind11 that model-generated CUDA
// extensions use, so that `load_inline` sources parse without PyTorch.
// Declarations only; most member functions are variadic templates so that any
// reasonable call spelling type-checks. Never linked, never executed.
#ifndef PKB_SHIM_TORCH_H
#define PKB_SHIM_TORCH_H

#include <cuda_runtime.h>

#include <cassert> // real torch headers bring it (c10/util/Exception.h)
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#ifndef TORCH_EXTENSION_NAME
#define TORCH_EXTENSION_NAME pkb_extension
#endif
#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__
#define C10_HOST __host__
#define C10_INLINE inline
#define C10_ALWAYS_INLINE inline
#define C10_UNUSED __attribute__((unused))
#define C10_LIKELY(x) (x)
#define C10_UNLIKELY(x) (x)
#define C10_WARP_SIZE 32
#define C10_LAUNCH_BOUNDS_0 __launch_bounds__(1024)
#define C10_LAUNCH_BOUNDS_1(m) __launch_bounds__(m)
#define C10_LAUNCH_BOUNDS_2(m, n) __launch_bounds__(m, n)

namespace c10 {
enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Meta = 9 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;

enum class ScalarType : int8_t {
  Byte = 0,
  Char = 1,
  Short = 2,
  Int = 3,
  Long = 4,
  Half = 5,
  Float = 6,
  Double = 7,
  Bool = 11,
  BFloat16 = 15,
  Float8_e5m2 = 23,
  Float8_e4m3fn = 24,
  UInt16 = 27,
  UInt32 = 28,
  UInt64 = 29,
  Undefined = 100
};
enum class Layout : int8_t { Strided = 0 };
enum class MemoryFormat : int8_t { Contiguous = 0, Preserve = 1 };

/// 16-bit float storage types usable on host and device.
struct alignas(2) Half {
  unsigned short x;
  Half() = default;
  C10_HOST_DEVICE Half(float);
  C10_HOST_DEVICE operator float() const;
};
struct alignas(2) BFloat16 {
  unsigned short x;
  BFloat16() = default;
  C10_HOST_DEVICE BFloat16(float);
  C10_HOST_DEVICE operator float() const;
};
struct alignas(1) Float8_e4m3fn {
  unsigned char x;
  Float8_e4m3fn() = default;
  C10_HOST_DEVICE Float8_e4m3fn(float);
  C10_HOST_DEVICE operator float() const;
};
struct alignas(1) Float8_e5m2 {
  unsigned char x;
  Float8_e5m2() = default;
  C10_HOST_DEVICE Float8_e5m2(float);
  C10_HOST_DEVICE operator float() const;
};

namespace impl {
template <ScalarType S> struct ScalarTypeToCPPType;
#define PKB_ST2CPP(S, T)                                                       \
  template <> struct ScalarTypeToCPPType<ScalarType::S> {                      \
    using type = T;                                                            \
  };
PKB_ST2CPP(Byte, uint8_t)
PKB_ST2CPP(Char, int8_t)
PKB_ST2CPP(Short, int16_t)
PKB_ST2CPP(Int, int32_t)
PKB_ST2CPP(Long, int64_t)
PKB_ST2CPP(Half, ::c10::Half)
PKB_ST2CPP(Float, float)
PKB_ST2CPP(Double, double)
PKB_ST2CPP(Bool, bool)
PKB_ST2CPP(BFloat16, ::c10::BFloat16)
PKB_ST2CPP(Float8_e5m2, ::c10::Float8_e5m2)
PKB_ST2CPP(Float8_e4m3fn, ::c10::Float8_e4m3fn)
PKB_ST2CPP(UInt16, uint16_t)
PKB_ST2CPP(UInt32, uint32_t)
PKB_ST2CPP(UInt64, uint64_t)
#undef PKB_ST2CPP
} // namespace impl

struct Device {
  Device(DeviceType t = DeviceType::CPU, int index = -1);
  Device(const std::string &);
  Device(const char *);
  int index() const;
  DeviceType type() const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool has_index() const;
  std::string str() const;
};

/// Stand-in for caffe2::TypeMeta: compares with ScalarType.
struct TypeMeta {
  TypeMeta(ScalarType = ScalarType::Float);
  operator ScalarType() const;
  size_t itemsize() const;
  const char *name() const;
};
bool operator==(const TypeMeta &, ScalarType);
bool operator!=(const TypeMeta &, ScalarType);

struct Scalar {
  Scalar(double);
  Scalar(float);
  Scalar(int);
  Scalar(long);
  Scalar(long long);
  Scalar(unsigned);
  Scalar(unsigned long);
  Scalar(bool);
  Scalar(Half);
  Scalar(BFloat16);
  template <class T> T to() const;
  double toDouble() const;
  int64_t toLong() const;
};

template <class T> struct ArrayRef {
  ArrayRef();
  ArrayRef(const T &);
  ArrayRef(const T *, size_t);
  ArrayRef(const std::vector<T> &);
  ArrayRef(std::initializer_list<T>);
  template <size_t N> ArrayRef(const T (&)[N]);
  const T *begin() const;
  const T *end() const;
  const T *data() const;
  size_t size() const;
  bool empty() const;
  const T &operator[](size_t) const;
  std::vector<T> vec() const;
};
using IntArrayRef = ArrayRef<int64_t>;
using SymIntArrayRef = ArrayRef<int64_t>;

template <class T> using optional = std::optional<T>;
using std::nullopt;

/// c10::intrusive_ptr: a shared pointer with make_intrusive.
template <class T> using intrusive_ptr = std::shared_ptr<T>;
template <class T, class... A> intrusive_ptr<T> make_intrusive(A &&...a);

struct Stream {
  Device device() const;
  int64_t id() const;
};

namespace cuda {
/// A CUDA stream; converts to cudaStream_t.
struct CUDAStream {
  CUDAStream();
  operator cudaStream_t() const;
  cudaStream_t stream() const;
  Device device() const;
  int device_index() const;
  void synchronize() const;
  bool query() const;
  operator Stream() const;
};
CUDAStream getCurrentCUDAStream(int device = -1);
CUDAStream getDefaultCUDAStream(int device = -1);
CUDAStream getStreamFromPool(bool highPriority = false, int device = -1);
void setCurrentCUDAStream(CUDAStream);
int current_device();
int device_count();
void set_device(int);
void device_synchronize();

struct CUDAGuard {
  explicit CUDAGuard(Device);
  explicit CUDAGuard(int);
  void set_device(Device);
  void set_index(int);
  Device original_device() const;
  Device current_device() const;
};
struct OptionalCUDAGuard {
  OptionalCUDAGuard();
  explicit OptionalCUDAGuard(Device);
  explicit OptionalCUDAGuard(std::optional<Device>);
  explicit OptionalCUDAGuard(int);
  void set_device(Device);
  void set_index(int);
  void reset();
};
struct CUDAStreamGuard {
  explicit CUDAStreamGuard(Stream);
  explicit CUDAStreamGuard(CUDAStream);
};
struct OptionalCUDAStreamGuard {
  OptionalCUDAStreamGuard();
  explicit OptionalCUDAStreamGuard(CUDAStream);
};
} // namespace cuda

namespace detail {
template <class... A> [[noreturn]] void torchCheckFail(const A &...);
} // namespace detail

/// Thrown by TORCH_CHECK.
struct Error {
  const char *what() const noexcept;
};
} // namespace c10

namespace at {
using c10::ArrayRef;
using c10::BFloat16;
using c10::Device;
using c10::DeviceType;
using c10::Half;
using c10::IntArrayRef;
using c10::kCPU;
using c10::kCUDA;
using c10::Layout;
using c10::MemoryFormat;
using c10::optional;
using c10::Scalar;
using c10::ScalarType;
using c10::TypeMeta;

constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kUInt8 = ScalarType::Byte;
constexpr ScalarType kInt8 = ScalarType::Char;
constexpr ScalarType kInt16 = ScalarType::Short;
constexpr ScalarType kInt32 = ScalarType::Int;
constexpr ScalarType kInt64 = ScalarType::Long;
constexpr ScalarType kUInt16 = ScalarType::UInt16;
constexpr ScalarType kUInt32 = ScalarType::UInt32;
constexpr ScalarType kUInt64 = ScalarType::UInt64;
constexpr ScalarType kFloat16 = ScalarType::Half;
constexpr ScalarType kFloat32 = ScalarType::Float;
constexpr ScalarType kFloat64 = ScalarType::Double;
constexpr ScalarType kFloat8_e4m3fn = ScalarType::Float8_e4m3fn;
constexpr ScalarType kFloat8_e5m2 = ScalarType::Float8_e5m2;
constexpr Layout kStrided = Layout::Strided;

size_t elementSize(ScalarType);
const char *toString(ScalarType);

struct TensorOptions {
  TensorOptions();
  TensorOptions(ScalarType);
  TensorOptions(Device);
  TensorOptions(DeviceType);
  TensorOptions dtype(ScalarType) const;
  TensorOptions dtype(TypeMeta) const;
  template <class T> TensorOptions dtype() const;
  TensorOptions device(Device) const;
  TensorOptions device(DeviceType, int = -1) const;
  TensorOptions layout(Layout) const;
  TensorOptions requires_grad(bool = true) const;
  TensorOptions pinned_memory(bool = true) const;
  TensorOptions memory_format(MemoryFormat) const;
  Device device() const;
  TypeMeta dtype() const;
};

template <class T, size_t N> struct TensorAccessor {
  C10_HOST_DEVICE TensorAccessor<T, N - 1> operator[](int64_t) const;
  C10_HOST_DEVICE int64_t size(int64_t) const;
  C10_HOST_DEVICE int64_t stride(int64_t) const;
  C10_HOST_DEVICE T *data() const;
};
template <class T> struct TensorAccessor<T, 1> {
  C10_HOST_DEVICE T &operator[](int64_t) const;
  C10_HOST_DEVICE int64_t size(int64_t) const;
  C10_HOST_DEVICE int64_t stride(int64_t) const;
  C10_HOST_DEVICE T *data() const;
};
template <class T> struct DefaultPtrTraits {
  typedef T *PtrType;
};
template <class T> struct RestrictPtrTraits {
  typedef T *__restrict__ PtrType;
};
template <class T, size_t N, template <class> class PtrTraits = DefaultPtrTraits,
          class index_t = int64_t>
struct GenericPackedTensorAccessor {
  C10_HOST_DEVICE TensorAccessor<T, N - 1> operator[](index_t) const;
  C10_HOST_DEVICE index_t size(index_t) const;
  C10_HOST_DEVICE index_t stride(index_t) const;
  C10_HOST_DEVICE T *data() const;
};
template <class T, template <class> class PtrTraits, class index_t>
struct GenericPackedTensorAccessor<T, 1, PtrTraits, index_t> {
  C10_HOST_DEVICE T &operator[](index_t) const;
  C10_HOST_DEVICE index_t size(index_t) const;
  C10_HOST_DEVICE index_t stride(index_t) const;
  C10_HOST_DEVICE T *data() const;
};
template <class T, size_t N, template <class> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 =
    GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <class T, size_t N, template <class> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 =
    GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;

/// at::Tensor: the methods extension code calls on tensors.
class Tensor {
public:
  Tensor();
  template <class T = void> T *data_ptr() const;
  template <class T = void> const T *const_data_ptr() const;
  template <class T = void> T *mutable_data_ptr() const;
  void *storage_offset_ptr() const;
  int64_t numel() const;
  int64_t size(int64_t) const;
  int64_t stride(int64_t) const;
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
  int64_t dim() const;
  int64_t ndimension() const;
  int64_t element_size() const;
  size_t nbytes() const;
  int64_t storage_offset() const;
  TensorOptions options() const;
  ScalarType scalar_type() const;
  TypeMeta dtype() const;
  Device device() const;
  Layout layout() const;
  bool defined() const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool is_contiguous(MemoryFormat = MemoryFormat::Contiguous) const;
  bool is_floating_point() const;
  bool requires_grad() const;
  int64_t get_device() const;
  template <class T> T item() const;
  Scalar item() const;
  template <class T, size_t N> TensorAccessor<T, N> accessor() const;
  template <class T, size_t N, template <class> class PT = DefaultPtrTraits,
            class I = int64_t>
  GenericPackedTensorAccessor<T, N, PT, I> packed_accessor() const;
  template <class T, size_t N, template <class> class PT = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PT> packed_accessor32() const;
  template <class T, size_t N, template <class> class PT = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PT> packed_accessor64() const;
  template <class... A> Tensor contiguous(A &&...) const;
  template <class... A> Tensor view(A &&...) const;
  template <class... A> Tensor reshape(A &&...) const;
  template <class... A> Tensor to(A &&...) const;
  template <class... A> Tensor narrow(A &&...) const;
  template <class... A> Tensor slice(A &&...) const;
  template <class... A> Tensor select(A &&...) const;
  template <class... A> Tensor index(A &&...) const;
  template <class... A> Tensor flatten(A &&...) const;
  template <class... A> Tensor transpose(A &&...) const;
  template <class... A> Tensor permute(A &&...) const;
  template <class... A> Tensor expand(A &&...) const;
  template <class... A> Tensor unsqueeze(A &&...) const;
  template <class... A> Tensor squeeze(A &&...) const;
  template <class... A> Tensor sum(A &&...) const;
  template <class... A> Tensor mean(A &&...) const;
  template <class... A> Tensor max(A &&...) const;
  template <class... A> Tensor min(A &&...) const;
  template <class... A> Tensor abs(A &&...) const;
  template <class... A> Tensor chunk(A &&...) const;
  template <class... A> Tensor matmul(A &&...) const;
  template <class... A> Tensor mm(A &&...) const;
  template <class... A> Tensor add(A &&...) const;
  template <class... A> Tensor mul(A &&...) const;
  template <class... A> Tensor div(A &&...) const;
  template <class... A> Tensor type_as(A &&...) const;
  template <class... A> Tensor &copy_(A &&...);
  template <class... A> Tensor &fill_(A &&...);
  template <class... A> Tensor &add_(A &&...);
  template <class... A> Tensor &mul_(A &&...);
  template <class... A> Tensor &div_(A &&...);
  template <class... A> Tensor &index_put_(A &&...);
  template <class... A> std::vector<Tensor> split(A &&...) const;
  Tensor &zero_();
  Tensor clone() const;
  Tensor cuda() const;
  Tensor cpu() const;
  Tensor t() const;
  Tensor detach() const;
  Tensor float_() const;
  Tensor operator[](int64_t) const;
  Tensor operator-() const;
  Tensor &operator+=(const Tensor &);
  Tensor &operator+=(const Scalar &);
  Tensor &operator-=(const Tensor &);
  Tensor &operator*=(const Tensor &);
  Tensor &operator*=(const Scalar &);
  Tensor &operator/=(const Tensor &);
  Tensor &operator/=(const Scalar &);
  Tensor &operator=(const Scalar &);
  Tensor &operator=(const Tensor &);
  Tensor(const Tensor &);
  Tensor(Tensor &&);
  Tensor &operator=(Tensor &&);
  ~Tensor();
};
Tensor operator+(const Tensor &, const Tensor &);
Tensor operator-(const Tensor &, const Tensor &);
Tensor operator*(const Tensor &, const Tensor &);
Tensor operator/(const Tensor &, const Tensor &);
Tensor operator+(const Tensor &, const Scalar &);
Tensor operator-(const Tensor &, const Scalar &);
Tensor operator*(const Tensor &, const Scalar &);
Tensor operator/(const Tensor &, const Scalar &);
Tensor operator*(const Scalar &, const Tensor &);

// Factory and functional operations (torch:: and at::).
template <class... A> Tensor empty(A &&...);
template <class... A> Tensor empty_like(A &&...);
template <class... A> Tensor empty_strided(A &&...);
template <class... A> Tensor zeros(A &&...);
template <class... A> Tensor zeros_like(A &&...);
template <class... A> Tensor ones(A &&...);
template <class... A> Tensor ones_like(A &&...);
template <class... A> Tensor full(A &&...);
template <class... A> Tensor full_like(A &&...);
template <class... A> Tensor arange(A &&...);
template <class... A> Tensor rand(A &&...);
template <class... A> Tensor randn(A &&...);
template <class... A> Tensor from_blob(A &&...);
template <class... A> Tensor cat(A &&...);
template <class... A> Tensor stack(A &&...);
template <class... A> Tensor matmul(A &&...);
template <class... A> Tensor mm(A &&...);
template <class... A> Tensor bmm(A &&...);
template <class... A> Tensor addmm(A &&...);
template <class... A> Tensor softmax(A &&...);
template <class... A> Tensor relu(A &&...);
template <class... A> Tensor gelu(A &&...);
template <class... A> Tensor silu(A &&...);
template <class... A> Tensor sigmoid(A &&...);
template <class... A> Tensor tanh(A &&...);
template <class... A> Tensor exp(A &&...);
template <class... A> Tensor sum(A &&...);
template <class... A> Tensor mean(A &&...);
template <class... A> Tensor linear(A &&...);
template <class... A> Tensor layer_norm(A &&...);
template <class... A> Tensor rms_norm(A &&...);
template <class... A> Tensor where(A &&...);
template <class... A> Tensor allclose(A &&...);

namespace cuda {
using c10::cuda::CUDAStream;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromPool;
using c10::cuda::setCurrentCUDAStream;
using CUDAStreamGuard = c10::cuda::CUDAStreamGuard;
using CUDAGuard = c10::cuda::CUDAGuard;
using OptionalCUDAGuard = c10::cuda::OptionalCUDAGuard;
using OptionalCUDAStreamGuard = c10::cuda::OptionalCUDAStreamGuard;
using c10::cuda::device_count;
cudaDeviceProp *getCurrentDeviceProperties();
cudaDeviceProp *getDeviceProperties(int);
int warp_size();
struct CUDAEvent {
  CUDAEvent(unsigned int flags = 0);
  void record();
  void record(const CUDAStream &);
  void block(const CUDAStream &);
  void synchronize() const;
  float elapsed_time(const CUDAEvent &) const;
};
} // namespace cuda
} // namespace at

namespace torch {
using namespace at;
using at::Tensor;
using c10::Device;
using c10::DeviceType;
using c10::ScalarType;
using c10::optional;
using Dtype = c10::ScalarType;
namespace autograd {
using at::Tensor;
} // namespace autograd
/// torch::Library for TORCH_LIBRARY blocks.
struct Library {
  template <class... A> Library &def(A &&...);
  template <class... A> Library &impl(A &&...);
};
template <class F> F dispatch(c10::DeviceType, F &&f);
} // namespace torch

namespace caffe2 {
using TypeMeta = c10::TypeMeta;
} // namespace caffe2

namespace c10d {
namespace symmetric_memory {
/// torch.distributed._symmetric_memory handle (SymmetricMemory.hpp).
class SymmetricMemory {
public:
  virtual ~SymmetricMemory();
  std::vector<void *> get_buffer_ptrs();
  std::vector<void *> get_signal_pad_ptrs();
  void **get_buffer_ptrs_dev();
  void **get_signal_pad_ptrs_dev();
  void *get_multicast_ptr();
  size_t get_buffer_size();
  size_t get_signal_pad_size();
  bool has_multicast_support();
  int get_rank();
  int get_world_size();
  at::Tensor get_buffer(int rank, c10::IntArrayRef sizes, c10::ScalarType dtype,
                        int64_t storage_offset = 0);
  at::Tensor get_signal_pad(int rank, c10::IntArrayRef sizes = {},
                            std::optional<c10::ScalarType> dtype = {},
                            int64_t storage_offset = 0);
  void barrier(int channel = 0, size_t timeout_ms = 0);
  void put_signal(int dst_rank, int channel = 0, size_t timeout_ms = 0);
  void wait_signal(int src_rank, int channel = 0, size_t timeout_ms = 0);
};
c10::intrusive_ptr<SymmetricMemory>
rendezvous(const at::Tensor &tensor,
           const std::optional<std::string> &group_name = std::nullopt);
at::Tensor empty_strided_p2p(c10::IntArrayRef size, c10::IntArrayRef stride,
                             c10::ScalarType dtype, c10::Device device,
                             const std::optional<std::string> &group_name,
                             std::optional<uint64_t> alloc_id);
bool has_multicast_support(c10::DeviceType, int device_idx);
} // namespace symmetric_memory
} // namespace c10d

// Error checking macros (c10/util/Exception.h, c10/cuda/CUDAException.h).
#define TORCH_CHECK(cond, ...)                                                 \
  ((cond) ? (void)0 : ::c10::detail::torchCheckFail(__VA_ARGS__))
#define TORCH_CHECK_VALUE(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_EQ(a, b) TORCH_CHECK((a) == (b))
#define TORCH_CHECK_NE(a, b) TORCH_CHECK((a) != (b))
#define TORCH_CHECK_LE(a, b) TORCH_CHECK((a) <= (b))
#define TORCH_CHECK_LT(a, b) TORCH_CHECK((a) < (b))
#define TORCH_CHECK_GE(a, b) TORCH_CHECK((a) >= (b))
#define TORCH_CHECK_GT(a, b) TORCH_CHECK((a) > (b))
#define TORCH_INTERNAL_ASSERT(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(cond, ...) ((void)0)
#define TORCH_WARN(...) ((void)0)
#define TORCH_WARN_ONCE(...) ((void)0)
#define AT_ERROR(...) ::c10::detail::torchCheckFail(__VA_ARGS__)
#define AT_ASSERT(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define AT_ASSERTM(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define C10_CUDA_CHECK(expr) ((void)(expr))
#define C10_CUDA_CHECK_WARN(expr) ((void)(expr))
#define C10_CUDA_KERNEL_LAUNCH_CHECK() ((void)0)
#define AT_CUDA_CHECK(expr) ((void)(expr))
#define AT_CUDA_DRIVER_CHECK(expr) ((void)(expr))
#define CHECK_CUDA(x) TORCH_CHECK((x).is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x)                                                    \
  TORCH_CHECK((x).is_contiguous(), #x " must be contiguous")

// Type dispatch (ATen/Dispatch.h): each case binds scalar_t and calls the
// lambda, so kernel templates launched inside get instantiated for each type.
#define PKB_DISPATCH_CASE(ST, ...)                                             \
  case ST: {                                                                   \
    using scalar_t [[maybe_unused]] =                                          \
        typename ::c10::impl::ScalarTypeToCPPType<ST>::type;                   \
    return __VA_ARGS__();                                                      \
  }
#define PKB_DISPATCH_SWITCH(TYPE, CASES)                                       \
  [&] {                                                                        \
    switch (static_cast<::c10::ScalarType>(TYPE)) {                            \
      CASES                                                                    \
    default:                                                                   \
      ::c10::detail::torchCheckFail("unsupported dtype");                      \
    }                                                                          \
  }()
#define AT_DISPATCH_CASE(ST, ...) PKB_DISPATCH_CASE(ST, __VA_ARGS__)
#define AT_DISPATCH_SWITCH(TYPE, NAME, ...) PKB_DISPATCH_SWITCH(TYPE, __VA_ARGS__)
#define PKB_FLOAT_CASES(...)                                                   \
  PKB_DISPATCH_CASE(::c10::ScalarType::Double, __VA_ARGS__)                    \
  PKB_DISPATCH_CASE(::c10::ScalarType::Float, __VA_ARGS__)
#define PKB_INT_CASES(...)                                                     \
  PKB_DISPATCH_CASE(::c10::ScalarType::Byte, __VA_ARGS__)                      \
  PKB_DISPATCH_CASE(::c10::ScalarType::Char, __VA_ARGS__)                      \
  PKB_DISPATCH_CASE(::c10::ScalarType::Short, __VA_ARGS__)                     \
  PKB_DISPATCH_CASE(::c10::ScalarType::Int, __VA_ARGS__)                       \
  PKB_DISPATCH_CASE(::c10::ScalarType::Long, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...)                            \
  PKB_DISPATCH_SWITCH(TYPE, PKB_FLOAT_CASES(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...)                   \
  PKB_DISPATCH_SWITCH(TYPE, PKB_FLOAT_CASES(__VA_ARGS__) PKB_DISPATCH_CASE(    \
                                ::c10::ScalarType::Half, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND(T1, TYPE, NAME, ...)                    \
  PKB_DISPATCH_SWITCH(TYPE, PKB_FLOAT_CASES(__VA_ARGS__)                       \
                                PKB_DISPATCH_CASE(T1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND2(T1, T2, TYPE, NAME, ...)               \
  PKB_DISPATCH_SWITCH(TYPE, PKB_FLOAT_CASES(__VA_ARGS__)                       \
                                PKB_DISPATCH_CASE(T1, __VA_ARGS__)             \
                                    PKB_DISPATCH_CASE(T2, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND3(T1, T2, T3, TYPE, NAME, ...)           \
  PKB_DISPATCH_SWITCH(TYPE, PKB_FLOAT_CASES(__VA_ARGS__)                       \
                                PKB_DISPATCH_CASE(T1, __VA_ARGS__)             \
                                    PKB_DISPATCH_CASE(T2, __VA_ARGS__)         \
                                        PKB_DISPATCH_CASE(T3, __VA_ARGS__))
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...)                    \
  PKB_DISPATCH_SWITCH(                                                         \
      TYPE, PKB_DISPATCH_CASE(::c10::ScalarType::Half, __VA_ARGS__)            \
                PKB_DISPATCH_CASE(::c10::ScalarType::BFloat16, __VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...)                            \
  PKB_DISPATCH_SWITCH(TYPE, PKB_INT_CASES(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...)                                 \
  PKB_DISPATCH_SWITCH(TYPE,                                                    \
                      PKB_FLOAT_CASES(__VA_ARGS__) PKB_INT_CASES(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND(T1, TYPE, NAME, ...)                         \
  PKB_DISPATCH_SWITCH(TYPE, PKB_FLOAT_CASES(__VA_ARGS__)                       \
                                PKB_INT_CASES(__VA_ARGS__)                     \
                                    PKB_DISPATCH_CASE(T1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND2(T1, T2, TYPE, NAME, ...)                    \
  PKB_DISPATCH_SWITCH(TYPE, PKB_FLOAT_CASES(__VA_ARGS__)                       \
                                PKB_INT_CASES(__VA_ARGS__)                     \
                                    PKB_DISPATCH_CASE(T1, __VA_ARGS__)         \
                                        PKB_DISPATCH_CASE(T2, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_HALF(TYPE, NAME, ...)                        \
  AT_DISPATCH_ALL_TYPES_AND(::c10::ScalarType::Half, TYPE, NAME, __VA_ARGS__)

//===----------------------------------------------------------------------===//
// pybind11 (pybind11/pybind11.h).
//===----------------------------------------------------------------------===//
namespace pybind11 {
class handle {
public:
  handle();
  template <class T> T cast() const;
};
class object : public handle {
public:
  object();
  template <class... A> object operator()(A &&...) const;
  object attr(const char *) const;
};
class str : public object {
public:
  str(const char *);
  str(const std::string &);
};
class none : public object {};
class list : public object {
public:
  template <class T> void append(T &&);
  size_t size() const;
};
class tuple : public object {};
class dict : public object {};
class capsule : public object {};
class gil_scoped_release {};
class gil_scoped_acquire {};
enum class return_value_policy : uint8_t {
  automatic = 0,
  take_ownership,
  copy,
  move,
  reference,
  reference_internal
};
struct arg_v;
struct arg {
  constexpr explicit arg(const char *n) : name(n) {}
  template <class T> arg_v operator=(T &&value) const;
  arg &noconvert(bool = true);
  arg &none(bool = true);
  const char *name;
};
struct arg_v : arg {
  using arg::arg;
};
template <class... Guards> struct call_guard {};
template <class... Extra> struct keep_alive {};
struct module_ {
  template <class F, class... Extra>
  module_ &def(const char *name, F &&f, const Extra &...extra);
  module_ def_submodule(const char *name, const char *doc = nullptr);
  object attr(const char *) const;
  void doc(const char *);
  static module_ import(const char *);
};
using module = module_;
template <class T, class... Options> class class_ {
public:
  template <class... Extra> class_(handle, const char *, const Extra &...);
  template <class... A> class_ &def(A &&...);
  template <class... A> class_ &def_readwrite(A &&...);
  template <class... A> class_ &def_readonly(A &&...);
  template <class... A> class_ &def_property_readonly(A &&...);
  template <class... A> class_ &def_static(A &&...);
};
template <class... A> struct init {};
template <class T> object cast(T &&);
template <class T> T cast(const handle &);
template <class T> T move(object &&);
struct error_already_set {};
namespace literals {
arg operator""_a(const char *, size_t);
} // namespace literals
namespace detail {} // namespace detail
} // namespace pybind11
namespace py = pybind11;

#define PYBIND11_MODULE(name, variable)                                        \
  static void pkb_pybind11_init_##name(::pybind11::module_ &);                 \
  extern "C" int pkb_pybind11_entry_##name() { return 0; }                     \
  static void pkb_pybind11_init_##name(::pybind11::module_ &(variable))
#define PYBIND11_OVERLOAD(...)
#define TORCH_LIBRARY(ns, m)                                                   \
  static void pkb_torch_library_##ns(::torch::Library &);                      \
  static void pkb_torch_library_##ns(::torch::Library &(m))
#define TORCH_LIBRARY_FRAGMENT(ns, m) TORCH_LIBRARY(ns, m)
#define TORCH_LIBRARY_IMPL(ns, k, m)                                           \
  static void pkb_torch_library_impl_##ns##_##k(::torch::Library &);           \
  static void pkb_torch_library_impl_##ns##_##k(::torch::Library &(m))

#endif // PKB_SHIM_TORCH_H
