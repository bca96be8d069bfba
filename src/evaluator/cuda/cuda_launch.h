// The cuda kernels' launch shapes and index arithmetic (docs/gpu-backend.md): how many blocks of
// how many threads each launch wrapper asks for, which line, tile slot, individual or term a
// thread of a kernel works on, and where it reads and writes. The kernels (src/evaluator/cuda/*.cu)
// call exactly these functions and keep only the per-line call and the stores; being host-device
// (and the launch shapes plain C++), they also run on the host, where
// tests/unit/cuda/cuda_launch_test.cc walks every (block, thread) of every launch and checks
// coverage, bounds and slots without a GPU. Only integer arithmetic here, except the reductions'
// sums, which are the kernels' own.
#pragma once

#include <algorithm>
#include <cstddef>

#include "frfit/common/host_device.h"
#include "src/evaluator/cuda/cuda_tables.h"
#include "kernels/line_cost.h"
#include "kernels/tree_sum.h"

namespace frfit::cuda {

// Threads a block of each kernel (each is also the kernel's __launch_bounds__).
constexpr int kLineBlock = 128;     // LineCostKernel
constexpr int kReduceBlock = 128;   // ReduceKernel
constexpr int kNormalBlock = 64;    // NormalLineKernel, NormalReduceKernel
constexpr int kBatchedBlock = 128;  // AssembleKernel, ProjectKernel
// LineCostTileKernel: at most this many threads a block, its tiles' slots within the shared
// memory a block gets without opting in.
constexpr int kTileBlockThreads = 128;
// Blocks of the tiled line kernel an SM must be able to hold by registers (its launch bounds).
constexpr int kTileBlocksPerSm = 5;
constexpr int kTileSharedBytes = 48 * 1024;
// A slot larger than that (past about 54 DOFs) runs alone in its block, which the launch opts in
// to up to this many bytes: the smallest opt-in limit of the GPUs this build loads on (compute
// capability 8.6 and 8.9; 8.0 allows 163 KB, 9.0 227 KB). 64 DOFs need 69 704 B.
constexpr int kTileSharedOptInBytes = 99 * 1024;
// The batched tier's scratch bound per chunk: Z and X of every line of the chunk.
constexpr size_t kBatchedChunkBytes = size_t{512} << 20;

// One launch: blocks × threads, dynamic shared bytes per block, and (tiled line kernel) the
// bytes of each tile's slot. blocks may exceed what one launch takes; the wrapper checks.
struct LaunchShape {
  long long blocks = 0;
  int threads = 0;
  size_t shared_bytes = 0;
  int scratch_bytes = 0;
};

// One thread per item, `block` threads a block.
inline LaunchShape ThreadPerItem(long long items, int block) {
  return {(items + block - 1) / block, block, 0, 0};
}

// Shared memory of one tile's scratch for n DOFs, rounded to keep every slot 16-byte aligned.
inline int TileScratchBytes(int n) { return (kernels::LineScratchBytes(n) + 15) / 16 * 16; }

// LineCostTileKernel<lanes> over a group of num_lines lines whose largest n is max_n. Shared
// memory bounds how many lines an SM holds at once, so each tile's slot is sized by the largest
// n of this call's group, not by its bucket (n = 9 in the 12 bucket: 1952 B, not 3152); as many
// tiles as fit in kTileSharedBytes (32 DOFs: 2 tiles of 18.5 KB), at most kTileBlockThreads.
inline LaunchShape TileLineLaunch(int lanes, int max_n, long long num_lines) {
  const int scratch_bytes = TileScratchBytes(max_n);
  const int tiles =
      std::max(1, std::min(kTileBlockThreads / lanes, kTileSharedBytes / scratch_bytes));
  return {(num_lines + tiles - 1) / tiles, tiles * lanes,
          static_cast<size_t>(tiles) * scratch_bytes, scratch_bytes};
}

// The batched tier's lines per chunk for a group of num_lines lines of n DOFs: Z (n×n) and X
// (n×3) of every line of a chunk within chunk_bytes, at least one line, at most 2³¹ − 1.
inline long long BatchedChunkLines(int n, long long num_lines, size_t chunk_bytes) {
  const size_t per_line = sizeof(kernels::Cplx) * (static_cast<size_t>(n) * n + 3 * n);
  return std::max<long long>(
      1, std::min<long long>(
             {num_lines, static_cast<long long>(chunk_bytes / per_line), 0x7fffffffLL}));
}
// f(first, count) for the chunks [first, first + count) of num_lines lines, in order.
template <typename F>
void ForEachChunk(long long num_lines, long long chunk, F&& f) {
  for (long long first = 0; first < num_lines; first += chunk)
    f(first, static_cast<int>(std::min<long long>(chunk, num_lines - first)));
}

// --- per thread -----------------------------------------------------------------------------
// A thread's index in a 1-D grid (blockIdx.x, blockDim.x, threadIdx.x): 64-bit where a launch
// may count more than 2³¹ items (lines, terms), 32-bit where it counts individuals or a chunk.
FRFIT_HOST_DEVICE FRFIT_INLINE long long GridIndex(unsigned block, unsigned block_dim,
                                                   unsigned thread) {
  return static_cast<long long>(block) * block_dim + thread;
}
FRFIT_HOST_DEVICE FRFIT_INLINE int GridIndex32(unsigned block, unsigned block_dim,
                                               unsigned thread) {
  return block * block_dim + thread;
}
// Whether item `index` lies past the launch's `count` items (the thread has no work).
template <typename Index, typename Count>
FRFIT_HOST_DEVICE FRFIT_INLINE bool PastEnd(Index index, Count count) {
  return index >= count;
}

// LineCostTileKernel<kLanes>: the line of a thread's tile (the same on the tile's kLanes
// threads), and the byte offset of the tile's scratch slot in the block's shared memory.
template <int kLanes>
FRFIT_HOST_DEVICE FRFIT_INLINE long long TileLine(unsigned block, unsigned block_dim,
                                                  unsigned thread) {
  return GridIndex(block, block_dim, thread) / kLanes;
}
template <int kLanes>
FRFIT_HOST_DEVICE FRFIT_INLINE unsigned TileSlot(unsigned thread, int scratch_bytes) {
  return (thread / kLanes) * scratch_bytes;
}

// The last i in [0, count) whose start(i) <= t, by binary search (start ascending): the block a
// thread's item falls in, for the line kernels (segments) and the normal reduction (individuals).
template <typename Start>
FRFIT_HOST_DEVICE FRFIT_INLINE int LastStartAtOrBelow(int count, long long t, Start start) {
  int lo = 0, hi = count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) >> 1;
    if (start(mid) <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

// Segment of a group's line t: the last s with line_starts[s] <= t.
FRFIT_HOST_DEVICE FRFIT_INLINE int FindSegment(const long long* line_starts, int count,
                                               long long t) {
  return LastStartAtOrBelow(count, t, [line_starts](int s) { return line_starts[s]; });
}

// Line t of a launch group: its segment (Segment or NormalSegment), its posture and its index l
// within the posture.
template <typename Seg>
struct LineRefOf {
  Seg seg;
  DevicePosture p;
  int l;
  FRFIT_HOST_DEVICE FRFIT_INLINE kernels::PostureArrays Arrays(const double* resident) const {
    return {p.n,          resident + p.mass,       resident + p.gravity,
            resident + p.basis, resident + p.response, p.masses,
            resident + p.mass_parts, resident + p.gravity_parts, p.parts,
            resident + p.part_matrices, resident + p.part_layout};
  }
  FRFIT_HOST_DEVICE FRFIT_INLINE kernels::LineTarget Target(const double* resident) const {
    return {resident[p.omega + l], resident + p.weight + 9LL * l, resident + p.target + 18LL * l,
            p.loss, p.loss_scale};
  }
  // Where the line's cost (or status) goes: line_costs_ / line_status_ / normal_line_status_.
  FRFIT_HOST_DEVICE FRFIT_INLINE long long out() const { return seg.first_line + l; }
  // Where term 0 of a normal-equation line goes in line_terms_ (term k: + k·seg.stride).
  FRFIT_HOST_DEVICE FRFIT_INLINE double* Terms(double* line_terms) const {
    return line_terms + seg.terms + l;
  }
};
using LineRef = LineRefOf<Segment>;

template <typename Seg>
FRFIT_HOST_DEVICE FRFIT_INLINE LineRefOf<Seg> LocateLine(const DevicePosture* postures,
                                                         const Seg* segments,
                                                         const long long* line_starts,
                                                         int num_segments, long long t) {
  const int s = FindSegment(line_starts, num_segments, t);
  const Seg seg = segments[s];
  return {seg, postures[seg.posture], static_cast<int>(t - line_starts[s])};
}

// The batched tier's line i of a chunk: where its Z (n×n) and X (n×3) lie in the chunk's buffers.
FRFIT_HOST_DEVICE FRFIT_INLINE size_t BatchedZOffset(int i, int n) {
  return static_cast<size_t>(i) * n * n;
}
FRFIT_HOST_DEVICE FRFIT_INLINE size_t BatchedXOffset(int i, int n) {
  return static_cast<size_t>(i) * n * 3;
}

// --- the reductions ---------------------------------------------------------------------------
// Segments [first, first + count): TreeSum of each one's lines (in place on the array lines_of
// points into, the same loops as the host), weighted by its posture and added left to right into
// *total; returns the segments' line status bits ORed.
template <typename Seg, typename LinesOf>
FRFIT_HOST_DEVICE FRFIT_INLINE unsigned ReduceSegments(const DevicePosture* postures,
                                                       const Seg* segments, int first, int count,
                                                       const unsigned char* line_status,
                                                       LinesOf lines_of, double* total) {
  unsigned flags = kernels::kLineOk;
  for (int s = first; s < first + count; ++s) {
    const Seg seg = segments[s];
    for (int l = 0; l < seg.num_lines; ++l) flags |= line_status[seg.first_line + l];
    *total = *total +
             postures[seg.posture].posture_weight * kernels::TreeSum(lines_of(seg), seg.num_lines);
  }
  return flags;
}

// One (problem, individual) of ReduceKernel: its postures' line costs into *total.
FRFIT_HOST_DEVICE FRFIT_INLINE unsigned ReduceIndividual(const DevicePosture* postures,
                                                         const Segment* segments, Individual ind,
                                                         double* line_costs,
                                                         const unsigned char* line_status,
                                                         double* total) {
  return ReduceSegments(
      postures, segments, ind.first_segment, ind.num_segments, line_status,
      [line_costs](const Segment& seg) { return line_costs + seg.first_line; }, total);
}

// An individual's status from its lines' status bits, as the cpu backend folds them.
FRFIT_HOST_DEVICE FRFIT_INLINE EvalStatus StatusOfLines(unsigned flags) {
  return flags & kernels::kLineSingular ? EvalStatus::kSingular
         : flags                        ? EvalStatus::kNonFinite
                                        : EvalStatus::kOk;
}

// NormalReduceKernel's output term k: the individual whose block [out, out + terms) holds it
// (binary search in the individuals' ascending `out`), and the term k − out within the block.
struct TermRef {
  int individual;  // its index, where its status goes
  NormalIndividual ind;
  long long term;
};
FRFIT_HOST_DEVICE FRFIT_INLINE TermRef LocateTerm(const NormalIndividual* individuals,
                                                  int num_individuals, long long k) {
  const int i =
      LastStartAtOrBelow(num_individuals, k, [individuals](int j) { return individuals[j].out; });
  const NormalIndividual ind = individuals[i];
  return {i, ind, k - ind.out};
}

// Term t of one individual: each posture's lines of that term into *total.
FRFIT_HOST_DEVICE FRFIT_INLINE unsigned ReduceNormalTerm(
    const DevicePosture* postures, const NormalSegment* segments, const NormalIndividual& ind,
    long long t, double* line_terms, const unsigned char* line_status, double* total) {
  return ReduceSegments(
      postures, segments, ind.first_segment, ind.num_segments, line_status,
      [line_terms, t](const NormalSegment& seg) { return line_terms + seg.terms + t * seg.stride; },
      total);
}

}  // namespace frfit::cuda
