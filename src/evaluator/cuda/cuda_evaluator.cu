// The cuda backend, deterministic tier (DESIGN.md §3–4, docs/gpu-backend.md).
//
// Residency: SetProblems packs every problem's posture matrices, ω, weights and targets into one
// device array (plus a table of DevicePosture offsets); they stay for the evaluator's life.
// Per Evaluate call only the packed coefficients and two small tables (segments, individuals) go
// up, and one cost and one status per (problem, individual) come back.
//
// Launches per call: one line kernel per kCapacity bucket present among the problems (usually
// one), then one reduction kernel. The line kernel runs kernels::LineCostTeam — the very function
// the cpu backend runs — for every (problem, individual, posture, line), either one thread per
// line with its scratch in local memory (LineCostKernel) or a tile of 8–32 threads per line with
// its scratch in shared memory (LineCostTileKernel); the team decides who computes an element,
// never its operations, so with -fmad=false every line cost has the cpu's bits either way. The
// reduction kernel runs one thread per (problem, individual), calls kernels::TreeSum on each
// posture's line costs and adds the postures left to right exactly like
// CpuEvaluator::IndividualCost. No atomics anywhere in a value path.
#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "frfit/common/error.h"
#include "frfit/evaluator/cuda_backend.h"
#include "src/evaluator/cuda/cuda_common.h"
#include "kernels/line_cost.h"
#include "src/evaluator/cuda/tile_team.cuh"
#include "kernels/tree_sum.h"

namespace frfit::cuda {

void ThrowCuda(const char* what, const std::string& detail) {
  throw Error("", "cuda", std::string(what) + ": " + detail);
}

void Check(cudaError_t result, const char* what) {
  if (result != cudaSuccess) {
    cudaGetLastError();  // clear a non-sticky error so the evaluator stays usable
    ThrowCuda(what, std::string(cudaGetErrorName(result)) + " (" + cudaGetErrorString(result) + ")");
  }
}

void CheckLaunch(const char* what) {
  Check(cudaGetLastError(), what);
}

namespace {

template <int kCapacity>
__global__ void __launch_bounds__(kLineBlock)
    LineCostKernel(const double* __restrict__ resident, const DevicePosture* __restrict__ postures,
                   const Segment* __restrict__ segments, const long long* __restrict__ line_starts,
                   int num_segments, long long num_lines, const double* __restrict__ coefficients,
                   double* __restrict__ line_costs, unsigned char* __restrict__ line_status) {
  const long long t = GridIndex(blockIdx.x, blockDim.x, threadIdx.x);
  if (PastEnd(t, num_lines)) return;
  const LineRef r = LocateLine(postures, segments, line_starts, num_segments, t);
  unsigned status = kernels::kLineOk;
  const double cost = kernels::LineCost<kCapacity>(
      r.Arrays(resident), coefficients + r.seg.coefficients, r.Target(resident), r.p.fit_order,
      r.p.cost_kind, r.p.phase_mode, &status);
  line_costs[r.out()] = cost;
  line_status[r.out()] = static_cast<unsigned char>(status);
}

// One tile of kLanes threads per line; each tile's scratch is its slot of `scratch_bytes` in the
// block's dynamic shared memory. A tile leaves or stays as a whole (t is the same on its lanes).
// At most 96 registers a thread, so that 5 blocks of 128 threads fit an SM's 64 K registers: the
// fitted masses, response bases and robust losses took the kernel from 96 to 102 (rounded to 104:
// 4 blocks), which cost 20 % at n = 9 on one H200 (benchmarks/RESULTS.md, "GPU: one H200").
template <int kLanes>
__global__ void __launch_bounds__(kTileBlockThreads, kTileBlocksPerSm)
    LineCostTileKernel(const double* __restrict__ resident,
                       const DevicePosture* __restrict__ postures,
                       const Segment* __restrict__ segments,
                       const long long* __restrict__ line_starts, int num_segments,
                       long long num_lines, const double* __restrict__ coefficients,
                       int scratch_bytes, double* __restrict__ line_costs,
                       unsigned char* __restrict__ line_status) {
  extern __shared__ __align__(16) unsigned char shared[];
  const kernels::TileTeam<kLanes> team{
      cooperative_groups::tiled_partition<kLanes>(cooperative_groups::this_thread_block())};
  const long long t = TileLine<kLanes>(blockIdx.x, blockDim.x, threadIdx.x);
  if (PastEnd(t, num_lines)) return;
  const LineRef r = LocateLine(postures, segments, line_starts, num_segments, t);
  const kernels::LineScratch scratch =
      kernels::LineScratchAt(shared + TileSlot<kLanes>(threadIdx.x, scratch_bytes), r.p.n);
  unsigned status = kernels::kLineOk;
  const double cost = kernels::LineCostTeam(
      team, scratch, r.Arrays(resident), coefficients + r.seg.coefficients, r.Target(resident),
      r.p.fit_order, r.p.cost_kind, r.p.phase_mode, &status);
  if (team.lane() == 0) {
    line_costs[r.out()] = cost;
    line_status[r.out()] = static_cast<unsigned char>(status);
  }
}

// One thread per (problem, individual): ReduceIndividual, status folded like the cpu backend.
__global__ void __launch_bounds__(kReduceBlock)
    ReduceKernel(const DevicePosture* __restrict__ postures, const Segment* __restrict__ segments,
                 const Individual* __restrict__ individuals, int num_individuals,
                 double* line_costs, const unsigned char* __restrict__ line_status,
                 double* __restrict__ costs, unsigned char* __restrict__ status) {
  const int i = GridIndex32(blockIdx.x, blockDim.x, threadIdx.x);
  if (PastEnd(i, num_individuals)) return;
  double total = 0.0;
  const unsigned flags =
      ReduceIndividual(postures, segments, individuals[i], line_costs, line_status, &total);
  costs[i] = flags ? __longlong_as_double(0x7ff0000000000000LL) : total;
  status[i] = static_cast<unsigned char>(StatusOfLines(flags));
}

template <int kCapacity>
void LaunchLineCosts(const double* resident, const DevicePosture* postures,
                     const Segment* segments,
                     const long long* line_starts, int num_segments, long long num_lines,
                     const double* coefficients, double* line_costs, unsigned char* line_status) {
  const LaunchShape shape = ThreadPerItem(num_lines, kLineBlock);
  if (shape.blocks > 0x7fffffffLL) ThrowCuda("line kernel", "too many lines for one launch");
  LineCostKernel<kCapacity><<<static_cast<unsigned>(shape.blocks), shape.threads>>>(
      resident, postures, segments, line_starts, num_segments, num_lines, coefficients, line_costs,
      line_status);
  CheckLaunch("launching the line-cost kernel");
}

template <int kLanes>
void LaunchTileLineCosts(int max_n, const double* resident, const DevicePosture* postures,
                         const Segment* segments, const long long* line_starts, int num_segments,
                         long long num_lines, const double* coefficients, double* line_costs,
                         unsigned char* line_status) {
  // Slots sized by the group's largest n (TileLineLaunch); the SM is asked to give shared memory
  // its largest share of the L1 (the scratch is the only thing the kernel re-reads; its global
  // reads are read once or hit L2). (A hint for the current device, cheap enough to give at
  // every launch.)
  Check(cudaFuncSetAttribute(LineCostTileKernel<kLanes>,
                             cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared),
        "configuring the tiled line-cost kernel");
  const LaunchShape shape = TileLineLaunch(kLanes, max_n, num_lines);
  if (shape.blocks > 0x7fffffffLL) ThrowCuda("line kernel", "too many lines for one launch");
  // Past about 54 DOFs one line's scratch passes the 48 KB a block gets without opting in.
  if (shape.shared_bytes > static_cast<size_t>(kTileSharedBytes))
    Check(cudaFuncSetAttribute(LineCostTileKernel<kLanes>,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(shape.shared_bytes)),
          "configuring the tiled line-cost kernel's shared memory");
  LineCostTileKernel<kLanes>
      <<<static_cast<unsigned>(shape.blocks), shape.threads, shape.shared_bytes>>>(
          resident, postures, segments, line_starts, num_segments, num_lines, coefficients,
          shape.scratch_bytes, line_costs, line_status);
  CheckLaunch("launching the tiled line-cost kernel");
}

std::string DeviceName(int device) {
  cudaDeviceProp prop;
  Check(cudaGetDeviceProperties(&prop, device), "reading the device properties");
  return std::string(prop.name) + " (cuda device " + std::to_string(device) + ", sm_" +
         std::to_string(prop.major) + std::to_string(prop.minor) + ")";
}

}  // namespace

CudaEvaluatorBase::CudaEvaluatorBase(int device) {
  std::string reason;
  if (!CudaDeviceUsable(&reason)) throw Error("", "cuda", "no usable GPU: " + reason);
  if (device >= 0) {
    int count = 0;
    Check(cudaGetDeviceCount(&count), "counting the devices");
    Check(cudaSetDevice(device % count), "selecting the device");
  }
  Check(cudaGetDevice(&device_), "selecting the device");
  device_name_ = DeviceName(device_);
}

CudaEvaluatorBase::~CudaEvaluatorBase() = default;

void CudaEvaluatorBase::SetProblems(std::vector<PackedProblem> problems) {
  ResidentProblems packed = PackResident(problems);
  resident_.Upload(packed.values.data(), packed.values.size(), "uploading the problems");
  device_postures_.Upload(packed.postures.data(), packed.postures.size(),
                          "uploading the posture table");
  host_postures_ = std::move(packed.postures);
  first_posture_ = std::move(packed.first_posture);
  problems_ = std::move(problems);
}

void CudaEvaluatorBase::SetProblem(int index, PackedProblem problem) {
  CheckReplacement(index, problem);
  const ResidentProblems alone = PackResident({problem});
  long long base = 0;
  if (!ReplaceResident(first_posture_, index, alone, &host_postures_, &base)) {
    Evaluator::SetProblem(index, std::move(problem));
    return;
  }
  resident_.UploadAt(static_cast<size_t>(base), alone.values.data(), alone.values.size(),
                     "uploading a replaced problem");
  const size_t first = static_cast<size_t>(first_posture_[index]);
  device_postures_.UploadAt(first, host_postures_.data() + first, alone.postures.size(),
                            "uploading a replaced problem's postures");
  problems_[index] = std::move(problem);
}

void CudaEvaluatorBase::Evaluate(std::span<const int> individuals,
                                 std::span<const double> coefficients, std::span<double> costs,
                                 std::span<EvalStatus> status) {
  CheckCall(individuals, coefficients, costs, status);
  const CostTables tables = BuildCostTables(
      problems_, first_posture_, individuals, [this](int n) { return GroupKey(n); }, groups_);
  const std::vector<Segment>& segments = tables.segments;
  const std::vector<Individual>& inds = tables.individuals;
  const long long line_offset = tables.num_lines;
  line_solves_ += line_offset;
  if (inds.empty()) return;
  if (segments.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
    ThrowCuda("evaluate", "too many (individual, posture) pairs for one call");

  coefficients_.Upload(coefficients.data(), coefficients.size(), "uploading the coefficients");
  all_segments_.Upload(segments.data(), segments.size(), "uploading the segment table");
  individuals_.Upload(inds.data(), inds.size(), "uploading the individual table");
  line_costs_.Reserve(std::max<long long>(line_offset, 1), "allocating the line costs");
  line_status_.Reserve(std::max<long long>(line_offset, 1), "allocating the line statuses");
  for (Group& g : groups_) {
    if (g.num_lines == 0) continue;
    g.segments.Upload(g.host_segments.data(), g.host_segments.size(), "uploading a group table");
    g.line_starts.Upload(g.host_line_starts.data(), g.host_line_starts.size(),
                         "uploading a group table");
  }

  ComputeLineCosts(groups_);

  const int count = static_cast<int>(inds.size());
  costs_.Reserve(count, "allocating the costs");
  status_.Reserve(count, "allocating the statuses");
  const LaunchShape reduce = ThreadPerItem(count, kReduceBlock);
  ReduceKernel<<<static_cast<unsigned>(reduce.blocks), reduce.threads>>>(
      device_postures_.get(), all_segments_.get(), individuals_.get(), count, line_costs_.get(),
      line_status_.get(), costs_.get(), status_.get());
  CheckLaunch("launching the reduction kernel");
  Check(cudaDeviceSynchronize(), "running the cost kernels");
  costs_.Download(costs.data(), count, "downloading the costs");
  static_assert(sizeof(EvalStatus) == 1);
  status_.Download(reinterpret_cast<unsigned char*>(status.data()), count,
                   "downloading the statuses");
}

namespace {

class CudaEvaluator final : public CudaEvaluatorBase {
 public:
  CudaEvaluator(int lanes_per_line, int device)
      : CudaEvaluatorBase(device), lanes_per_line_(lanes_per_line) {}
  std::string description() const override {
    return CudaEvaluatorBase::description() + ", " +
           (lanes_per_line_ == 0 ? std::string("lanes per line by size")
                                 : std::to_string(lanes_per_line_) + " lanes per line");
  }

 protected:
  int GroupKey(int n) const override { return CapacityBucket(n); }

  void ComputeLineCosts(std::vector<Group>& groups) override {
    for (Group& g : groups) {
      if (g.num_lines == 0) continue;
      const int ns = static_cast<int>(g.host_segments.size());
      const int lanes = lanes_per_line_ ? lanes_per_line_ : DefaultLanesPerLine(g.key);
#define FRFIT_LAUNCH_TILE(LANES)                                                              \
  LaunchTileLineCosts<LANES>(g.max_n, resident(), device_postures(), g.segments.get(),          \
                             g.line_starts.get(), ns, g.num_lines, device_coefficients(),     \
                             line_costs(), line_status())
      if (lanes == 4) {
        FRFIT_LAUNCH_TILE(4);
      } else if (lanes == 8) {
        FRFIT_LAUNCH_TILE(8);
      } else if (lanes == 16) {
        FRFIT_LAUNCH_TILE(16);
      } else if (lanes == 32) {
        FRFIT_LAUNCH_TILE(32);
      } else {
        DispatchCapacity(g.key, [&](auto capacity) {
          LaunchLineCosts<decltype(capacity)::value>(resident(), device_postures(), g.segments.get(),
                                                   g.line_starts.get(), ns, g.num_lines,
                                                   device_coefficients(), line_costs(),
                                                   line_status());
        });
      }
#undef FRFIT_LAUNCH_TILE
    }
  }

 private:
  int lanes_per_line_;  // 0: DefaultLanesPerLine of each bucket
};

}  // namespace

}  // namespace frfit::cuda

namespace frfit {

bool CudaDeviceUsable(std::string* reason) {
  int count = 0;
  const cudaError_t result = cudaGetDeviceCount(&count);
  if (result != cudaSuccess) {
    cudaGetLastError();
    if (reason) {
      // The runtime reports a missing driver as "driver version is insufficient"; say which.
      int driver = 0, runtime = 0;
      cudaDriverGetVersion(&driver);
      cudaRuntimeGetVersion(&runtime);
      const auto version = [](int v) {
        return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
      };
      if (result == cudaErrorInsufficientDriver && driver == 0)
        *reason = "no NVIDIA driver is installed on this machine";
      else if (result == cudaErrorInsufficientDriver)
        *reason = "the NVIDIA driver supports CUDA " + version(driver) + ", this build needs " +
                  version(runtime) + " or newer";
      else if (result == cudaErrorNoDevice)
        *reason = "no CUDA device found";
      else
        *reason = std::string("cuda runtime: ") + cudaGetErrorString(result);
    }
    return false;
  }
  if (count == 0) {
    if (reason) *reason = "no CUDA device found";
    return false;
  }
  int device = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError();
    if (reason) *reason = "cuda runtime: cannot read the properties of the current device";
    return false;
  }
  // The fatbinary carries sm_90 code and compute_80 PTX: anything older cannot load it.
  if (prop.major < 8) {
    if (reason)
      *reason = std::string(prop.name) + " has compute capability " + std::to_string(prop.major) +
                "." + std::to_string(prop.minor) + "; this build needs 8.0 or newer";
    return false;
  }
  return true;
}

int DefaultLanesPerLine(int n) {
  const int bucket = cuda::CapacityBucket(n);
  return bucket <= 4 ? 1 : bucket <= 12 ? 8 : bucket <= 24 ? 16 : 32;
}

std::unique_ptr<Evaluator> CreateCudaEvaluator(int lanes_per_line, int device) {
  if (lanes_per_line != 0 && lanes_per_line != 1 && lanes_per_line != 4 && lanes_per_line != 8 &&
      lanes_per_line != 16 && lanes_per_line != 32)
    throw Error("", "lanes_per_line",
                "expected 0 (by size), 1, 4, 8, 16 or 32, got " + std::to_string(lanes_per_line));
  return std::make_unique<cuda::CudaEvaluator>(lanes_per_line, device);
}

}  // namespace frfit
