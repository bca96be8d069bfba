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
#include "kernels/cuda_common.h"
#include "kernels/line_normal.h"
#include "kernels/tree_sum.h"

namespace frfit::cuda {
namespace {

constexpr int kNormalBlock = 64;

template <int kCapacity>
__global__ void __launch_bounds__(kNormalBlock)
    NormalLineKernel(const double* __restrict__ resident, const DevicePosture* __restrict__ postures,
                     const NormalSegment* __restrict__ segments,
                     const long long* __restrict__ line_starts, int num_segments,
                     long long num_lines, const double* __restrict__ coefficients,
                     const double* __restrict__ sensitivities, double* __restrict__ line_terms,
                     unsigned char* __restrict__ line_status) {
  const long long t = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= num_lines) return;
  const int s = FindSegment(line_starts, num_segments, t);
  const NormalSegment seg = segments[s];
  const int l = static_cast<int>(t - line_starts[s]);
  const DevicePosture p = postures[seg.posture];
  const kernels::PostureArrays arrays{p.n, resident + p.mass, resident + p.gravity,
                                      resident + p.basis};
  const kernels::LineTarget line{resident[p.omega + l], resident + p.weight + 9LL * l,
                                 resident + p.target + 18LL * l};
  unsigned status = kernels::kLineOk;
  kernels::LineNormalTerms<kCapacity>(arrays, coefficients + seg.coefficients,
                                      sensitivities + seg.sensitivities, seg.dim, line,
                                      p.fit_order, p.cost_kind, p.phase_mode,
                                      line_terms + seg.terms + l, seg.stride, &status);
  line_status[seg.first_line + l] = static_cast<unsigned char>(status);
}

// Thread k: term k − out of the individual whose block [out, out + terms) holds k.
__global__ void __launch_bounds__(kNormalBlock)
    NormalReduceKernel(const DevicePosture* __restrict__ postures,
                       const NormalSegment* __restrict__ segments,
                       const NormalIndividual* __restrict__ individuals, int num_individuals,
                       long long total_terms, double* line_terms,
                       const unsigned char* __restrict__ line_status, double* __restrict__ normal,
                       unsigned char* __restrict__ status) {
  const long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= total_terms) return;
  int lo = 0, hi = num_individuals - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (individuals[mid].out <= k) lo = mid;
    else hi = mid - 1;
  }
  const NormalIndividual ind = individuals[lo];
  const long long t = k - ind.out;
  double total = 0.0;
  unsigned flags = kernels::kLineOk;
  for (int s = ind.first_segment; s < ind.first_segment + ind.num_segments; ++s) {
    const NormalSegment seg = segments[s];
    for (int l = 0; l < seg.num_lines; ++l) flags |= line_status[seg.first_line + l];
    total = total + postures[seg.posture].posture_weight *
                        kernels::TreeSum(line_terms + seg.terms + t * seg.stride, seg.num_lines);
  }
  normal[k] = flags ? __longlong_as_double(0x7ff0000000000000LL) : total;
  if (t == 0)
    status[lo] = static_cast<unsigned char>(flags & kernels::kLineSingular ? EvalStatus::kSingular
                                            : flags                        ? EvalStatus::kNonFinite
                                                                           : EvalStatus::kOk);
}

template <int kCapacity>
void LaunchNormalLines(const double* resident, const DevicePosture* postures,
                       const NormalSegment* segments, const long long* line_starts,
                       int num_segments, long long num_lines, const double* coefficients,
                       const double* sensitivities, double* line_terms,
                       unsigned char* line_status) {
  const long long blocks = (num_lines + kNormalBlock - 1) / kNormalBlock;
  if (blocks > 0x7fffffffLL) ThrowCuda("normal-equation kernel", "too many lines for one launch");
  NormalLineKernel<kCapacity><<<static_cast<unsigned>(blocks), kNormalBlock>>>(
      resident, postures, segments, line_starts, num_segments, num_lines, coefficients,
      sensitivities, line_terms, line_status);
  CheckLaunch("launching the normal-equation line kernel");
}

}  // namespace

void CudaEvaluatorBase::EvaluateNormalEquations(const NormalEquationsBatch& batch,
                                                std::span<double> normal,
                                                std::span<EvalStatus> status) {
  CheckCall(batch, normal, status);
  // The reduction's table (individual order) first, then each bucket's table for its line kernel.
  std::vector<NormalSegment> by_individual;
  std::vector<NormalIndividual> inds;
  constexpr int kBuckets[] = {4, 8, 12, 18, 24, 32};
  std::vector<NormalSegment> bucket_segments[6];
  std::vector<long long> bucket_starts[6];
  long long bucket_lines[6] = {0, 0, 0, 0, 0, 0};
  long long coefficient_offset = 0, sensitivity_offset = 0, term_offset = 0, line_offset = 0,
            out_offset = 0;
  for (size_t p = 0; p < problems_.size(); ++p) {
    const PackedProblem& problem = problems_[p];
    const int dim = batch.dims[p];
    const int terms = kernels::NormalTermCount(dim);
    int bucket = 0;
    while (kBuckets[bucket] != CapacityBucket(problem.n)) ++bucket;
    long long lines_per_individual = 0;
    for (const PackedPosture& q : problem.postures) lines_per_individual += q.num_lines();
    for (int i = 0; i < batch.individuals[p]; ++i) {
      inds.push_back({static_cast<int>(by_individual.size()), problem.num_postures(), dim, 0,
                      out_offset});
      long long within = 0;
      for (int q = 0; q < problem.num_postures(); ++q) {
        const int lines = problem.postures[q].num_lines();
        const NormalSegment seg{first_posture_[p] + q, lines, dim, 0, coefficient_offset,
                                sensitivity_offset, term_offset + within, lines_per_individual,
                                line_offset};
        by_individual.push_back(seg);
        if (lines > 0) {
          bucket_starts[bucket].push_back(bucket_lines[bucket]);
          bucket_segments[bucket].push_back(seg);
          bucket_lines[bucket] += lines;
        }
        within += lines;
        line_offset += lines;
        coefficient_offset += problem.coefficient_stride();
        sensitivity_offset += static_cast<long long>(problem.coefficient_stride()) * dim;
        line_solves_ += lines;
      }
      term_offset += lines_per_individual * terms;
      out_offset += terms;
    }
  }
  if (inds.empty()) return;
  std::vector<NormalSegment> all_segments = by_individual;
  std::vector<long long> all_starts;
  long long segment_base[6], start_base[6];
  for (int b = 0; b < 6; ++b) {
    segment_base[b] = static_cast<long long>(all_segments.size());
    start_base[b] = static_cast<long long>(all_starts.size());
    all_segments.insert(all_segments.end(), bucket_segments[b].begin(), bucket_segments[b].end());
    all_starts.insert(all_starts.end(), bucket_starts[b].begin(), bucket_starts[b].end());
  }
  if (all_segments.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    ThrowCuda("evaluate", "too many (individual, posture) pairs for one call");

  coefficients_.Upload(batch.coefficients.data(), batch.coefficients.size(),
                       "uploading the coefficients");
  sensitivities_.Upload(batch.sensitivities.data(), batch.sensitivities.size(),
                        "uploading the sensitivities");
  normal_segments_.Upload(all_segments.data(), all_segments.size(), "uploading the segment table");
  normal_line_starts_.Upload(all_starts.data(), all_starts.size(), "uploading the line table");
  normal_individuals_.Upload(inds.data(), inds.size(), "uploading the individual table");
  line_terms_.Reserve(std::max<long long>(term_offset, 1), "allocating the line terms");
  normal_line_status_.Reserve(std::max<long long>(line_offset, 1),
                              "allocating the line statuses");
  for (int b = 0; b < 6; ++b) {
    if (bucket_lines[b] == 0) continue;
    const NormalSegment* segs = normal_segments_.get() + segment_base[b];
    const long long* starts = normal_line_starts_.get() + start_base[b];
    const int ns = static_cast<int>(bucket_segments[b].size());
#define FRFIT_LAUNCH(CAP)                                                                        \
  LaunchNormalLines<CAP>(resident(), device_postures(), segs, starts, ns, bucket_lines[b],       \
                         coefficients_.get(), sensitivities_.get(), line_terms_.get(),           \
                         normal_line_status_.get())
    switch (kBuckets[b]) {
      case 4: FRFIT_LAUNCH(4); break;
      case 8: FRFIT_LAUNCH(8); break;
      case 12: FRFIT_LAUNCH(12); break;
      case 18: FRFIT_LAUNCH(18); break;
      case 24: FRFIT_LAUNCH(24); break;
      default: FRFIT_LAUNCH(32); break;
    }
#undef FRFIT_LAUNCH
  }
  const int count = static_cast<int>(inds.size());
  normal_.Reserve(static_cast<size_t>(out_offset), "allocating the normal equations");
  normal_status_.Reserve(count, "allocating the statuses");
  const long long blocks = (out_offset + kNormalBlock - 1) / kNormalBlock;
  NormalReduceKernel<<<static_cast<unsigned>(blocks), kNormalBlock>>>(
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
