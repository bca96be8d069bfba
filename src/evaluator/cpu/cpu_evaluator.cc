// The cpu backend: the shared per-line code (the cost, or the normal equations) run on blocks of
// lines side by side in SIMD vectors (cpu_line_kernels.h), on a pool of threads kept for the
// evaluator's life, then the fixed reduction. A call with many (problem, individual) points runs
// one point per job; a call with few — a Levenberg–Marquardt round, a Nelder–Mead step — splits
// each point's lines into chunks so that every thread has work. A line's result does not depend
// on its slot, its chunk or its thread, and the reduction runs over the same line order, so the
// bits do not depend on the thread count, the split or the vector width (docs/cpu-backend.md).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <thread>

#include "frfit/common/error.h"
#include "frfit/evaluator/evaluator.h"
#include "kernels/line_cost.h"
#include "kernels/line_normal.h"
#include "kernels/tree_sum.h"
#include "src/evaluator/cpu/cpu_line_kernels.h"
#include "src/evaluator/cpu/thread_pool.h"

namespace frfit {
namespace {

// Below this many points per thread a call splits points into chunks of lines.
constexpr size_t kPointsPerThreadToSplit = 4;
// Chunks per thread a split call aims at, so that uneven chunks even out.
constexpr size_t kChunksPerThread = 8;

class CpuEvaluator final : public Evaluator {
 public:
  CpuEvaluator(int threads, const std::string& simd)
      : kernels_(cpu::FindLineKernels(simd)),
        pool_(threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))),
        scratch_(pool_.threads()) {}

  BackendType backend() const override { return BackendType::kCpu; }
  std::string description() const override {
    const int threads = pool_.threads();
    return "cpu, " + std::to_string(threads) + (threads == 1 ? " thread, " : " threads, ") +
           kernels_.Describe();
  }

  void SetProblems(std::vector<PackedProblem> problems) override {
    for (const PackedProblem& p : problems) CheckLineCapacity(p);
    problems_ = std::move(problems);
    blocks_.clear();
    for (const PackedProblem& p : problems_) {
      blocks_.emplace_back();
      for (const PackedPosture& posture : p.postures)
        blocks_.back().push_back(cpu::MakeLineBlocks(posture, kernels_.width));
    }
  }

  void SetProblem(int index, PackedProblem problem) override {
    CheckReplacement(index, problem);
    problems_[index] = std::move(problem);
    blocks_[index].clear();
    for (const PackedPosture& posture : problems_[index].postures)
      blocks_[index].push_back(cpu::MakeLineBlocks(posture, kernels_.width));
  }

  void Evaluate(std::span<const int> individuals, std::span<const double> coefficients,
                std::span<double> costs, std::span<EvalStatus> status) override {
    CheckCall(individuals, coefficients, costs, status);
    const std::vector<Point> points = Points(individuals, {});
    auto run_chunk = [&](const Chunk& c, double* line_costs, unsigned* line_status) {
      kernels_.cost(Range(points[c.point], c, coefficients.data()), line_costs, line_status);
    };
    auto reduce = [&](size_t i, double* line_costs, unsigned line_status) {
      const PackedProblem& problem = problems_[points[i].problem];
      double total = 0.0;
      for (int q = 0; q < problem.num_postures(); ++q) {
        const PackedPosture& posture = problem.postures[q];
        total = total +
                posture.posture_weight * kernels::TreeSum(line_costs, posture.num_lines());
        line_costs += PaddedLines(points[i].problem, q);
      }
      costs[i] = line_status ? std::numeric_limits<double>::infinity() : total;
      status[i] = ToEvalStatus(line_status);
    };
    RunPoints(points, /*terms=*/1, run_chunk, reduce);
  }

  void EvaluateNormalEquations(const NormalEquationsBatch& batch, std::span<double> normal,
                               std::span<EvalStatus> status) override {
    CheckCall(batch, normal, status);
    const std::vector<Point> points = Points(batch.individuals, batch.dims);
    // Per point and posture the lines' terms [term][padded line], so that every term's lines are
    // contiguous for TreeSum.
    auto run_chunk = [&](const Chunk& c, double* line_terms, unsigned* line_status) {
      const Point& point = points[c.point];
      const int dim = batch.dims[point.problem];
      const size_t sensitivity_stride =
          static_cast<size_t>(problems_[point.problem].coefficient_stride()) * dim;
      kernels_.normal(Range(point, c, batch.coefficients.data()),
                      batch.sensitivities.data() + point.sensitivities + c.posture * sensitivity_stride,
                      dim, line_terms, PaddedLines(point.problem, c.posture), line_status);
    };
    auto reduce = [&](size_t i, double* line_terms, unsigned line_status) {
      const Point& point = points[i];
      const PackedProblem& problem = problems_[point.problem];
      const int terms = kernels::NormalTermCount(batch.dims[point.problem]);
      std::span<double> out = normal.subspan(point.normal, terms);
      std::fill(out.begin(), out.end(), 0.0);
      for (int q = 0; q < problem.num_postures(); ++q) {
        const PackedPosture& posture = problem.postures[q];
        const int padded = PaddedLines(point.problem, q);
        for (int t = 0; t < terms; ++t)
          out[t] = out[t] + posture.posture_weight *
                                kernels::TreeSum(line_terms + static_cast<size_t>(t) * padded,
                                                 posture.num_lines());
        line_terms += static_cast<size_t>(terms) * padded;
      }
      status[i] = ToEvalStatus(line_status);
      if (line_status) std::fill(out.begin(), out.end(), std::numeric_limits<double>::infinity());
    };
    RunPoints(points, 0, run_chunk, reduce, batch.dims);
  }

 private:
  // One (problem, individual) of a call, with its offsets into the packed arrays.
  struct Point {
    int problem;
    size_t coefficients;   // into the packed coefficients
    size_t sensitivities;  // into the packed sensitivities (normal equations only)
    size_t normal;         // into the packed normal-equation terms (normal equations only)
  };

  // Blocks [first_block, last_block) of one posture of one point, and where its results go.
  struct Chunk {
    size_t point;
    int posture;
    int first_block;
    int last_block;
    size_t offset;  // of the posture's results in the point's buffer
  };

  // Points in (problem, individual) order; `dims` empty for a cost-only call. Counts line-solves.
  std::vector<Point> Points(std::span<const int> individuals, std::span<const int> dims) {
    std::vector<Point> points;
    Point next{0, 0, 0, 0};
    for (size_t p = 0; p < problems_.size(); ++p) {
      const size_t per_individual =
          static_cast<size_t>(problems_[p].num_postures()) * problems_[p].coefficient_stride();
      const int dim = dims.empty() ? 0 : dims[p];
      for (int i = 0; i < individuals[p]; ++i) {
        next.problem = static_cast<int>(p);
        points.push_back(next);
        next.coefficients += per_individual;
        next.sensitivities += per_individual * dim;
        if (dim) next.normal += kernels::NormalTermCount(dim);
        for (const auto& posture : problems_[p].postures) line_solves_ += posture.num_lines();
      }
    }
    return points;
  }

  int PaddedLines(int problem, int posture) const {
    const cpu::LineBlocks& b = blocks_[problem][posture];
    return b.blocks * b.width;
  }

  cpu::BlockRange Range(const Point& point, const Chunk& c, const double* coefficients) const {
    const PackedProblem& problem = problems_[point.problem];
    const PackedPosture& posture = problem.postures[c.posture];
    return {{problem.n, posture.mass.data(), posture.gravity.data(), posture.basis.data(),
             posture.response_data(), problem.masses, posture.mass_parts.data(),
             posture.gravity_parts.data(), posture.num_parts(), posture.part_matrices.data(),
             posture.part_layout.data()},
            coefficients + point.coefficients +
                static_cast<size_t>(c.posture) * problem.coefficient_stride(),
            &blocks_[point.problem][c.posture],
            c.first_block,
            c.last_block,
            posture.fit_order,
            posture.CostKind(problem.cost_kind),
            problem.phase_mode,
            problem.loss,
            problem.loss_scale};
  }

  // Runs run_chunk(chunk, results, status) over every line of every point, then
  // reduce(point, its buffer, its lines' status bits) for each.
  // A point's buffer holds, posture after posture, terms × padded lines (terms = 1 for costs;
  // 0 = NormalTermCount of the point's dim). With many points a job is a point (its buffer is the
  // thread's scratch); with few, a job is a chunk of one posture's blocks, all points' buffers
  // live at once, and the reductions follow.
  template <typename RunChunk, typename Reduce>
  void RunPoints(const std::vector<Point>& points, int terms, RunChunk& run_chunk, Reduce& reduce,
                 std::span<const int> dims = {}) {
    const size_t threads = static_cast<size_t>(pool_.threads());
    auto point_terms = [&](const Point& point) {
      return terms > 0 ? terms : kernels::NormalTermCount(dims[point.problem]);
    };
    auto buffer_size = [&](const Point& point) {
      size_t size = 0;
      for (int q = 0; q < problems_[point.problem].num_postures(); ++q)
        size += static_cast<size_t>(point_terms(point)) * PaddedLines(point.problem, q);
      return size;
    };
    if (threads == 1 || points.size() >= kPointsPerThreadToSplit * threads) {
      pool_.Run(points.size(), [&](size_t i, int thread) {
        std::vector<double>& buffer = scratch_[thread];
        buffer.resize(buffer_size(points[i]));
        size_t offset = 0;
        unsigned line_status = kernels::kLineOk;
        for (int q = 0; q < problems_[points[i].problem].num_postures(); ++q) {
          const Chunk whole{i, q, 0, blocks_[points[i].problem][q].blocks, offset};
          run_chunk(whole, buffer.data() + offset, &line_status);
          offset += static_cast<size_t>(point_terms(points[i])) * PaddedLines(points[i].problem, q);
        }
        reduce(i, buffer.data(), line_status);
      });
      return;
    }
    std::vector<size_t> start(points.size() + 1, 0);
    size_t total_blocks = 0;
    for (size_t i = 0; i < points.size(); ++i) {
      start[i + 1] = start[i] + buffer_size(points[i]);
      for (const cpu::LineBlocks& b : blocks_[points[i].problem]) total_blocks += b.blocks;
    }
    const int chunk_blocks = static_cast<int>(
        std::max<size_t>(1, (total_blocks + kChunksPerThread * threads - 1) / (kChunksPerThread * threads)));
    std::vector<Chunk> chunks;
    for (size_t i = 0; i < points.size(); ++i) {
      size_t offset = 0;
      for (int q = 0; q < problems_[points[i].problem].num_postures(); ++q) {
        const int blocks = blocks_[points[i].problem][q].blocks;
        for (int b = 0; b < blocks; b += chunk_blocks)
          chunks.push_back({i, q, b, std::min(blocks, b + chunk_blocks), offset});
        offset += static_cast<size_t>(point_terms(points[i])) * PaddedLines(points[i].problem, q);
      }
    }
    std::vector<double>& buffer = split_buffer_;
    buffer.resize(start.back());
    std::vector<unsigned> chunk_status(chunks.size(), kernels::kLineOk);
    pool_.Run(chunks.size(), [&](size_t j, int) {
      const Chunk& c = chunks[j];
      run_chunk(c, buffer.data() + start[c.point] + c.offset, &chunk_status[j]);
    });
    std::vector<unsigned> line_status(points.size(), kernels::kLineOk);
    for (size_t j = 0; j < chunks.size(); ++j) line_status[chunks[j].point] |= chunk_status[j];
    for (size_t i = 0; i < points.size(); ++i)
      reduce(i, buffer.data() + start[i], line_status[i]);
  }

  static EvalStatus ToEvalStatus(unsigned line_status) {
    return line_status & kernels::kLineSingular ? EvalStatus::kSingular
           : line_status                        ? EvalStatus::kNonFinite
                                                : EvalStatus::kOk;
  }

  cpu::LineKernels kernels_;
  cpu::ThreadPool pool_;
  std::vector<std::vector<double>> scratch_;  // per pool thread
  std::vector<double> split_buffer_;
  std::vector<std::vector<cpu::LineBlocks>> blocks_;  // [problem][posture]
};

}  // namespace

std::unique_ptr<Evaluator> CreateCpuEvaluator(int threads, const std::string& simd) {
  std::string name = simd;
  if (name.empty())
    if (const char* env = std::getenv("FRFIT_CPU_SIMD")) name = env;
  return std::make_unique<CpuEvaluator>(threads, name);
}

}  // namespace frfit
