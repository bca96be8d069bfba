// The tables the cuda backend uploads and its kernels index (docs/gpu-backend.md), and how the host
// builds them from the problems and one call's individuals. Plain C++ (no CUDA headers): the host
// emulation of the launches (tests/unit/cuda/cuda_launch_test.cc) builds the very tables the
// kernels read. What the kernels compute from them is in kernels/cuda_launch.h.
#pragma once

#include <algorithm>
#include <array>
#include <iterator>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/evaluator/evaluator.h"
#include "kernels/line_normal.h"

namespace frfit::cuda {

// One (problem, posture) as resident on the device: offsets into the one resident double array.
struct DevicePosture {
  int n;
  int num_lines;
  int fit_order;
  int cost_kind;
  int phase_mode;
  int loss;  // kernels::LossKind
  double loss_scale;
  double posture_weight;
  // Offsets into resident doubles; response == basis when the set has one point (the tool tip).
  long long mass, gravity, basis, response, omega, weight, target;
  int masses;  // fitted body masses; their shares at mass_parts, gravity_parts ([masses][n][n])
  long long mass_parts, gravity_parts;
  int parts;  // affine parts; their matrices at part_matrices, (target, coefficient) at part_layout
  long long part_matrices, part_layout;
};

// One (problem, individual, posture): a run of num_lines consecutive line costs.
struct Segment {
  int posture;  // index into the DevicePosture table
  int num_lines;
  long long coefficients;  // offset of this posture's coefficients (stride) in the call's array
  long long first_line;    // offset of its first line in line_costs_ / line_status_
};

// One (problem, individual): its postures are segments [first_segment, first_segment + count).
struct Individual {
  int first_segment;
  int num_segments;
};

// The normal-equation path's tables. Each (problem, individual) owns a block of line terms laid
// out [term][line of the individual], so that a term's lines of one posture are contiguous for
// TreeSum and a line kernel's threads write one term of consecutive lines side by side.
struct NormalSegment {
  int posture;  // index into the DevicePosture table
  int num_lines;
  int dim;  // free parameters of the problem
  int pad_;
  long long coefficients;   // offset of the posture's [3n+1] coefficients in the call's array
  long long sensitivities;  // offset of the posture's [3n+1][dim] sensitivities
  long long terms;          // offset of term 0 of this segment's first line in line_terms_
  long long stride;         // lines of the individual: distance between consecutive terms
  long long first_line;     // offset of its first line in normal_line_status_
};
struct NormalIndividual {
  int first_segment;
  int num_segments;
  int dim;
  int pad_;
  long long out;  // offset of its NormalTermCount(dim) terms in the call's output
};

// The kCapacity buckets of kernels::LineCost, and the one a problem of n DOFs runs in. The
// sequence instantiates the line kernels (DispatchCapacity); the array indexes the buckets.
using CapacitySequence = std::integer_sequence<int, 4, 8, 12, 18, 24, 32, 48, 64>;
template <int... C>
constexpr std::array<int, sizeof...(C)> CapacityArray(std::integer_sequence<int, C...>) {
  return {C...};
}
constexpr std::array<int, CapacitySequence::size()> kCapacityBuckets =
    CapacityArray(CapacitySequence{});
constexpr int kNumCapacityBuckets = static_cast<int>(kCapacityBuckets.size());
static_assert(kCapacityBuckets.back() == kernels::kMaxDofs, "the last bucket holds every problem");
// Index in kCapacityBuckets of the smallest bucket that holds n (the last one for larger n).
inline int CapacityBucketIndex(int n) {
  int b = 0;
  while (b + 1 < kNumCapacityBuckets && n > kCapacityBuckets[b]) ++b;
  return b;
}
inline int CapacityBucket(int n) { return kCapacityBuckets[CapacityBucketIndex(n)]; }

// launch(std::integral_constant<int, C>{}) for the bucket C equal to `capacity` (the largest
// bucket for any other value): the one place a run-time bucket becomes a kernel's template
// argument, for the cuda launches and their host emulation alike.
template <typename Launch, int... C>
decltype(auto) DispatchCapacityOver(int capacity, Launch&& launch,
                                    std::integer_sequence<int, C...>) {
  using Result = decltype(launch(std::integral_constant<int, kernels::kMaxDofs>{}));
  if constexpr (std::is_void_v<Result>) {
    if (!((capacity == C ? (launch(std::integral_constant<int, C>{}), true) : false) || ...))
      launch(std::integral_constant<int, kernels::kMaxDofs>{});
  } else {
    Result result{};
    if (!((capacity == C ? (result = launch(std::integral_constant<int, C>{}), true) : false) ||
          ...))
      result = launch(std::integral_constant<int, kernels::kMaxDofs>{});
    return result;
  }
}
template <typename Launch>
decltype(auto) DispatchCapacity(int capacity, Launch&& launch) {
  return DispatchCapacityOver(capacity, std::forward<Launch>(launch), CapacitySequence{});
}

// What SetProblems uploads once: every posture's arrays in one array of doubles, and the table
// of their offsets.
struct ResidentProblems {
  std::vector<double> values;
  std::vector<DevicePosture> postures;
  std::vector<int> first_posture;  // per problem: index of its first DevicePosture
};

// Throws frfit::Error naming the field whose size does not match the problem's n and lines.
inline ResidentProblems PackResident(const std::vector<PackedProblem>& problems) {
  ResidentProblems out;
  auto append = [&out](const std::vector<double>& values, size_t expected, const char* field) {
    if (values.size() != expected)
      throw Error(
          "", std::string("problem.") + field,
          "expected " + std::to_string(expected) + " values, got " + std::to_string(values.size()));
    const long long offset = static_cast<long long>(out.values.size());
    out.values.insert(out.values.end(), values.begin(), values.end());
    return offset;
  };
  for (const PackedProblem& p : problems) {
    CheckLineCapacity(p);  // a problem without lines (modes alone) may exceed kMaxDofs
    out.first_posture.push_back(static_cast<int>(out.postures.size()));
    const size_t n = static_cast<size_t>(p.n);
    for (const PackedPosture& q : p.postures) {
      const size_t lines = q.omega_rad_s.size();
      DevicePosture d{};
      d.n = p.n;
      d.num_lines = static_cast<int>(lines);
      d.fit_order = q.fit_order;
      d.cost_kind = q.CostKind(p.cost_kind);
      d.phase_mode = p.phase_mode;
      d.loss = p.loss;
      d.loss_scale = p.loss_scale;
      d.posture_weight = q.posture_weight;
      d.mass = append(q.mass, n * n, "mass");
      d.gravity = append(q.gravity, n * n, "gravity");
      d.basis = append(q.basis, n * 3, "basis");
      d.response = q.response_basis.empty() ? d.basis
                                            : append(q.response_basis, n * 3, "response_basis");
      d.masses = p.masses;
      const size_t parts = static_cast<size_t>(p.masses) * n * n;
      d.mass_parts = append(q.mass_parts, parts, "mass_parts");
      d.gravity_parts = append(q.gravity_parts, parts, "gravity_parts");
      d.parts = q.num_parts();
      d.part_matrices = append(q.part_matrices, static_cast<size_t>(d.parts) * n * n,
                               "part_matrices");
      d.part_layout = append(q.part_layout, static_cast<size_t>(d.parts) * 2, "part_layout");
      d.omega = append(q.omega_rad_s, lines, "omega");
      d.weight = append(q.weight, lines * 9, "weight");
      d.target = append(q.target, lines * 18, "target");
      out.postures.push_back(d);
    }
  }
  return out;
}

// Problem `index` of a resident set replaced by `replacement` where it stands, as a fit's move
// to a refinement pass needs (Evaluator::SetProblem): packed alone, the replacement must lay out
// exactly as the problem it replaces (same DOFs, postures, lines, fitted masses, response bases:
// a pass changes weights, targets and cost settings only). Then `postures` gets its records —
// new cost settings, the old offsets — and `*base` says where its values go: replacement.values
// (PackResident of it alone) at that resident offset. Returns false, changing nothing, when the
// layout differs; the caller then packs every problem again.
inline bool ReplaceResident(const std::vector<int>& first_posture, int index,
                            const ResidentProblems& replacement,
                            std::vector<DevicePosture>* postures, long long* base) {
  const size_t first = static_cast<size_t>(first_posture[index]);
  const size_t end = static_cast<size_t>(index) + 1 < first_posture.size()
                         ? static_cast<size_t>(first_posture[index + 1])
                         : postures->size();
  if (end - first != replacement.postures.size() || end == first) return false;
  const long long at = (*postures)[first].mass;  // PackResident's first value of the problem
  for (size_t q = first; q < end; ++q) {
    const DevicePosture& old = (*postures)[q];
    const DevicePosture& d = replacement.postures[q - first];
    const bool same = old.n == d.n && old.num_lines == d.num_lines && old.masses == d.masses &&
                      old.mass == d.mass + at && old.gravity == d.gravity + at &&
                      old.basis == d.basis + at && old.response == d.response + at &&
                      old.mass_parts == d.mass_parts + at &&
                      old.gravity_parts == d.gravity_parts + at && old.parts == d.parts &&
                      old.part_matrices == d.part_matrices + at &&
                      old.part_layout == d.part_layout + at && old.omega == d.omega + at &&
                      old.weight == d.weight + at && old.target == d.target + at;
    if (!same) return false;
  }
  const long long next = end < postures->size() ? (*postures)[end].mass : -1;
  if (next >= 0 && next != at + static_cast<long long>(replacement.values.size())) return false;
  for (size_t q = first; q < end; ++q) {
    const DevicePosture offsets = (*postures)[q];
    DevicePosture& d = (*postures)[q];
    d = replacement.postures[q - first];
    d.mass = offsets.mass, d.gravity = offsets.gravity, d.basis = offsets.basis;
    d.response = offsets.response, d.mass_parts = offsets.mass_parts;
    d.gravity_parts = offsets.gravity_parts, d.omega = offsets.omega;
    d.part_matrices = offsets.part_matrices, d.part_layout = offsets.part_layout;
    d.weight = offsets.weight, d.target = offsets.target;
  }
  *base = at;
  return true;
}

// The segments of one launch group (same key: a kCapacity bucket or an exact n), as the host
// builds them; the group's lines are numbered 0 .. num_lines − 1 in segment order.
struct LineGroup {
  int key = 0;
  long long num_lines = 0;  // total lines of the group
  int max_n = 0;            // largest n among the group's problems in this call
  std::vector<Segment> host_segments;
  std::vector<long long> host_line_starts;  // exclusive prefix of lines per segment
};

// One Evaluate call's tables.
struct CostTables {
  std::vector<Segment> segments;        // (problem, individual, posture) order, for the reduction
  std::vector<Individual> individuals;  // (problem, individual) order: one cost each
  long long num_lines = 0;              // line costs (and statuses) of the call
};

// Segments in (problem, individual, posture) order, line costs laid out in the same order. Each
// problem's segments with lines also go to the group of key group_key(n) in `groups` (Group
// derives from LineGroup; groups persist from call to call and are emptied first, new keys are
// appended).
template <typename Group, typename GroupKey>
CostTables BuildCostTables(const std::vector<PackedProblem>& problems,
                           const std::vector<int>& first_posture, std::span<const int> individuals,
                           GroupKey group_key, std::vector<Group>& groups) {
  CostTables out;
  for (Group& g : groups)
    g.host_segments.clear(), g.host_line_starts.clear(), g.num_lines = 0, g.max_n = 0;
  long long coefficient_offset = 0;
  for (size_t p = 0; p < problems.size(); ++p) {
    const PackedProblem& problem = problems[p];
    const int key = group_key(problem.n);
    size_t gi = 0;
    for (gi = 0; gi < groups.size() && groups[gi].key != key; ++gi) {
    }
    if (gi == groups.size()) {
      groups.emplace_back();
      groups.back().key = key;
    }
    Group& group = groups[gi];
    // A problem without lines launches nothing: its n (past kMaxDofs for modes alone) must not
    // size the shared scratch of the lines it shares a group with.
    if (individuals[p] > 0 && problem.num_lines() > 0) group.max_n = std::max(group.max_n, problem.n);
    for (int i = 0; i < individuals[p]; ++i) {
      out.individuals.push_back({static_cast<int>(out.segments.size()), problem.num_postures()});
      for (int q = 0; q < problem.num_postures(); ++q) {
        const Segment seg{first_posture[p] + q, problem.postures[q].num_lines(), coefficient_offset,
                          out.num_lines};
        out.segments.push_back(seg);
        if (seg.num_lines > 0) {
          group.host_line_starts.push_back(group.num_lines);
          group.host_segments.push_back(seg);
          group.num_lines += seg.num_lines;
        }
        coefficient_offset += problem.coefficient_stride();
        out.num_lines += seg.num_lines;
      }
    }
  }
  return out;
}

// One EvaluateNormalEquations call's tables: segments in individual order (the reduction's),
// then each bucket's segments with lines (its line kernel's), with their line prefix tables.
struct NormalTables {
  struct Bucket {
    int capacity = 0;
    long long first_segment = 0;  // of its segments in `segments`
    long long first_start = 0;    // of its line prefix table in `line_starts`
    int num_segments = 0;
    long long num_lines = 0;
  };
  std::vector<NormalSegment> segments;
  std::vector<long long> line_starts;
  std::vector<NormalIndividual> individuals;
  Bucket buckets[kNumCapacityBuckets];
  long long num_terms = 0;  // line terms of the call (line_terms_)
  long long num_lines = 0;  // line statuses of the call (normal_line_status_)
  long long num_out = 0;    // reduced terms of the call (the output)
};

inline NormalTables BuildNormalTables(const std::vector<PackedProblem>& problems,
                                      const std::vector<int>& first_posture,
                                      const NormalEquationsBatch& batch) {
  NormalTables out;
  std::vector<NormalSegment> bucket_segments[kNumCapacityBuckets];
  std::vector<long long> bucket_starts[kNumCapacityBuckets];
  long long coefficient_offset = 0, sensitivity_offset = 0;
  for (size_t p = 0; p < problems.size(); ++p) {
    const PackedProblem& problem = problems[p];
    const int dim = batch.dims[p];
    const int terms = kernels::NormalTermCount(dim);
    const int bucket = CapacityBucketIndex(problem.n);
    long long lines_per_individual = 0;
    for (const PackedPosture& q : problem.postures) lines_per_individual += q.num_lines();
    for (int i = 0; i < batch.individuals[p]; ++i) {
      out.individuals.push_back(
          {static_cast<int>(out.segments.size()), problem.num_postures(), dim, 0, out.num_out});
      long long within = 0;
      for (int q = 0; q < problem.num_postures(); ++q) {
        const int lines = problem.postures[q].num_lines();
        const NormalSegment seg{first_posture[p] + q,
                                lines,
                                dim,
                                0,
                                coefficient_offset,
                                sensitivity_offset,
                                out.num_terms + within,
                                lines_per_individual,
                                out.num_lines};
        out.segments.push_back(seg);
        if (lines > 0) {
          bucket_starts[bucket].push_back(out.buckets[bucket].num_lines);
          bucket_segments[bucket].push_back(seg);
          out.buckets[bucket].num_lines += lines;
        }
        within += lines;
        out.num_lines += lines;
        coefficient_offset += problem.coefficient_stride();
        sensitivity_offset += static_cast<long long>(problem.coefficient_stride()) * dim;
      }
      out.num_terms += lines_per_individual * terms;
      out.num_out += terms;
    }
  }
  for (int b = 0; b < kNumCapacityBuckets; ++b) {
    NormalTables::Bucket& bucket = out.buckets[b];
    bucket.capacity = kCapacityBuckets[b];
    bucket.first_segment = static_cast<long long>(out.segments.size());
    bucket.first_start = static_cast<long long>(out.line_starts.size());
    bucket.num_segments = static_cast<int>(bucket_segments[b].size());
    out.segments.insert(out.segments.end(), bucket_segments[b].begin(), bucket_segments[b].end());
    out.line_starts.insert(out.line_starts.end(), bucket_starts[b].begin(), bucket_starts[b].end());
  }
  return out;
}

}  // namespace frfit::cuda
