// The cuda kernels' launches emulated on the host, without a GPU (src/evaluator/cuda/cuda_launch.h,
// docs/gpu-backend.md): every (block, thread) of every launch the wrappers make for a Batch runs
// the index functions of cuda_launch.h on the tables of cuda_tables.h, each check of a launch's
// grid going into Findings, and — with compute — the per-line functions the kernels run, storing
// where the kernels store. EmulateEvaluate and EmulateNormalEquations return what a GPU run would
// give, for comparison with the cpu backend (CpuEvaluate, CpuNormalEquations). Shared by the tests
// on random batches (cuda_launch_test.cc) and on the beam models' packed problems
// (beam_model_emulation_test.cc); it holds no test itself.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "cuda/feature_batch.h"
#include "frfit/evaluator/evaluator.h"
#include "kernels/line_normal.h"
#include "src/evaluator/cuda/cuda_launch.h"

namespace frfit::launch_emulation {

using cuda::LaunchShape;
using cuda::LineRef;
using cuda::Segment;
using feature_batch::Batch;

// Collects failed checks: the first few in words, the rest counted (a broken index would
// otherwise print one line per thread).
class Findings {
 public:
  template <typename What>
  void Check(bool ok, What&& what) {
    if (ok) return;
    if (count_++ < 8) text_ += what() + "\n";
  }
  int count() const { return count_; }
  const std::string& text() const { return text_; }

 private:
  int count_ = 0;
  std::string text_;
};

// A copy of `values` between poisoned guard elements: a function that reads past either end
// reads the poison, which the checks then see, and a write there shows in GuardsIntact.
template <typename T>
class Guarded {
 public:
  static constexpr size_t kGuard = 64;
  Guarded(const std::vector<T>& values, T poison)
      : poison_(poison), all_(values.size() + 2 * kGuard, poison) {
    std::copy(values.begin(), values.end(), all_.begin() + kGuard);
  }
  T* data() { return all_.data() + kGuard; }
  size_t size() const { return all_.size() - 2 * kGuard; }
  bool GuardsIntact() const {
    for (size_t i = 0; i < kGuard; ++i)
      if (std::memcmp(&all_[i], &poison_, sizeof(T)) != 0 ||
          std::memcmp(&all_[all_.size() - 1 - i], &poison_, sizeof(T)) != 0)
        return false;
    return true;
  }

 private:
  T poison_;
  std::vector<T> all_;
};

// Poison for the tables' guards: a record read past a table's end names a valid posture and
// points its one line (and term) into the guards of the line buffers, so what is summed or
// located from it is NaN, a guard's status bits or a wrong position, never undefined memory.
const Segment kPoisonSegment{0, 1, 0, -1};
const cuda::Individual kPoisonIndividual{0, 0};
const cuda::NormalSegment kPoisonNormalSegment{0, 1, 1, 0, 0, 0, -1, 0, -1};
const cuda::NormalIndividual kPoisonNormalIndividual{0, 0, 1, 0,
                                                     std::numeric_limits<long long>::max()};

// --- batches and the independent enumeration of their lines -----------------------------------

// One line of a call, where the packing orders of evaluator.h put it — enumerated from the
// problems alone, not from the tables the kernels read.
struct ExpectedLine {
  int problem, individual, posture, line;
  int posture_index;             // in the table of every problem's postures, problems in order
  long long position;            // (problem, individual, posture, line) order: costs, statuses
  long long coefficients;        // of its (individual, posture) in the call's coefficients
  long long sensitivities;       // of its (individual, posture) in the call's sensitivities
  long long term0, term_stride;  // its term 0 in the line terms, the distance between terms
  long long normal_out;          // its individual's first term in the normal-equation output
};

inline std::vector<ExpectedLine> EnumerateLines(const Batch& b) {
  std::vector<ExpectedLine> out;
  int posture_index = 0, individual = 0;
  long long position = 0, coefficients = 0, sensitivities = 0, terms = 0, normal_out = 0;
  for (size_t p = 0; p < b.problems.size(); ++p) {
    const PackedProblem& problem = b.problems[p];
    long long lines_per_individual = 0;
    for (const PackedPosture& q : problem.postures) lines_per_individual += q.num_lines();
    const int term_count = kernels::NormalTermCount(b.dims[p]);
    for (int i = 0; i < b.individuals[p]; ++i, ++individual) {
      long long within = 0;
      for (int q = 0; q < problem.num_postures(); ++q) {
        for (int l = 0; l < problem.postures[q].num_lines(); ++l)
          out.push_back({static_cast<int>(p), individual, q, l, posture_index + q, position++,
                         coefficients, sensitivities, terms + within + l, lines_per_individual,
                         normal_out});
        within += problem.postures[q].num_lines();
        const int stride =
            3 * problem.n + 1 + problem.masses + problem.parts;  // as evaluator.h packs them
        coefficients += stride;
        sensitivities += static_cast<long long>(stride) * b.dims[p];
      }
      terms += lines_per_individual * term_count;
      normal_out += term_count;
    }
    posture_index += problem.num_postures();
  }
  return out;
}

inline int CountIndividuals(const Batch& b) {
  int count = 0;
  for (int i : b.individuals) count += i;
  return count;
}

// The lines of one launch group (problems whose key is `key`), in the group's line order.
inline std::vector<const ExpectedLine*> GroupLines(const Batch& b,
                                                   const std::vector<ExpectedLine>& all, int key,
                                                   int (*group_key)(int)) {
  std::vector<const ExpectedLine*> out;
  for (const ExpectedLine& e : all)
    if (group_key(b.problems[e.problem].n) == key) out.push_back(&e);
  return out;
}

inline int ExactN(int n) { return n; }

// One Evaluate call as the host sets it up — resident problems, tables, launch groups by
// group_key — and, independently, the call's lines and individuals.
struct CostCall {
  explicit CostCall(const Batch& b, int (*group_key)(int) = cuda::CapacityBucket)
      : resident(cuda::PackResident(b.problems)),
        tables(cuda::BuildCostTables(b.problems, resident.first_posture, b.individuals, group_key,
                                     groups)),
        all(EnumerateLines(b)),
        count(CountIndividuals(b)) {}
  cuda::ResidentProblems resident;
  std::vector<cuda::LineGroup> groups;  // before tables: BuildCostTables fills it
  cuda::CostTables tables;
  std::vector<ExpectedLine> all;
  int count;
};

// One EvaluateNormalEquations call likewise.
struct NormalCall {
  explicit NormalCall(const Batch& b)
      : resident(cuda::PackResident(b.problems)),
        tables(cuda::BuildNormalTables(
            b.problems, resident.first_posture,
            NormalEquationsBatch{b.individuals, b.dims, b.coefficients, b.sensitivities})),
        all(EnumerateLines(b)),
        count(CountIndividuals(b)) {}
  cuda::ResidentProblems resident;
  cuda::NormalTables tables;
  std::vector<ExpectedLine> all;
  int count;
};

// What LocateLine returned for a line against where the line is; also that its posture record
// points at the line's own data in the resident array.
template <typename Seg>
void CheckLocated(const cuda::LineRefOf<Seg>& r, const ExpectedLine& e, const Batch& b,
                  const cuda::ResidentProblems& resident, Findings& f) {
  const PackedPosture& q = b.problems[e.problem].postures[e.posture];
  const int n = b.problems[e.problem].n;
  const bool found = r.seg.posture == e.posture_index && r.l == e.line && r.out() == e.position &&
                     r.seg.coefficients == e.coefficients && r.p.n == n &&
                     r.p.num_lines == q.num_lines() && r.seg.num_lines == q.num_lines();
  f.Check(found, [&] {
    return "line " + std::to_string(e.position) + " (problem " + std::to_string(e.problem) +
           ", posture " + std::to_string(e.posture) + ", line " + std::to_string(e.line) +
           "): located at posture record " + std::to_string(r.seg.posture) + ", line " +
           std::to_string(r.l) + ", out " + std::to_string(r.out());
  });
  if (!found) return;
  const double* values = resident.values.data();
  const kernels::PostureArrays arrays = r.Arrays(values);
  const kernels::LineTarget target = r.Target(values);
  f.Check(target.omega_rad_s == q.omega_rad_s[e.line] &&
              target.weight[8] == q.weight[9 * e.line + 8] &&
              target.target[17] == q.target[18 * e.line + 17] &&
              arrays.mass[n * n - 1] == q.mass[n * n - 1] &&
              arrays.gravity[n * n - 1] == q.gravity[n * n - 1] &&
              arrays.basis[3 * n - 1] == q.basis[3 * n - 1] &&
              arrays.masses == b.problems[e.problem].masses &&
              (arrays.masses == 0 ||
               (arrays.mass_parts[arrays.masses * n * n - 1] == q.mass_parts.back() &&
                arrays.gravity_parts[arrays.masses * n * n - 1] == q.gravity_parts.back())),
          [&] { return "line " + std::to_string(e.position) + ": resident data of another line"; });
}

// --- the line kernels' grids ------------------------------------------------------------------

inline long long TileLineOf(int lanes, unsigned block, unsigned block_dim, unsigned thread) {
  return lanes == 4    ? cuda::TileLine<4>(block, block_dim, thread)
         : lanes == 8  ? cuda::TileLine<8>(block, block_dim, thread)
         : lanes == 16 ? cuda::TileLine<16>(block, block_dim, thread)
                       : cuda::TileLine<32>(block, block_dim, thread);
}
inline unsigned TileSlotOf(int lanes, unsigned thread, int scratch_bytes) {
  return lanes == 4    ? cuda::TileSlot<4>(thread, scratch_bytes)
         : lanes == 8  ? cuda::TileSlot<8>(thread, scratch_bytes)
         : lanes == 16 ? cuda::TileSlot<16>(thread, scratch_bytes)
                       : cuda::TileSlot<32>(thread, scratch_bytes);
}

// Every (block, thread) of the launch the deterministic tier makes for `group` with `lanes`
// lanes per line (1: LineCostKernel<group.key>, else LineCostTileKernel<lanes>), checked against
// `expected` (the group's lines in order); line(r, scratch) runs once per line computed — for a
// tile on its lane 0, which is the lane that writes — scratch being the tile's slot in its
// block's emulated shared memory (null on one lane).
inline void EmulateLineLaunch(const cuda::LineGroup& group, int lanes, const Batch& b,
                              const cuda::ResidentProblems& resident,
                              const std::vector<const ExpectedLine*>& expected, Findings& f,
                              const std::function<void(const LineRef&, unsigned char*)>& line) {
  const std::string launch =
      "bucket " + std::to_string(group.key) + ", " + std::to_string(lanes) + " lanes: ";
  f.Check(group.num_lines == static_cast<long long>(expected.size()),
          [&] { return launch + "group of " + std::to_string(group.num_lines) + " lines"; });
  const LaunchShape shape = lanes == 1 ? cuda::ThreadPerItem(group.num_lines, cuda::kLineBlock)
                                       : cuda::TileLineLaunch(lanes, group.max_n, group.num_lines);
  f.Check(shape.threads >= lanes && shape.threads <= 1024 && shape.threads % lanes == 0 &&
              (shape.shared_bytes <= 48 * 1024 ||
               (shape.threads == lanes && shape.shared_bytes <= cuda::kTileSharedOptInBytes)) &&
              shape.blocks <= 0x7fffffffLL,
          [&] {
            return launch + std::to_string(shape.blocks) + " blocks of " +
                   std::to_string(shape.threads) + " threads, " +
                   std::to_string(shape.shared_bytes) + " shared bytes";
          });
  if (shape.threads < lanes || shape.threads % lanes != 0) return;
  Guarded<Segment> segments(group.host_segments, kPoisonSegment);
  Guarded<long long> starts(group.host_line_starts, std::numeric_limits<long long>::max());
  const int num_segments = static_cast<int>(group.host_segments.size());
  std::vector<int> computed(group.num_lines, 0);
  // A block's dynamic shared memory, 16-byte aligned like the kernel's __align__(16) array.
  std::vector<kernels::Cplx> shared(shape.shared_bytes / sizeof(kernels::Cplx) + 1);
  unsigned char* const base = reinterpret_cast<unsigned char*>(shared.data());
  for (long long block = 0; block < shape.blocks; ++block) {
    std::vector<std::pair<size_t, size_t>> used;  // bytes of each tile's line in this block
    for (int thread = 0; thread < shape.threads; ++thread) {
      const auto b_ = static_cast<unsigned>(block);
      const long long t = lanes == 1 ? cuda::GridIndex(b_, shape.threads, thread)
                                     : TileLineOf(lanes, b_, shape.threads, thread);
      if (lanes > 1) {
        const long long t0 = TileLineOf(lanes, b_, shape.threads, thread - thread % lanes);
        f.Check(t == t0, [&] {
          return launch + "block " + std::to_string(block) + ": lanes of one tile on lines " +
                 std::to_string(t0) + " and " + std::to_string(t);
        });
      }
      if (cuda::PastEnd(t, group.num_lines)) continue;
      f.Check(t >= 0 && t < group.num_lines, [&] {
        return launch + "thread on line " + std::to_string(t) + " of " +
               std::to_string(group.num_lines);
      });
      if (t < 0 || t >= group.num_lines) continue;
      const LineRef r = cuda::LocateLine(resident.postures.data(), segments.data(), starts.data(),
                                         num_segments, t);
      CheckLocated(r, *expected[t], b, resident, f);
      if (r.seg.posture != expected[t]->posture_index) continue;
      if (lanes == 1) {
        f.Check(r.p.n <= group.key, [&] { return launch + "n above the kernel's capacity"; });
        ++computed[t];
        line(r, nullptr);
        continue;
      }
      const unsigned slot = TileSlotOf(lanes, thread, shape.scratch_bytes);
      const size_t end = slot + static_cast<size_t>(kernels::LineScratchBytes(r.p.n));
      const kernels::LineScratch carved = kernels::LineScratchAt(base + slot, r.p.n);
      const bool inside = slot % 16 == 0 && end <= shape.shared_bytes &&
                          reinterpret_cast<unsigned char*>(carved.terms + 9) <= base + end;
      f.Check(inside, [&] {
        return launch + "line " + std::to_string(t) + " (n = " + std::to_string(r.p.n) +
               "): slot at byte " + std::to_string(slot) + ", " + std::to_string(end - slot) +
               " bytes, of " + std::to_string(shape.shared_bytes);
      });
      if (thread % lanes != 0) continue;  // lane 0 (thread_rank of the tile) writes the line
      used.push_back({slot, end});
      ++computed[t];
      if (inside) line(r, base + slot);
    }
    std::sort(used.begin(), used.end());
    for (size_t i = 1; i < used.size(); ++i)
      f.Check(used[i - 1].second <= used[i].first, [&] {
        return launch + "block " + std::to_string(block) + ": slots overlap at bytes " +
               std::to_string(used[i].first) + " .. " + std::to_string(used[i - 1].second);
      });
  }
  for (long long t = 0; t < group.num_lines; ++t)
    f.Check(computed[t] == 1, [&] {
      return launch + "line " + std::to_string(t) + " computed " + std::to_string(computed[t]) +
             " times";
    });
  f.Check(segments.GuardsIntact() && starts.GuardsIntact(),
          [&] { return launch + "a group table was written"; });
}

template <int kCapacity>
double OneThreadCost(const LineRef& r, const double* resident, const double* coefficients,
                     unsigned* status) {
  return kernels::LineCost<kCapacity>(r.Arrays(resident), coefficients + r.seg.coefficients,
                                      r.Target(resident), r.p.fit_order, r.p.cost_kind,
                                      r.p.phase_mode, status);
}
inline double OneThreadCostIn(int capacity, const LineRef& r, const double* resident,
                              const double* coefficients, unsigned* status) {
  return cuda::DispatchCapacity(capacity, [&](auto cap) {
    return OneThreadCost<decltype(cap)::value>(r, resident, coefficients, status);
  });
}

struct CostRun {
  std::vector<double> costs;
  std::vector<EvalStatus> status;
};

// Individuals whose cost differs from `want`'s in its bits, or whose status differs.
inline int CostMismatches(const CostRun& want, const CostRun& got) {
  int mismatches = 0;
  for (size_t i = 0; i < want.costs.size(); ++i)
    mismatches += std::memcmp(&want.costs[i], &got.costs[i], sizeof(double)) != 0 ||
                  want.status[i] != got.status[i];
  return mismatches;
}

// The deterministic tier's Evaluate on the host: its tables, every line launch (checked as
// above) running the per-line code the kernel runs and storing where the kernel stores, then the
// reduction's grid. With compute == false only the grids are checked.
inline CostRun EmulateEvaluate(const Batch& b, int lanes, bool compute, Findings& f) {
  const CostCall call(b);
  const auto& [resident, groups, tables, all, count] = call;
  f.Check(tables.num_lines == static_cast<long long>(all.size()) &&
              tables.individuals.size() == static_cast<size_t>(count),
          [&] { return "tables of " + std::to_string(tables.num_lines) + " lines"; });
  // As allocated by Evaluate: at least one element.
  const std::vector<double> zeros(std::max<long long>(tables.num_lines, 1), 0.0);
  Guarded<double> line_costs(zeros, std::numeric_limits<double>::quiet_NaN());
  Guarded<unsigned char> line_status(std::vector<unsigned char>(zeros.size(), 0), 0xee);
  std::vector<int> stored(zeros.size(), 0);
  for (const cuda::LineGroup& group : groups) {
    if (group.num_lines == 0) continue;  // the wrapper launches nothing for it
    const std::vector<const ExpectedLine*> expected =
        GroupLines(b, all, group.key, cuda::CapacityBucket);
    EmulateLineLaunch(
        group, lanes, b, resident, expected, f, [&](const LineRef& r, unsigned char* scratch) {
          const long long out = r.out();
          f.Check(out >= 0 && out < static_cast<long long>(zeros.size()),
                  [&] { return "line stored at " + std::to_string(out); });
          if (out < 0 || out >= static_cast<long long>(zeros.size())) return;
          ++stored[out];
          if (!compute) return;
          unsigned status = kernels::kLineOk;
          const double cost =
              scratch ? kernels::LineCostTeam(kernels::SerialTeam{},
                                              kernels::LineScratchAt(scratch, r.p.n),
                                              r.Arrays(resident.values.data()),
                                              b.coefficients.data() + r.seg.coefficients,
                                              r.Target(resident.values.data()), r.p.fit_order,
                                              r.p.cost_kind, r.p.phase_mode, &status)
                      : OneThreadCostIn(group.key, r, resident.values.data(), b.coefficients.data(),
                                        &status);
          line_costs.data()[out] = cost;
          line_status.data()[out] = static_cast<unsigned char>(status);
        });
  }
  for (long long x = 0; x < tables.num_lines; ++x)
    f.Check(stored[x] == 1, [&] {
      return "line position " + std::to_string(x) + " stored " + std::to_string(stored[x]) +
             " times";
    });

  CostRun run{std::vector<double>(count, -1.0), std::vector<EvalStatus>(count, EvalStatus(77))};
  if (count == 0) return run;
  Guarded<Segment> segments(tables.segments, kPoisonSegment);
  Guarded<cuda::Individual> individuals(tables.individuals, kPoisonIndividual);
  const LaunchShape shape = cuda::ThreadPerItem(count, cuda::kReduceBlock);
  std::vector<int> reduced(count, 0);
  for (long long block = 0; block < shape.blocks; ++block)
    for (int thread = 0; thread < shape.threads; ++thread) {
      const int i = cuda::GridIndex32(static_cast<unsigned>(block), shape.threads, thread);
      if (cuda::PastEnd(i, count)) continue;
      f.Check(i >= 0 && i < count,
              [&] { return "reduction thread on individual " + std::to_string(i); });
      if (i < 0 || i >= count) continue;
      ++reduced[i];
      if (!compute) continue;
      double total = 0.0;
      const unsigned flags =
          cuda::ReduceIndividual(resident.postures.data(), segments.data(), individuals.data()[i],
                                 line_costs.data(), line_status.data(), &total);
      run.costs[i] = flags ? std::numeric_limits<double>::infinity() : total;
      run.status[i] = cuda::StatusOfLines(flags);
    }
  for (int i = 0; i < count; ++i)
    f.Check(reduced[i] == 1, [&] {
      return "individual " + std::to_string(i) + " reduced " + std::to_string(reduced[i]) +
             " times";
    });
  f.Check(line_costs.GuardsIntact() && line_status.GuardsIntact(),
          [&] { return std::string("a line kernel or the reduction wrote outside its buffers"); });
  return run;
}

inline CostRun CpuEvaluate(const Batch& b) {
  auto cpu = CreateCpuEvaluator(1);
  cpu->SetProblems(b.problems);
  const int count = CountIndividuals(b);
  CostRun run{std::vector<double>(count), std::vector<EvalStatus>(count)};
  cpu->Evaluate(b.individuals, b.coefficients, run.costs, run.status);
  return run;
}

// The lanes per line the tiled cost launch is emulated with (1: the thread-per-line kernel).
inline constexpr int kLaneChoices[] = {1, 4, 8, 16, 32};

// --- normal equations ---------------------------------------------------------------------------

template <int kCapacity>
void OneThreadNormal(const cuda::LineRefOf<cuda::NormalSegment>& r, const double* resident,
                     const Batch& b, double* line_terms, unsigned* status) {
  kernels::LineNormalTerms<kCapacity>(
      r.Arrays(resident), b.coefficients.data() + r.seg.coefficients,
      b.sensitivities.data() + r.seg.sensitivities, r.seg.dim, r.Target(resident), r.p.fit_order,
      r.p.cost_kind, r.p.phase_mode, r.Terms(line_terms), r.seg.stride, status);
}
inline void OneThreadNormalIn(int capacity, const cuda::LineRefOf<cuda::NormalSegment>& r,
                              const double* resident, const Batch& b, double* line_terms,
                              unsigned* status) {
  return cuda::DispatchCapacity(capacity, [&](auto cap) {
    return OneThreadNormal<decltype(cap)::value>(r, resident, b, line_terms, status);
  });
}

struct NormalRun {
  std::vector<double> normal;
  std::vector<EvalStatus> status;
};

// Normal-equation terms that differ from `want`'s in their bits.
inline int TermMismatches(const NormalRun& want, const NormalRun& got) {
  int mismatches = 0;
  for (size_t k = 0; k < want.normal.size(); ++k)
    mismatches += std::memcmp(&want.normal[k], &got.normal[k], sizeof(double)) != 0;
  return mismatches;
}

// EvaluateNormalEquations on the host: its tables, each bucket's line launch (every term slot
// [term][line] written once, statuses once, lines located as enumerated), then the reduction's
// grid (every (individual, term) once). With compute == false only the grids are checked.
inline NormalRun EmulateNormalEquations(const Batch& b, bool compute, Findings& f) {
  const NormalCall call(b);
  const auto& [resident, tables, all, count] = call;
  long long want_out = 0;
  for (size_t p = 0; p < b.problems.size(); ++p)
    want_out += static_cast<long long>(b.individuals[p]) * kernels::NormalTermCount(b.dims[p]);
  f.Check(tables.num_out == want_out && tables.num_lines == static_cast<long long>(all.size()),
          [&] { return "normal tables: " + std::to_string(tables.num_out) + " terms out"; });
  Guarded<cuda::NormalSegment> segments(tables.segments, kPoisonNormalSegment);
  Guarded<long long> starts(tables.line_starts, std::numeric_limits<long long>::max());
  const std::vector<double> zeros(std::max<long long>(tables.num_terms, 1), 0.0);
  Guarded<double> line_terms(zeros, std::numeric_limits<double>::quiet_NaN());
  Guarded<unsigned char> line_status(
      std::vector<unsigned char>(std::max<long long>(tables.num_lines, 1), 0), 0xee);
  std::vector<int> term_writes(zeros.size(), 0), status_writes(tables.num_lines, 0);
  for (const cuda::NormalTables::Bucket& bucket : tables.buckets) {
    if (bucket.num_lines == 0) continue;
    const std::vector<const ExpectedLine*> expected =
        GroupLines(b, all, bucket.capacity, cuda::CapacityBucket);
    f.Check(bucket.num_lines == static_cast<long long>(expected.size()),
            [&] { return "bucket " + std::to_string(bucket.capacity) + " line count"; });
    const LaunchShape shape = cuda::ThreadPerItem(bucket.num_lines, cuda::kNormalBlock);
    for (long long block = 0; block < shape.blocks; ++block)
      for (int thread = 0; thread < shape.threads; ++thread) {
        const long long t = cuda::GridIndex(static_cast<unsigned>(block), shape.threads, thread);
        if (cuda::PastEnd(t, bucket.num_lines)) continue;
        f.Check(t >= 0 && t < static_cast<long long>(expected.size()),
                [&] { return "normal line thread on line " + std::to_string(t); });
        if (t < 0 || t >= static_cast<long long>(expected.size())) continue;
        const auto r =
            cuda::LocateLine(resident.postures.data(), segments.data() + bucket.first_segment,
                             starts.data() + bucket.first_start, bucket.num_segments, t);
        const ExpectedLine& e = *expected[t];
        CheckLocated(r, e, b, resident, f);
        f.Check(r.seg.sensitivities == e.sensitivities && r.seg.dim == b.dims[e.problem] &&
                    r.Terms(line_terms.data()) - line_terms.data() == e.term0 &&
                    r.seg.stride == e.term_stride && r.p.n <= bucket.capacity,
                [&] { return "normal line " + std::to_string(e.position) + ": term slots"; });
        const long long first_term = r.Terms(line_terms.data()) - line_terms.data();
        bool inside = r.out() >= 0 && r.out() < tables.num_lines;
        for (int k = 0; k < kernels::NormalTermCount(r.seg.dim) && inside; ++k) {
          const long long x = first_term + k * r.seg.stride;
          inside = x >= 0 && x < tables.num_terms;
          if (inside) ++term_writes[x];
        }
        f.Check(inside, [&] { return "normal line " + std::to_string(t) + " writes outside"; });
        if (!inside) continue;
        ++status_writes[r.out()];
        if (!compute) continue;
        unsigned status = kernels::kLineOk;
        OneThreadNormalIn(bucket.capacity, r, resident.values.data(), b, line_terms.data(),
                          &status);
        line_status.data()[r.out()] = static_cast<unsigned char>(status);
      }
  }
  for (long long x = 0; x < tables.num_terms; ++x)
    f.Check(term_writes[x] == 1, [&] {
      return "line term " + std::to_string(x) + " written " + std::to_string(term_writes[x]) +
             " times";
    });
  for (long long x = 0; x < tables.num_lines; ++x)
    f.Check(status_writes[x] == 1, [&] {
      return "line status " + std::to_string(x) + " written " + std::to_string(status_writes[x]) +
             " times";
    });

  NormalRun run{std::vector<double>(want_out, -1.0),
                std::vector<EvalStatus>(count, EvalStatus(77))};
  Guarded<cuda::NormalIndividual> individuals(tables.individuals, kPoisonNormalIndividual);
  const LaunchShape shape = cuda::ThreadPerItem(tables.num_out, cuda::kNormalBlock);
  std::vector<int> reduced(want_out, 0), status_set(count, 0);
  std::vector<int> first_of_individual(count, -1);
  for (const ExpectedLine& e : all)
    first_of_individual[e.individual] = static_cast<int>(e.normal_out);
  for (long long block = 0; block < shape.blocks; ++block)
    for (int thread = 0; thread < shape.threads; ++thread) {
      const long long k = cuda::GridIndex(static_cast<unsigned>(block), shape.threads, thread);
      if (cuda::PastEnd(k, tables.num_out)) continue;
      f.Check(k >= 0 && k < want_out, [&] { return "normal term " + std::to_string(k); });
      if (k < 0 || k >= want_out) continue;
      const cuda::TermRef term = cuda::LocateTerm(individuals.data(), count, k);
      const bool found = term.individual >= 0 && term.individual < count && term.term >= 0 &&
                         term.term < kernels::NormalTermCount(term.ind.dim) &&
                         term.ind.out + term.term == k &&
                         (first_of_individual[term.individual] < 0 ||
                          first_of_individual[term.individual] == term.ind.out);
      f.Check(found, [&] {
        return "normal term " + std::to_string(k) + ": individual " +
               std::to_string(term.individual) + ", term " + std::to_string(term.term);
      });
      if (!found) continue;
      ++reduced[k];
      if (term.term == 0) ++status_set[term.individual];
      if (!compute) continue;
      double total = 0.0;
      const unsigned flags =
          cuda::ReduceNormalTerm(resident.postures.data(), segments.data(), term.ind, term.term,
                                 line_terms.data(), line_status.data(), &total);
      run.normal[k] = flags ? std::numeric_limits<double>::infinity() : total;
      if (term.term == 0) run.status[term.individual] = cuda::StatusOfLines(flags);
    }
  for (long long k = 0; k < want_out; ++k)
    f.Check(reduced[k] == 1, [&] {
      return "normal term " + std::to_string(k) + " reduced " + std::to_string(reduced[k]) +
             " times";
    });
  for (int i = 0; i < count; ++i)
    f.Check(status_set[i] == 1, [&] { return "status of individual " + std::to_string(i); });
  f.Check(line_terms.GuardsIntact() && line_status.GuardsIntact() && segments.GuardsIntact(),
          [&] { return std::string("a normal-equation kernel wrote outside its buffers"); });
  return run;
}

// The cpu backend's normal equations of `b`, as EmulateNormalEquations returns them.
inline NormalRun CpuNormalEquations(const Batch& b) {
  auto cpu = CreateCpuEvaluator(1);
  cpu->SetProblems(b.problems);
  long long terms = 0;
  for (size_t p = 0; p < b.problems.size(); ++p)
    terms += static_cast<long long>(b.individuals[p]) * kernels::NormalTermCount(b.dims[p]);
  NormalRun run{std::vector<double>(terms), std::vector<EvalStatus>(CountIndividuals(b))};
  cpu->EvaluateNormalEquations({b.individuals, b.dims, b.coefficients, b.sensitivities}, run.normal,
                               run.status);
  return run;
}

}  // namespace frfit::launch_emulation
