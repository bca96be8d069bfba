// The cuda backend's normal equations (Evaluator::EvaluateNormalEquations), for both tiers: the
// least-squares path needs the cpu backend's bits, so it always runs the deterministic per-line
// code, kernels::LineNormalTerms — the function the cpu backend runs — one thread per line.
//
// Per call: the sensitivities go up with the coefficients; one line kernel per kCapacity bucket
// writes each line's terms into its individual's block ([term][line of the individual],
// NormalSegment); one reduction kernel, a thread per (individual, term), runs kernels::TreeSum over
// each posture's lines and adds the postures left to right, as CpuEvaluator does. No atomics.
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>

#include "frfit/common/error.h"
#include "src/evaluator/cuda/cuda_common.h"
#include "kernels/line_normal.h"
#include "kernels/tree_sum.h"

namespace frfit::cuda {
namespace {

template <int kCapacity>
__global__ void __launch_bounds__(kNormalBlock)
    NormalLineKernel(const double* __restrict__ resident, const DevicePosture* __restrict__ postures,
                     const NormalSegment* __restrict__ segments,
                     const long long* __restrict__ line_starts, int num_segments,
                     long long num_lines, const double* __restrict__ coefficients,
                     const double* __restrict__ sensitivities, double* __restrict__ line_terms,
                     unsigned char* __restrict__ line_status) {
  const long long t = GridIndex(blockIdx.x, blockDim.x, threadIdx.x);
  if (PastEnd(t, num_lines)) return;
  const LineRefOf<NormalSegment> r = LocateLine(postures, segments, line_starts, num_segments, t);
  unsigned status = kernels::kLineOk;
  kernels::LineNormalTerms<kCapacity>(r.Arrays(resident), coefficients + r.seg.coefficients,
                                      sensitivities + r.seg.sensitivities, r.seg.dim,
                                      r.Target(resident), r.p.fit_order, r.p.cost_kind,
                                      r.p.phase_mode, r.Terms(line_terms), r.seg.stride, &status);
  line_status[r.out()] = static_cast<unsigned char>(status);
}

// Thread k: term k − out of the individual whose block [out, out + terms) holds k (LocateTerm).
__global__ void __launch_bounds__(kNormalBlock)
    NormalReduceKernel(const DevicePosture* __restrict__ postures,
                       const NormalSegment* __restrict__ segments,
                       const NormalIndividual* __restrict__ individuals, int num_individuals,
                       long long total_terms, double* line_terms,
                       const unsigned char* __restrict__ line_status, double* __restrict__ normal,
                       unsigned char* __restrict__ status) {
  const long long k = GridIndex(blockIdx.x, blockDim.x, threadIdx.x);
  if (PastEnd(k, total_terms)) return;
  const TermRef term = LocateTerm(individuals, num_individuals, k);
  double total = 0.0;
  const unsigned flags =
      ReduceNormalTerm(postures, segments, term.ind, term.term, line_terms, line_status, &total);
  normal[k] = flags ? __longlong_as_double(0x7ff0000000000000LL) : total;
  if (term.term == 0) status[term.individual] = static_cast<unsigned char>(StatusOfLines(flags));
}

template <int kCapacity>
void LaunchNormalLines(const double* resident, const DevicePosture* postures,
                       const NormalSegment* segments, const long long* line_starts,
                       int num_segments, long long num_lines, const double* coefficients,
                       const double* sensitivities, double* line_terms,
                       unsigned char* line_status) {
  const LaunchShape shape = ThreadPerItem(num_lines, kNormalBlock);
  if (shape.blocks > 0x7fffffffLL)
    ThrowCuda("normal-equation kernel", "too many lines for one launch");
  NormalLineKernel<kCapacity><<<static_cast<unsigned>(shape.blocks), shape.threads>>>(
      resident, postures, segments, line_starts, num_segments, num_lines, coefficients,
      sensitivities, line_terms, line_status);
  CheckLaunch("launching the normal-equation line kernel");
}

}  // namespace

void CudaEvaluatorBase::EvaluateNormalEquations(const NormalEquationsBatch& batch,
                                                std::span<double> normal,
                                                std::span<EvalStatus> status) {
  CheckCall(batch, normal, status);
  const NormalTables tables = BuildNormalTables(problems_, first_posture_, batch);
  line_solves_ += tables.num_lines;
  if (tables.individuals.empty()) return;
  if (tables.segments.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    ThrowCuda("evaluate", "too many (individual, posture) pairs for one call");

  coefficients_.Upload(batch.coefficients.data(), batch.coefficients.size(),
                       "uploading the coefficients");
  sensitivities_.Upload(batch.sensitivities.data(), batch.sensitivities.size(),
                        "uploading the sensitivities");
  normal_segments_.Upload(tables.segments.data(), tables.segments.size(),
                          "uploading the segment table");
  normal_line_starts_.Upload(tables.line_starts.data(), tables.line_starts.size(),
                             "uploading the line table");
  normal_individuals_.Upload(tables.individuals.data(), tables.individuals.size(),
                             "uploading the individual table");
  line_terms_.Reserve(std::max<long long>(tables.num_terms, 1), "allocating the line terms");
  normal_line_status_.Reserve(std::max<long long>(tables.num_lines, 1),
                              "allocating the line statuses");
  for (const NormalTables::Bucket& bucket : tables.buckets) {
    if (bucket.num_lines == 0) continue;
    const NormalSegment* segs = normal_segments_.get() + bucket.first_segment;
    const long long* starts = normal_line_starts_.get() + bucket.first_start;
    DispatchCapacity(bucket.capacity, [&](auto capacity) {
      LaunchNormalLines<decltype(capacity)::value>(
          resident(), device_postures(), segs, starts, bucket.num_segments, bucket.num_lines,
          coefficients_.get(), sensitivities_.get(), line_terms_.get(),
          normal_line_status_.get());
    });
  }
  const int count = static_cast<int>(tables.individuals.size());
  const long long out_offset = tables.num_out;
  normal_.Reserve(static_cast<size_t>(out_offset), "allocating the normal equations");
  normal_status_.Reserve(count, "allocating the statuses");
  const LaunchShape reduce = ThreadPerItem(out_offset, kNormalBlock);
  NormalReduceKernel<<<static_cast<unsigned>(reduce.blocks), reduce.threads>>>(
      device_postures(), normal_segments_.get(), normal_individuals_.get(), count, out_offset,
      line_terms_.get(), normal_line_status_.get(), normal_.get(), normal_status_.get());
  CheckLaunch("launching the normal-equation reduction kernel");
  Check(cudaDeviceSynchronize(), "running the normal-equation kernels");
  normal_.Download(normal.data(), static_cast<size_t>(out_offset),
                   "downloading the normal equations");
  static_assert(sizeof(EvalStatus) == 1);
  normal_status_.Download(reinterpret_cast<unsigned char*>(status.data()), count,
                          "downloading the statuses");
}

}  // namespace frfit::cuda
