// pkbcheck shim: the parts of the CUDA driver API (cuda.h) that multi-GPU
// host code uses: device pointers, virtual memory management and multicast
// objects. Declarations only.
#ifndef PKB_SHIM_CUDA_H
#define PKB_SHIM_CUDA_H
#include "cuda_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif
typedef unsigned long long CUdeviceptr;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef enum cudaError_enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_SUPPORTED = 801
} CUresult;
typedef struct CUmemAllocationProp_st {
  int type;
  int requestedHandleTypes;
  struct {
    int type;
    int id;
  } location;
  void *win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
} CUmemAllocationProp;
typedef struct CUmemAccessDesc_st {
  struct {
    int type;
    int id;
  } location;
  int flags;
} CUmemAccessDesc;
typedef struct CUmulticastObjectProp_st {
  unsigned int numDevices;
  size_t size;
  unsigned long long handleTypes;
  unsigned long long flags;
} CUmulticastObjectProp;
#define CU_MEM_ALLOCATION_TYPE_PINNED 0x1
#define CU_MEM_LOCATION_TYPE_DEVICE 0x1
#define CU_MEM_ACCESS_FLAGS_PROT_READWRITE 0x3
#define CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR 0x1
#define CU_MEM_ALLOC_GRANULARITY_MINIMUM 0x0
#define CU_MEM_ALLOC_GRANULARITY_RECOMMENDED 0x1
#define CU_MULTICAST_GRANULARITY_MINIMUM 0x0
#define CU_MULTICAST_GRANULARITY_RECOMMENDED 0x1

CUresult cuInit(unsigned int);
CUresult cuGetErrorString(CUresult, const char **);
CUresult cuDeviceGet(CUdevice *, int);
CUresult cuDeviceGetAttribute(int *, int, CUdevice);
CUresult cuCtxGetCurrent(CUcontext *);
CUresult cuMemAlloc(CUdeviceptr *, size_t);
CUresult cuMemFree(CUdeviceptr);
CUresult cuMemcpy(CUdeviceptr, CUdeviceptr, size_t);
CUresult cuMemsetD32(CUdeviceptr, unsigned int, size_t);
CUresult cuMemCreate(CUmemGenericAllocationHandle *, size_t,
                     const CUmemAllocationProp *, unsigned long long);
CUresult cuMemRelease(CUmemGenericAllocationHandle);
CUresult cuMemAddressReserve(CUdeviceptr *, size_t, size_t, CUdeviceptr,
                             unsigned long long);
CUresult cuMemAddressFree(CUdeviceptr, size_t);
CUresult cuMemMap(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                  unsigned long long);
CUresult cuMemUnmap(CUdeviceptr, size_t);
CUresult cuMemSetAccess(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
CUresult cuMemGetAllocationGranularity(size_t *, const CUmemAllocationProp *,
                                       int);
CUresult cuMemExportToShareableHandle(void *, CUmemGenericAllocationHandle,
                                      int, unsigned long long);
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *, void *,
                                        int);
CUresult cuMulticastCreate(CUmemGenericAllocationHandle *,
                           const CUmulticastObjectProp *);
CUresult cuMulticastAddDevice(CUmemGenericAllocationHandle, CUdevice);
CUresult cuMulticastBindMem(CUmemGenericAllocationHandle, size_t,
                            CUmemGenericAllocationHandle, size_t, size_t,
                            unsigned long long);
CUresult cuMulticastGetGranularity(size_t *, const CUmulticastObjectProp *,
                                   int);
CUresult cuStreamWriteValue32(CUstream, CUdeviceptr, unsigned int,
                              unsigned int);
CUresult cuStreamWaitValue32(CUstream, CUdeviceptr, unsigned int,
                             unsigned int);
#ifdef __cplusplus
}
#endif
#endif // PKB_SHIM_CUDA_H
