#include "frfit/optim/polytope_projection.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "frfit/common/error.h"

namespace frfit {
namespace {

// The equality-constrained step: min ½pᵀMp + gᵀp subject to C_W p = 0, from the KKT system
// [M −C_Wᵀ; C_W 0][p; λ] = [−g; 0]; λ are the active rows' multipliers (≥ 0 at a minimum of the
// inequality-constrained problem).
void EqualityStep(const Eigen::MatrixXd& m, const Eigen::VectorXd& g, const Eigen::MatrixXd& c,
                  const std::vector<int>& active, Eigen::VectorXd* p, Eigen::VectorXd* lambda) {
  const int n = static_cast<int>(m.rows()), k = static_cast<int>(active.size());
  Eigen::MatrixXd kkt = Eigen::MatrixXd::Zero(n + k, n + k);
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n + k);
  kkt.topLeftCorner(n, n) = m;
  rhs.head(n) = -g;
  for (int i = 0; i < k; ++i) {
    kkt.block(n + i, 0, 1, n) = c.row(active[i]);
    kkt.block(0, n + i, n, 1) = -c.row(active[i]).transpose();
  }
  const Eigen::VectorXd solution = kkt.fullPivLu().solve(rhs);
  *p = solution.head(n);
  *lambda = solution.tail(k);
}

}  // namespace

PolytopeProjection ProjectOntoPolytope(const Eigen::MatrixXd& m, const Eigen::VectorXd& w,
                                       const Eigen::MatrixXd& c, const Eigen::VectorXd& d,
                                       const Eigen::VectorXd& x0, double tolerance) {
  const int n = static_cast<int>(w.size()), rows = static_cast<int>(c.rows());
  if (m.rows() != n || m.cols() != n || x0.size() != n || c.cols() != n || d.size() != rows)
    throw Error("", "projection", "expected M n×n, w and x0 of n, C rows×n and d of rows");
  Eigen::VectorXd norm(rows);
  for (int i = 0; i < rows; ++i) norm(i) = std::max(c.row(i).norm(), 1e-300);
  PolytopeProjection out;
  out.x = x0;
  out.multipliers = Eigen::VectorXd::Zero(rows);
  std::vector<int> active;
  const int limit = 10 * (n + rows) + 10;
  for (; out.iterations < limit; ++out.iterations) {
    Eigen::VectorXd p, lambda;
    EqualityStep(m, m * (out.x - w), c, active, &p, &lambda);
    if (p.norm() <= 1e-14 * (1.0 + out.x.norm())) {
      int most_negative = -1;
      for (int i = 0; i < static_cast<int>(active.size()); ++i)
        if (lambda(i) < 0.0 && (most_negative < 0 || lambda(i) < lambda(most_negative)))
          most_negative = i;
      if (most_negative < 0) {
        for (int i = 0; i < static_cast<int>(active.size()); ++i)
          out.multipliers(active[i]) = lambda(i);
        out.converged = true;
        return out;
      }
      active.erase(active.begin() + most_negative);
      continue;
    }
    // The longest step along p, up to 1, that keeps every inactive row satisfied.
    double alpha = 1.0;
    int blocking = -1;
    for (int i = 0; i < rows; ++i) {
      if (std::find(active.begin(), active.end(), i) != active.end()) continue;
      const double along = c.row(i).dot(p);
      if (along >= -1e-15 * norm(i) * p.norm()) continue;
      const double slack = std::max(c.row(i).dot(out.x) - d(i), 0.0);
      const double step = slack <= tolerance * norm(i) ? 0.0 : slack / -along;
      if (step < alpha) alpha = step, blocking = i;
    }
    out.x += alpha * p;
    if (blocking >= 0) active.push_back(blocking);
  }
  return out;
}

Eigen::VectorXd FeasiblePoint(const Eigen::MatrixXd& c, const Eigen::VectorXd& d,
                              Eigen::VectorXd x, double tolerance, bool* found) {
  const int rows = static_cast<int>(c.rows());
  for (int sweep = 0; sweep < 10000; ++sweep) {
    bool feasible = true;
    for (int i = 0; i < rows; ++i) {
      const double norm2 = c.row(i).squaredNorm(), norm = std::sqrt(norm2);
      const double r = c.row(i).dot(x) - d(i);
      if (r >= -tolerance * norm) continue;
      feasible = false;
      // To the half-space's boundary and a little inside, so that the sweeps end.
      x += (-r + 0.5 * tolerance * norm) / norm2 * c.row(i).transpose();
    }
    if (feasible) return *found = true, x;
  }
  *found = false;
  return x;
}

}  // namespace frfit
