// The cuda kernels' launches emulated on the host, without a GPU (src/evaluator/cuda/cuda_launch.h,
// docs/gpu-backend.md). The kernels compute their indices only through the functions of
// src/evaluator/cuda/cuda_launch.h and read tables built by src/evaluator/cuda/cuda_tables.h; here
// every (block, thread) of every launch a wrapper makes runs those same functions on those same
// tables, and the test checks what a GPU run would show only as wrong numbers or a crash far from
// the cause:
//   - every line of a group is computed by exactly one thread or tile, all lanes of a tile agree
//     on its line, and threads past the last line do nothing;
//   - the tiles of a block get disjoint, 16-byte aligned slots that hold the scratch of their
//     line's n and lie within the block's dynamic shared memory;
//   - LocateLine finds for every line the (segment, posture, line) of an independent enumeration
//     of the call in the packing order of evaluator.h, and out() hits every position once;
//   - the reductions read exactly the lines (and terms) of their individual, inside the buffers
//     the host allocates; the normal-equation kernels write every [term][line] slot once;
//   - the batched tier's chunks cover every line once within the chunk buffers.
// Finally the per-line functions run through the emulated grids and must give the cpu backend's
// costs and normal equations bit for bit (==).
// The emulation itself is tests/unit/cuda/launch_emulation.h.
#include "cuda/launch_emulation.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "frfit/evaluator/evaluator.h"
#include "kernels/line_normal.h"
#include "cuda/feature_batch.h"

namespace frfit {
namespace {

using cuda::LaunchShape;
using cuda::LineRef;
using cuda::Segment;
using namespace feature_batch;     // the batches and their shapes
using namespace launch_emulation;  // the emulated launches and their checks

TEST(CudaLaunch, LineLaunchesComputeEveryLineOnceInDisjointSlots) {
  const std::vector<std::vector<ProblemSpec>> batches = {
      MixedSpecs(), NineOnlySpecs(), OneLineSpecs(), NoIndividualSpecs(), FleetSpecs()};
  for (size_t s = 0; s < batches.size(); ++s) {
    const Batch b = MakeBatch(batches[s], 11 + static_cast<unsigned>(s));
    for (int lanes : kLaneChoices) {
      Findings f;
      EmulateEvaluate(b, lanes, /*compute=*/false, f);
      EXPECT_EQ(f.count(), 0) << "batch " << s << ", " << lanes << " lanes:\n" << f.text();
    }
  }
}

TEST(CudaLaunch, EmulatedEvaluateEqualsCpuBitForBit) {
  for (unsigned seed : {3u, 4u}) {
    const Batch b = MakeBatch(MixedSpecs(), seed);
    const CostRun cpu = CpuEvaluate(b);
    int singular_or_nonfinite = 0;
    for (EvalStatus s : cpu.status) singular_or_nonfinite += s != EvalStatus::kOk;
    EXPECT_GT(singular_or_nonfinite, 0) << "the NaN individual exercises the status path";
    for (int lanes : kLaneChoices) {
      Findings f;
      const CostRun gpu = EmulateEvaluate(b, lanes, /*compute=*/true, f);
      EXPECT_EQ(f.count(), 0) << lanes << " lanes:\n" << f.text();
      EXPECT_EQ(CostMismatches(cpu, gpu), 0) << "seed " << seed << ", " << lanes << " lanes";
    }
  }
}

// ReduceIndividual over line costs that are 0 except one 1 (and one status bit): only the line's
// own individual may see it, weighted by the line's posture weight; reads past the buffer would
// see NaN guards.
TEST(CudaLaunch, ReductionReadsEachLineForItsIndividualOnly) {
  const Batch b = MakeBatch(MixedSpecs(), 5);
  const CostCall call(b);
  const auto& [resident, groups, tables, all, count] = call;
  const LaunchShape shape = cuda::ThreadPerItem(count, cuda::kReduceBlock);
  Findings f;
  for (const ExpectedLine& e : all) {
    std::vector<double> one_hot(tables.num_lines, 0.0);
    std::vector<unsigned char> one_status(tables.num_lines, 0);
    one_hot[e.position] = 1.0;
    one_status[e.position] = kernels::kLineNonFinite;
    Guarded<double> costs(one_hot, std::numeric_limits<double>::quiet_NaN());
    Guarded<unsigned char> status(one_status, kernels::kLineSingular);
    Guarded<Segment> segments(tables.segments, kPoisonSegment);
    Guarded<cuda::Individual> individuals(tables.individuals, kPoisonIndividual);
    const double weight = b.problems[e.problem].postures[e.posture].posture_weight;
    for (long long block = 0; block < shape.blocks; ++block)
      for (int thread = 0; thread < shape.threads; ++thread) {
        const int i = cuda::GridIndex32(static_cast<unsigned>(block), shape.threads, thread);
        if (cuda::PastEnd(i, count) || i >= count) continue;  // the grid guard: tested above
        double total = 0.0;
        const unsigned flags =
            cuda::ReduceIndividual(resident.postures.data(), segments.data(), individuals.data()[i],
                                   costs.data(), status.data(), &total);
        const bool own = i == e.individual;
        f.Check(total == (own ? weight : 0.0) && flags == (own ? kernels::kLineNonFinite : 0u),
                [&] {
                  return "line " + std::to_string(e.position) + " of individual " +
                         std::to_string(e.individual) + ": individual " + std::to_string(i) +
                         " sums " + std::to_string(total) + ", flags " + std::to_string(flags);
                });
      }
    f.Check(costs.GuardsIntact(),
            [&] { return std::string("TreeSum wrote outside the line costs"); });
  }
  EXPECT_EQ(f.count(), 0) << f.text();
}

TEST(CudaLaunch, LaunchShapesAreTheDocumentedOnes) {
  // docs/gpu-backend.md: n = 9 in the 12 bucket: 1952-byte slots; 32 DOFs: 2 tiles of 18.5 KB.
  const LaunchShape nine = cuda::TileLineLaunch(8, 9, 1000);
  EXPECT_EQ(nine.scratch_bytes, 1952);
  EXPECT_EQ(nine.threads, 128);
  EXPECT_EQ(nine.shared_bytes, 16u * 1952u);
  EXPECT_EQ(nine.blocks, (1000 + 15) / 16);
  const LaunchShape big = cuda::TileLineLaunch(32, 32, 5);
  EXPECT_EQ(big.scratch_bytes, 18512);
  EXPECT_EQ(big.threads, 64);
  EXPECT_EQ(big.blocks, 3);
  const LaunchShape one = cuda::ThreadPerItem(129, cuda::kLineBlock);
  EXPECT_EQ(one.blocks, 2);
  EXPECT_EQ(one.shared_bytes, 0u);
  EXPECT_EQ(cuda::ThreadPerItem(0, cuda::kReduceBlock).blocks, 0);
}

TEST(CudaLaunch, EveryNRunsInTheSmallestBucketThatHoldsIt) {
  // LineCost<kCapacity> holds n <= kCapacity; a larger bucket than needed wastes memory.
  EXPECT_EQ(cuda::CapacityBucket(1), 4);
  EXPECT_EQ(cuda::CapacityBucket(9), 12);
  EXPECT_EQ(cuda::CapacityBucket(18), 18);
  EXPECT_EQ(cuda::CapacityBucket(19), 24);
  for (int n = 1; n <= kernels::kMaxDofs; ++n) {
    const int b = cuda::CapacityBucketIndex(n);
    EXPECT_GE(cuda::kCapacityBuckets[b], n) << "n = " << n;
    if (b > 0) EXPECT_LT(cuda::kCapacityBuckets[b - 1], n) << "n = " << n;
  }
}

TEST(CudaLaunch, CallsWithoutIndividualsBuildNoWork) {
  const Batch b = MakeBatch(NoIndividualSpecs(), 6);
  const CostCall call(b);
  const auto& [resident, groups, tables, all, count] = call;
  EXPECT_TRUE(tables.individuals.empty());
  EXPECT_EQ(tables.num_lines, 0);
  for (const cuda::LineGroup& g : groups) {
    EXPECT_EQ(g.num_lines, 0);
    EXPECT_EQ(g.max_n, 0);
  }
  const NormalCall normal(b);
  EXPECT_TRUE(normal.tables.individuals.empty());
  EXPECT_EQ(normal.tables.num_out, 0);
}

// --- normal equations ---------------------------------------------------------------------------

TEST(CudaLaunch, NormalEquationLaunchesWriteEveryTermOnce) {
  const std::vector<std::vector<ProblemSpec>> batches = {
      MixedSpecs(), NineOnlySpecs(), OneLineSpecs(), NoIndividualSpecs(), FleetSpecs()};
  for (size_t s = 0; s < batches.size(); ++s) {
    Findings f;
    EmulateNormalEquations(MakeBatch(batches[s], 21 + static_cast<unsigned>(s)), false, f);
    EXPECT_EQ(f.count(), 0) << "batch " << s << ":\n" << f.text();
  }
}

// The emulated normal-equation launches of `b` give the cpu backend's terms and statuses to the bit.
void ExpectEmulatedNormalEquationsEqualCpu(const Batch& b) {
  Findings f;
  const NormalRun gpu = EmulateNormalEquations(b, true, f);
  EXPECT_EQ(f.count(), 0) << f.text();
  const NormalRun want = CpuNormalEquations(b);
  ASSERT_EQ(want.normal.size(), gpu.normal.size());
  EXPECT_EQ(TermMismatches(want, gpu), 0) << "of " << want.normal.size() << " terms";
  EXPECT_EQ(want.status, gpu.status);
}

TEST(CudaLaunch, EmulatedNormalEquationsEqualCpuBitForBit) {
  ExpectEmulatedNormalEquationsEqualCpu(MakeBatch(MixedSpecs(), 7));
}

// A problem without lines past the kernels' capacity (a fit from modes alone, CheckLineCapacity
// in evaluator.h): PackResident takes it; it joins no launch and sizes no tile's scratch (the last
// bucket's max_n stays the largest n with lines: 120 would ask a block for more shared memory
// than a GPU has); its individuals cost 0; every launch and result is the cpu's to the bit. With
// one line the same problem is refused as before.
TEST(CudaLaunch, LineFreeProblemPastTheCapacityLaunchesNothingAndCostsZero) {
  const Batch b = MakeBatch(LineFreeSpecs(), 46);
  const CostCall bucketed(b);
  int last_bucket = 0;
  for (const cuda::LineGroup& g : bucketed.groups)
    if (g.key == kernels::kMaxDofs) {
      ++last_bucket;
      EXPECT_EQ(g.max_n, 60);
    }
  EXPECT_EQ(last_bucket, 1);
  const CostCall exact(b, [](int n) { return n; });  // the batched tier's groups
  for (const cuda::LineGroup& g : exact.groups) {
    if (g.key == 120) EXPECT_EQ(g.num_lines, 0);
    EXPECT_LE(g.max_n, kernels::kMaxDofs) << "group " << g.key;
  }
  const CostRun cpu = CpuEvaluate(b);
  for (int i = 2; i < 5; ++i) {  // the line-free problem's three individuals
    EXPECT_EQ(cpu.costs[i], 0.0) << i;
    EXPECT_EQ(cpu.status[i], EvalStatus::kOk) << i;
  }
  for (int lanes : kLaneChoices) {
    Findings f;
    const CostRun gpu = EmulateEvaluate(b, lanes, /*compute=*/true, f);
    EXPECT_EQ(f.count(), 0) << lanes << " lanes:\n" << f.text();
    EXPECT_EQ(CostMismatches(cpu, gpu), 0) << lanes << " lanes";
  }
  ExpectEmulatedNormalEquationsEqualCpu(b);
  try {
    cuda::PackResident(MakeBatch({{120, 1, {1}, 2}}, 47).problems);
    ADD_FAILURE() << "a 120-DOF problem with a line was packed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("expected 1 to 64 elastic DOFs, got 120"),
              std::string::npos)
        << e.what();
  }
}

// Affine parts of every target (kernels/line_cost.h, PostureArrays): the emulated launches give
// the cpu's costs and normal-equation terms to the bit, the lanes' splits included.
TEST(CudaLaunch, EmulatedEvaluateWithAffinePartsEqualsCpuBitForBit) {
  const Batch b = MakeBatch(PartsSpecs(), 31);
  const CostRun cpu = CpuEvaluate(b);
  int ok = 0;
  for (EvalStatus s : cpu.status) ok += s == EvalStatus::kOk;
  EXPECT_GT(ok, 0) << "the parts' systems must be solvable for the comparison to mean anything";
  for (int lanes : kLaneChoices) {
    Findings f;
    const CostRun gpu = EmulateEvaluate(b, lanes, /*compute=*/true, f);
    EXPECT_EQ(f.count(), 0) << lanes << " lanes:\n" << f.text();
    EXPECT_EQ(CostMismatches(cpu, gpu), 0) << lanes << " lanes";
  }
}

TEST(CudaLaunch, EmulatedNormalEquationsWithAffinePartsEqualCpuBitForBit) {
  ExpectEmulatedNormalEquationsEqualCpu(MakeBatch(PartsSpecs(), 32));
}

// ReduceNormalTerm over line terms that are 0 except one 1: only the output term the slot
// belongs to may see it, weighted by its posture's weight.
TEST(CudaLaunch, NormalReductionReadsEachTermSlotForItsTermOnly) {
  const Batch b =
      MakeBatch({{9, 2, {7, 5}, 2}, {3, 0, {4}, 1}, {12, 3, {1, 6}, 3}, {32, 1, {3}, 1}}, 8);
  const NormalCall call(b);
  const auto& [resident, tables, all, count] = call;
  // Slot x of the line terms → (output term, posture weight), from the enumeration.
  std::vector<std::pair<long long, double>> owner(tables.num_terms, {-1, 0.0});
  for (const ExpectedLine& e : all)
    for (int k = 0; k < kernels::NormalTermCount(b.dims[e.problem]); ++k)
      owner.at(e.term0 + k * e.term_stride) = {
          e.normal_out + k, b.problems[e.problem].postures[e.posture].posture_weight};
  const LaunchShape shape = cuda::ThreadPerItem(tables.num_out, cuda::kNormalBlock);
  const std::vector<unsigned char> statuses(tables.num_lines, 0);
  Findings f;
  for (long long x = 0; x < tables.num_terms; ++x) {
    std::vector<double> one_hot(tables.num_terms, 0.0);
    one_hot[x] = 1.0;
    Guarded<double> terms(one_hot, std::numeric_limits<double>::quiet_NaN());
    Guarded<unsigned char> status(statuses, kernels::kLineSingular);
    Guarded<cuda::NormalSegment> segments(tables.segments, kPoisonNormalSegment);
    Guarded<cuda::NormalIndividual> individuals(tables.individuals, kPoisonNormalIndividual);
    for (long long block = 0; block < shape.blocks; ++block)
      for (int thread = 0; thread < shape.threads; ++thread) {
        const long long k = cuda::GridIndex(static_cast<unsigned>(block), shape.threads, thread);
        if (cuda::PastEnd(k, tables.num_out) || k >= tables.num_out) continue;  // tested above
        const cuda::TermRef term = cuda::LocateTerm(individuals.data(), count, k);
        double total = 0.0;
        const unsigned flags =
            cuda::ReduceNormalTerm(resident.postures.data(), segments.data(), term.ind, term.term,
                                   terms.data(), status.data(), &total);
        const bool own = k == owner[x].first;
        f.Check(total == (own ? owner[x].second : 0.0) && flags == 0u, [&] {
          return "term slot " + std::to_string(x) + " of output term " +
                 std::to_string(owner[x].first) + ": term " + std::to_string(k) + " sums " +
                 std::to_string(total) + ", flags " + std::to_string(flags);
        });
      }
  }
  EXPECT_EQ(f.count(), 0) << f.text();
}

// --- the batched tier
// -----------------------------------------------------------------------------

// The batched tier's Evaluate for groups of one n: for several chunk budgets (the real one, a
// few lines, one line, less than one line), every chunk's assemble/project grid: each line once,
// located as enumerated, its Z and X inside the chunk buffers the wrapper reserves and apart from
// the other lines'.
TEST(CudaLaunch, BatchedChunksCoverEveryLineOnceInsideTheirBuffers) {
  const Batch b = MakeBatch(MixedSpecs(), 9);
  const CostCall call(b, ExactN);
  const auto& [resident, groups, tables, all, count] = call;
  Findings f;
  enum Budget { kReal, kFiveLines, kOneLine, kHalfALine };
  for (const Budget kind : {kReal, kFiveLines, kOneLine, kHalfALine}) {
    std::vector<int> stored(tables.num_lines, 0);
    for (const cuda::LineGroup& g : groups) {
      if (g.num_lines == 0) continue;
      const int n = g.key;
      const size_t per_line = sizeof(kernels::Cplx) * (static_cast<size_t>(n) * n + 3 * n);
      const size_t budget = kind == kReal        ? cuda::kBatchedChunkBytes
                            : kind == kFiveLines ? 5 * per_line
                            : kind == kOneLine   ? per_line
                                                 : per_line / 2;
      const long long chunk = cuda::BatchedChunkLines(n, g.num_lines, budget);
      f.Check(chunk >= 1 && chunk <= g.num_lines &&
                  (chunk == 1 || static_cast<size_t>(chunk) * per_line <= budget),
              [&] { return "n = " + std::to_string(n) + ": chunk of " + std::to_string(chunk); });
      const size_t z_size = static_cast<size_t>(chunk) * n * n;  // the wrapper's reservations
      const size_t x_size = static_cast<size_t>(chunk) * n * 3;
      const std::vector<const ExpectedLine*> expected = GroupLines(b, all, n, ExactN);
      std::vector<int> group_lines(g.num_lines, 0);
      cuda::ForEachChunk(g.num_lines, chunk, [&](long long first, int count) {
        f.Check(count >= 1 && count <= chunk && first + count <= g.num_lines, [&] {
          return "chunk at " + std::to_string(first) + " of " + std::to_string(count);
        });
        std::vector<unsigned char> z_used(z_size, 0), x_used(x_size, 0);
        const LaunchShape shape = cuda::ThreadPerItem(count, cuda::kBatchedBlock);
        for (long long block = 0; block < shape.blocks; ++block)
          for (int thread = 0; thread < shape.threads; ++thread) {
            const int i = cuda::GridIndex32(static_cast<unsigned>(block), shape.threads, thread);
            if (cuda::PastEnd(i, count)) continue;
            const long long t = first + i;
            f.Check(i >= 0 && i < chunk && t < g.num_lines,
                    [&] { return "batched thread " + std::to_string(i) + " of a chunk"; });
            if (i < 0 || i >= chunk || t >= g.num_lines) continue;
            const LineRef r = cuda::LocateLine(resident.postures.data(), g.host_segments.data(),
                                               g.host_line_starts.data(),
                                               static_cast<int>(g.host_segments.size()), t);
            CheckLocated(r, *expected[t], b, resident, f);
            ++group_lines[t];
            if (r.out() >= 0 && r.out() < tables.num_lines) ++stored[r.out()];
            const size_t z = cuda::BatchedZOffset(i, n), x = cuda::BatchedXOffset(i, n);
            const bool inside = z + n * n <= z_size && x + 3 * n <= x_size;
            f.Check(inside,
                    [&] { return "line " + std::to_string(i) + " of a chunk: Z or X outside"; });
            if (!inside) continue;
            for (size_t e = z; e < z + n * n; ++e) z_used[e]++;
            for (size_t e = x; e < x + 3 * n; ++e) x_used[e]++;
          }
        for (unsigned char used : z_used)
          f.Check(used <= 1, [] { return std::string("Z overlap"); });
        for (unsigned char used : x_used)
          f.Check(used <= 1, [] { return std::string("X overlap"); });
      });
      for (long long t = 0; t < g.num_lines; ++t)
        f.Check(group_lines[t] == 1, [&] {
          return "n = " + std::to_string(n) + ": line " + std::to_string(t) + " in " +
                 std::to_string(group_lines[t]) + " chunks";
        });
    }
    for (long long x = 0; x < tables.num_lines; ++x)
      f.Check(stored[x] == 1, [&] {
        return "line position " + std::to_string(x) + " projected " + std::to_string(stored[x]) +
               " times";
      });
  }
  EXPECT_EQ(f.count(), 0) << f.text();
}

}  // namespace
}  // namespace frfit

namespace frfit {
namespace {

// Every field of two posture records (not their padding).
bool SamePosture(const cuda::DevicePosture& a, const cuda::DevicePosture& b) {
  return a.n == b.n && a.num_lines == b.num_lines && a.fit_order == b.fit_order &&
         a.cost_kind == b.cost_kind && a.phase_mode == b.phase_mode && a.loss == b.loss &&
         std::memcmp(&a.loss_scale, &b.loss_scale, sizeof(double)) == 0 &&
         std::memcmp(&a.posture_weight, &b.posture_weight, sizeof(double)) == 0 &&
         a.mass == b.mass && a.gravity == b.gravity && a.basis == b.basis &&
         a.response == b.response && a.omega == b.omega && a.weight == b.weight &&
         a.target == b.target && a.masses == b.masses && a.mass_parts == b.mass_parts &&
         a.gravity_parts == b.gravity_parts;
}

// ReplaceResident against packing every problem again: the same resident values and posture
// records, for every problem of the mixed batch (first, middle, last; with masses, response
// bases, postures of no line); and no change at all when the layout would differ.
TEST(CudaLaunch, ReplacingAProblemInPlaceEqualsPackingAllAgain) {
  const Batch b = MakeBatch(MixedSpecs(), 12);
  int replaced = 0;
  for (size_t k = 0; k < b.problems.size(); ++k) {
    cuda::ResidentProblems resident = cuda::PackResident(b.problems);
    std::vector<PackedProblem> want_problems = b.problems;
    want_problems[k] = RefinementPassOf(b.problems[k], 40 + static_cast<unsigned>(k));
    const cuda::ResidentProblems want = cuda::PackResident(want_problems);
    const cuda::ResidentProblems alone = cuda::PackResident({want_problems[k]});
    long long base = -1;
    ASSERT_TRUE(cuda::ReplaceResident(resident.first_posture, static_cast<int>(k), alone,
                                      &resident.postures, &base))
        << "problem " << k;
    std::copy(alone.values.begin(), alone.values.end(), resident.values.begin() + base);
    EXPECT_EQ(resident.values, want.values) << "problem " << k;
    ASSERT_EQ(resident.postures.size(), want.postures.size());
    for (size_t q = 0; q < want.postures.size(); ++q)
      EXPECT_TRUE(SamePosture(resident.postures[q], want.postures[q]))
          << "problem " << k << ", posture record " << q;
    ++replaced;
  }
  EXPECT_EQ(replaced, static_cast<int>(b.problems.size()));

  // Layouts that differ: a line fewer, a response basis added, a fitted mass added.
  const cuda::ResidentProblems before = cuda::PackResident(b.problems);
  PackedProblem fewer = b.problems[0];
  fewer.postures[1].omega_rad_s.pop_back();
  fewer.postures[1].weight.resize(fewer.postures[1].weight.size() - 9);
  fewer.postures[1].target.resize(fewer.postures[1].target.size() - 18);
  PackedProblem two_points = b.problems[0];
  two_points.postures[0].response_basis = two_points.postures[0].basis;
  PackedProblem with_mass = b.problems[0];
  std::mt19937_64 rng(5);
  bench::AddRandomMasses(rng, 1, &with_mass);
  for (const PackedProblem* other : {&fewer, &two_points, &with_mass}) {
    cuda::ResidentProblems resident = before;
    long long base = -1;
    EXPECT_FALSE(cuda::ReplaceResident(resident.first_posture, 0, cuda::PackResident({*other}),
                                       &resident.postures, &base));
    EXPECT_EQ(base, -1);
    for (size_t q = 0; q < before.postures.size(); ++q)
      EXPECT_TRUE(SamePosture(resident.postures[q], before.postures[q]));
  }
}

}  // namespace
}  // namespace frfit
