// The cuda backend's opt-in cuBLAS tier (src/evaluator/cuda/cuda_batched_tier.h,
// docs/gpu-backend.md).
//
// Per group of problems with the same n, in chunks that bound the scratch memory:
//   1. AssembleKernel: one thread per line writes Z (column-major, as cuBLAS wants) and the three
//      right-hand sides B = basis (complex), and the pointer arrays of the batched calls;
//   2. cublasZgetrfBatched (LU with partial pivoting) and cublasZgetrsBatched (X = Z⁻¹B);
//   3. ProjectKernel: one thread per line flags singular factorisations, projects H_s = BᵀX and
//      compares with the targets through kernels::EntryTerm, as the deterministic tier does.
// The line costs then go through the deterministic tier's reduction kernel unchanged.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>

#include "frfit/common/error.h"
#include "frfit/evaluator/cuda_backend.h"
#include "kernels/complex.h"
#include "src/evaluator/cuda/cuda_batched_tier.h"
#include "src/evaluator/cuda/cuda_common.h"
#include "kernels/line_cost.h"

namespace frfit::cuda {
namespace {

void CheckBlas(cublasStatus_t result, const char* what) {
  if (result != CUBLAS_STATUS_SUCCESS) ThrowCuda(what, cublasGetStatusString(result));
}

// Chunk lines [first, first + count) of the group; local index i = t − first.
__global__ void __launch_bounds__(kBatchedBlock)
    AssembleKernel(const double* __restrict__ resident, const DevicePosture* __restrict__ postures,
                   const Segment* __restrict__ segments, const long long* __restrict__ line_starts,
                   int num_segments, long long first, int count, int n,
                   const double* __restrict__ coefficients, cuDoubleComplex* z_buffer,
                   cuDoubleComplex* x_buffer, cuDoubleComplex** z_pointers,
                   cuDoubleComplex** x_pointers) {
  const int i = GridIndex32(blockIdx.x, blockDim.x, threadIdx.x);
  if (PastEnd(i, count)) return;
  const LineRef r = LocateLine(postures, segments, line_starts, num_segments, first + i);
  const kernels::PostureArrays arrays = r.Arrays(resident);
  const double* basis = arrays.basis;
  cuDoubleComplex* z = z_buffer + BatchedZOffset(i, n);
  cuDoubleComplex* x = x_buffer + BatchedXOffset(i, n);
  z_pointers[i] = z;
  x_pointers[i] = x;
  // kernels::LineCost's assembly (fitted masses included), stored column-major.
  const kernels::ZAssembly<double> assembly(arrays, coefficients + r.seg.coefficients,
                                            resident[r.p.omega + r.l]);
  for (int col = 0; col < n; ++col)
    for (int row = 0; row < n; ++row) {
      kernels::Cplx v = assembly.Cell(row * n + col);
      if (row == col) v = assembly.Diagonal(v, row);
      z[col * n + row] = make_cuDoubleComplex(v.re, v.im);
    }
  for (int j = 0; j < 3; ++j)
    for (int row = 0; row < n; ++row) x[j * n + row] = make_cuDoubleComplex(basis[row * 3 + j], 0.0);
}

__global__ void __launch_bounds__(kBatchedBlock)
    ProjectKernel(const double* __restrict__ resident, const DevicePosture* __restrict__ postures,
                  const Segment* __restrict__ segments, const long long* __restrict__ line_starts,
                  int num_segments, long long first, int count, int n,
                  const cuDoubleComplex* __restrict__ z_buffer,
                  const cuDoubleComplex* __restrict__ x_buffer, const int* __restrict__ info,
                  double* __restrict__ line_costs, unsigned char* __restrict__ line_status) {
  const int i = GridIndex32(blockIdx.x, blockDim.x, threadIdx.x);
  if (PastEnd(i, count)) return;
  const LineRef r = LocateLine(postures, segments, line_starts, num_segments, first + i);
  const long long out = r.out();
  const cuDoubleComplex* z = z_buffer + BatchedZOffset(i, n);
  const cuDoubleComplex* x = x_buffer + BatchedXOffset(i, n);
  // Singular like LineCost: an exactly zero pivot (cuBLAS info > 0) or a non-finite one.
  bool singular = info[i] != 0;
  for (int d = 0; d < n && !singular; ++d) {
    const kernels::Cplx u{cuCreal(z[d * n + d]), cuCimag(z[d * n + d])};
    const double size = kernels::Magnitude1(u);
    if (!(size > 0.0) || !(size < 1.7976931348623157e308)) singular = true;
  }
  if (singular) {
    line_costs[out] = 0.0;
    line_status[out] = kernels::kLineSingular;
    return;
  }
  const kernels::LineTarget line = r.Target(resident);
  // Steps 3–4 of kernels::LineCostTeam, the same function, on cuBLAS's column-major X.
  static_assert(sizeof(cuDoubleComplex) == sizeof(kernels::Cplx), "both are two doubles");
  const kernels::Cplx* xs = reinterpret_cast<const kernels::Cplx*>(x);
  double cost = 0.0;
  for (int e = 0; e < 9; ++e)
    if (line.weight[e] != 0.0)
      cost = cost + kernels::EntryTerm(e, n, xs, 1, n, resident + r.p.response, line, r.p.fit_order,
                                       r.p.cost_kind, r.p.phase_mode);
  line_costs[out] = cost;
  line_status[out] = (cost - cost == 0.0) ? kernels::kLineOk : kernels::kLineNonFinite;
}

class CudaBatchedEvaluator final : public CudaEvaluatorBase {
 public:
  CudaBatchedEvaluator() {
    CheckBlas(cublasCreate(&handle_), "creating the cuBLAS handle");
  }
  ~CudaBatchedEvaluator() override {
    if (handle_) cublasDestroy(handle_);
  }
  std::string description() const override {
    return CudaEvaluatorBase::description() + ", cuBLAS batched LU tier";
  }

 protected:
  int GroupKey(int n) const override { return n; }

  void ComputeLineCosts(std::vector<Group>& groups) override {
    for (Group& g : groups) {
      if (g.num_lines == 0) continue;
      const int n = g.key;
      static_assert(sizeof(cuDoubleComplex) == sizeof(kernels::Cplx), "both are two doubles");
      const long long chunk = BatchedChunkLines(n, g.num_lines, kBatchedChunkBytes);
      z_.Reserve(static_cast<size_t>(chunk) * n * n, "allocating the batched Z");
      x_.Reserve(static_cast<size_t>(chunk) * n * 3, "allocating the batched X");
      z_pointers_.Reserve(chunk, "allocating the batched pointers");
      x_pointers_.Reserve(chunk, "allocating the batched pointers");
      pivots_.Reserve(static_cast<size_t>(chunk) * n, "allocating the pivots");
      info_.Reserve(chunk, "allocating the batched info");
      const int ns = static_cast<int>(g.host_segments.size());
      ForEachChunk(g.num_lines, chunk, [&](long long first, int count) {
        const LaunchShape shape = ThreadPerItem(count, kBatchedBlock);
        const unsigned blocks = static_cast<unsigned>(shape.blocks);
        AssembleKernel<<<blocks, shape.threads>>>(
            resident(), device_postures(), g.segments.get(), g.line_starts.get(), ns, first, count,
            n, device_coefficients(), z_.get(), x_.get(), z_pointers_.get(), x_pointers_.get());
        CheckLaunch("launching the batched assembly kernel");
        CheckBlas(cublasZgetrfBatched(handle_, n, z_pointers_.get(), n, pivots_.get(),
                                      info_.get(), count),
                  "cublasZgetrfBatched");
        int host_info = 0;
        CheckBlas(cublasZgetrsBatched(handle_, CUBLAS_OP_N, n, 3, z_pointers_.get(), n,
                                      pivots_.get(), x_pointers_.get(), n, &host_info, count),
                  "cublasZgetrsBatched");
        if (host_info != 0)
          ThrowCuda("cublasZgetrsBatched", "invalid argument " + std::to_string(-host_info));
        ProjectKernel<<<blocks, shape.threads>>>(
            resident(), device_postures(), g.segments.get(), g.line_starts.get(), ns, first, count,
            n, z_.get(), x_.get(), info_.get(), line_costs(), line_status());
        CheckLaunch("launching the batched projection kernel");
      });
    }
  }

 private:
  cublasHandle_t handle_ = nullptr;
  DeviceBuffer<cuDoubleComplex> z_, x_;
  DeviceBuffer<cuDoubleComplex*> z_pointers_, x_pointers_;
  DeviceBuffer<int> pivots_, info_;
};

}  // namespace
}  // namespace frfit::cuda

namespace frfit {

std::unique_ptr<Evaluator> CreateCudaBatchedEvaluator() {
  return std::make_unique<cuda::CudaBatchedEvaluator>();
}

}  // namespace frfit
