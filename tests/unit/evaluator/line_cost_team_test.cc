// kernels::LineCostTeam spread over a team of lanes gives the bits of the one-thread LineCost
// (kernels/team.h). On the GPU a team is a tile of 8–32 threads with its scratch in shared memory;
// here host threads with a std::barrier stand in for the tile, with the same strided loops and a
// different (sequential) pivot combine, so a missing barrier, a lane reading what another lane
// writes in the same phase, or a pivot rule that depends on the lane split shows as a mismatch.
// This is the part of the tiled kernel's bit-identity that a machine without a GPU can check.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <bit>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/random_batch.h"
#include "kernels/line_cost.h"

namespace frfit {
namespace {

using kernels::PivotChoice;

// Host threads as one team: lane i of `lanes`, one barrier, one table for the pivot combine.
struct ThreadTeamShared {
  explicit ThreadTeamShared(int lanes) : barrier(lanes), choices(lanes) {}
  std::barrier<> barrier;
  std::vector<PivotChoice> choices;
};

class ThreadTeam {
 public:
  ThreadTeam(int lane, int lanes, ThreadTeamShared* shared)
      : lane_(lane), lanes_(lanes), shared_(shared) {}
  int lane() const { return lane_; }
  int size() const { return lanes_; }
  void Sync() const { shared_->barrier.arrive_and_wait(); }
  template <typename F>
  void ForRange(int begin, int end, F&& f) const {
    for (int i = begin + lane_; i < end; i += lanes_) f(i);
  }
  template <typename Row>
  void ForGrid(int rows, int cols, Row&& row) const {
    kernels::StridedGrid(lane_, lanes_, rows, cols, row);
  }
  PivotChoice FirstMax(PivotChoice mine) const {
    shared_->choices[lane_] = mine;
    Sync();
    PivotChoice best = shared_->choices[0];
    for (int l = 1; l < lanes_; ++l) best = kernels::Better(best, shared_->choices[l]);
    Sync();  // nobody overwrites the table before every lane has read it
    return best;
  }

 private:
  int lane_;
  int lanes_;
  ThreadTeamShared* shared_;
};

// One line of one individual at one posture.
struct LineCase {
  const PackedPosture* posture;
  int n;
  int cost_kind;
  int phase_mode;
  std::vector<double> coefficients;  // 3n + 1
  int line;
  std::string what;
};

struct Outcome {
  double cost;
  unsigned status;
};

kernels::PostureArrays Arrays(const LineCase& c) {
  return {c.n, c.posture->mass.data(), c.posture->gravity.data(), c.posture->basis.data()};
}
kernels::LineTarget Target(const LineCase& c) {
  return {c.posture->omega_rad_s[c.line], c.posture->weight.data() + 9 * c.line,
          c.posture->target.data() + 18 * c.line};
}

Outcome Serial(const LineCase& c) {
  unsigned status = kernels::kLineOk;
  const double cost = kernels::LineCost(Arrays(c), c.coefficients.data(), Target(c),
                                        c.posture->fit_order, c.cost_kind, c.phase_mode, &status);
  return {cost, status};
}

// Every case through one team of `lanes` threads sharing one scratch, as a GPU tile runs lines
// one after another; out[lane][case] is what each lane returned.
std::vector<std::vector<Outcome>> Team(const std::vector<LineCase>& cases, int lanes) {
  ThreadTeamShared shared(lanes);
  std::vector<unsigned char> memory(kernels::LineScratchBytes(kernels::kMaxDofs));
  std::vector<std::vector<Outcome>> out(lanes, std::vector<Outcome>(cases.size()));
  std::vector<std::thread> threads;
  for (int lane = 0; lane < lanes; ++lane)
    threads.emplace_back([&, lane] {
      const ThreadTeam team(lane, lanes, &shared);
      for (size_t i = 0; i < cases.size(); ++i) {
        const LineCase& c = cases[i];
        unsigned status = kernels::kLineOk;
        const double cost = kernels::LineCostTeam(
            team, kernels::LineScratchAt(memory.data(), c.n), Arrays(c), c.coefficients.data(),
            Target(c), c.posture->fit_order, c.cost_kind, c.phase_mode, &status);
        out[lane][i] = {cost, status};
        team.Sync();  // the next line's assembly must not overwrite what a lane still reads
      }
    });
  for (std::thread& t : threads) t.join();
  return out;
}

std::vector<double> Coefficients(std::mt19937_64& rng, int n) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> c;
  for (int j = 0; j < n; ++j) c.push_back(std::pow(10.0, 5.0 + 3.0 * u(rng)));  // k
  for (int j = 0; j < n; ++j) c.push_back(std::pow(10.0, 4.0 * u(rng)));        // c
  for (int j = 0; j < n; ++j) c.push_back(u(rng) < 0.5 ? 0.0 : 0.02 * c[j]);    // η·k
  c.push_back(u(rng) < 0.5 ? 0.0 : 1e-4);                                       // α
  return c;
}

// The bench's random problems (SPD mass, symmetric gravity) with every cost kind, phase mode and
// fit order, some entries unweighted; plus systems built to tie, to be singular and to carry NaN.
class LineCostTeamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::mt19937_64 rng(20261122);
    const int ns[] = {1, 2, 3, 9, 18, 32, 60};
    for (int n : ns)
      for (int variant = 0; variant < 3; ++variant) {
        PackedProblem p = bench::RandomProblem(rng, n, 1);
        PackedPosture& posture = p.postures[0];
        posture.fit_order = variant;
        for (int e = 0; e < 9 * bench::kLines; e += 4) posture.weight[e] = 0.0;
        if (variant == 2)  // the normalised complex cost compares (Re H, Im H)
          for (double& t : posture.target) t = 1e-6 * t;
        postures_.push_back(std::move(posture));
        kinds_.push_back(variant);
      }
    // Ties: mass and coefficients zero, so Z is the gravity matrix, whose column 0 is ±1000 in
    // every row: the first pivot search sees eight equal candidates and must take row 0. The
    // other columns are random, so another pivot would round differently.
    PackedPosture ties = bench::RandomProblem(rng, 8, 1).postures[0];
    std::fill(ties.mass.begin(), ties.mass.end(), 0.0);
    for (int r = 0; r < 8; ++r) ties.gravity[r * 8] = r % 3 ? -1e3 : 1e3;
    ties.fit_order = 0;
    postures_.push_back(ties);
    kinds_.push_back(0);
    // A NaN below the diagonal of column 0: never the pivot, then spread by the elimination.
    PackedPosture nan_below = bench::RandomProblem(rng, 5, 1).postures[0];
    nan_below.gravity[2 * 5 + 0] = std::numeric_limits<double>::quiet_NaN();
    nan_below.fit_order = 2;
    postures_.push_back(nan_below);
    kinds_.push_back(0);
    // A NaN target on a weighted entry of line 0: a non-finite line cost.
    PackedPosture nan_target = bench::RandomProblem(rng, 4, 1).postures[0];
    nan_target.weight[1] = 50.0;
    nan_target.target[2 * 1] = std::numeric_limits<double>::quiet_NaN();
    nan_target.fit_order = 1;
    postures_.push_back(nan_target);
    kinds_.push_back(1);

    const size_t random_postures = std::size(ns) * 3;
    for (size_t q = 0; q < postures_.size(); ++q) {
      const PackedPosture& posture = postures_[q];
      const int n = static_cast<int>(std::lround(std::sqrt(posture.mass.size())));
      for (int individual = 0; individual < 3; ++individual) {
        std::vector<double> c = Coefficients(rng, n);
        if (q >= random_postures) std::fill(c.begin(), c.end(), 0.0);
        if (q < random_postures && individual == 2 && n > 1) {
          c[n - 1] = std::numeric_limits<double>::quiet_NaN();  // a NaN stiffness: singular
        }
        for (int line = q < random_postures ? individual : 0; line < bench::kLines; line += 37)
          cases_.push_back({&postures_[q], n, kinds_[q], static_cast<int>(q % 2), c, line,
                            "posture " + std::to_string(q) + " (n = " + std::to_string(n) +
                                ") individual " + std::to_string(individual) + " line " +
                                std::to_string(line)});
      }
    }
  }

  std::vector<PackedPosture> postures_;
  std::vector<int> kinds_;
  std::vector<LineCase> cases_;
};

std::uint64_t Bits(double x) { return std::bit_cast<std::uint64_t>(x); }

TEST_F(LineCostTeamTest, EveryTeamSizeGivesTheSerialBitsOnEveryLane) {
  std::vector<Outcome> want;
  int singular = 0, non_finite = 0;
  for (const LineCase& c : cases_) {
    want.push_back(Serial(c));
    singular += (want.back().status & kernels::kLineSingular) != 0;
    non_finite += (want.back().status & kernels::kLineNonFinite) != 0;
  }
  // The special cases must reach both statuses, or they test less than they claim.
  EXPECT_GT(singular, 0);
  EXPECT_GT(non_finite, 0);
  for (int lanes : {2, 3, 4, 8, 16, 32}) {
    const auto got = Team(cases_, lanes);
    int mismatches = 0;
    for (int lane = 0; lane < lanes; ++lane)
      for (size_t i = 0; i < cases_.size(); ++i) {
        const Outcome& g = got[lane][i];
        if (Bits(g.cost) == Bits(want[i].cost) && g.status == want[i].status) continue;
        if (++mismatches <= 5)
          ADD_FAILURE() << lanes << " lanes, lane " << lane << ", " << cases_[i].what << ": cost "
                        << g.cost << " status " << g.status << ", serial " << want[i].cost
                        << " status " << want[i].status;
      }
    EXPECT_EQ(mismatches, 0) << lanes << " lanes, of " << cases_.size() * lanes;
  }
}

// The combine on its own: equal sizes go to the lowest row whatever the order lanes are folded in.
TEST(LineCostTeamPivot, TiesGoToTheFirstRowAndNaNNeverWins) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<PivotChoice> lanes = {{2.0, 5}, {-1.0, -1}, {2.0, 1}, {1.0, 0}, {2.0, 3}};
  for (int rotate = 0; rotate < 5; ++rotate) {
    PivotChoice best = lanes[rotate];
    for (int i = 1; i < 5; ++i) best = kernels::Better(best, lanes[(rotate + i) % 5]);
    EXPECT_EQ(best.row, 1) << "starting from lane " << rotate;
    EXPECT_EQ(best.size, 2.0);
  }
  // A lane's own scan skips NaN (size > best is false), so NaN never reaches the combine; a lane
  // that saw only NaN reports none, which loses to any real candidate, even a zero.
  EXPECT_EQ(kernels::Better({-1.0, -1}, {0.0, 4}).row, 4);
  EXPECT_EQ(kernels::Better({0.0, 4}, {-1.0, -1}).row, 4);
  EXPECT_FALSE(nan > -1.0);
}

TEST(LineCostTeamGrid, StridedWalkVisitsEveryCellOnce) {
  for (int lanes : {1, 2, 3, 7, 8, 32})
    for (int rows : {0, 1, 4, 17})
      for (int cols : {1, 3, 5, 20, 40}) {
        std::vector<int> seen(rows * cols, 0);
        for (int lane = 0; lane < lanes; ++lane)
          kernels::StridedGrid(lane, lanes, rows, cols, [&](int r) {
            return [&, r](int c) {
              ASSERT_LT(c, cols);
              ++seen[r * cols + c];
            };
          });
        for (int cell = 0; cell < rows * cols; ++cell)
          ASSERT_EQ(seen[cell], 1)
              << lanes << " lanes, " << rows << "x" << cols << " cell " << cell;
      }
}

}  // namespace
}  // namespace frfit
