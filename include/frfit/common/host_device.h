// FRFIT_HOST_DEVICE marks code that both the host compiler and nvcc compile: the per-line
// arithmetic under kernels/ is written once and executed by the cpu and the cuda backend.
#pragma once

#if defined(__CUDACC__)
#define FRFIT_HOST_DEVICE __host__ __device__
#define FRFIT_INLINE __forceinline__
#else
#define FRFIT_HOST_DEVICE
#define FRFIT_INLINE inline
#endif

// Before a host loop of a few iterations: GCC makes three copies of the body per pass, where it
// would otherwise copy it once per iteration (kernels/line_cost.h's EntryTermsOfLogs says why).
#if defined(__CUDACC__)
#define FRFIT_UNROLL_3
#else
#define FRFIT_UNROLL_3 _Pragma("GCC unroll 3")
#endif
