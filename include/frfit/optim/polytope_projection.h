// The projection of a point onto a polytope {x : C x ≥ d} in the metric of a positive definite M:
//   minimise ½ (x − w)ᵀ M (x − w)  subject to  C x ≥ d,
// by the primal active-set method (Nocedal & Wright, Numerical Optimization, §16.5) from a
// feasible x0. With M the damped Gauss–Newton matrix and w its unconstrained step this is the
// constrained Levenberg–Marquardt step, and its fixed point a KKT point of the constrained fit;
// with M diagonal it is the nearest feasible point (the genetic algorithm's and Nelder–Mead's
// repair). Small dense problems only (tens of variables and rows): each iteration is a dense KKT
// solve.
#pragma once

#include <Eigen/Core>

namespace frfit {

struct PolytopeProjection {
  Eigen::VectorXd x;
  Eigen::VectorXd multipliers;  // per row of C, ≥ 0, non-zero only on active rows
  int iterations = 0;
  bool converged = false;  // false: the iteration limit was met; x is feasible but not optimal
};

// x0 must satisfy C x0 ≥ d to within `tolerance` per row (rows scaled to unit norm); rows within
// that tolerance of equality count as active. Throws frfit::Error on mismatched sizes.
PolytopeProjection ProjectOntoPolytope(const Eigen::MatrixXd& m, const Eigen::VectorXd& w,
                                       const Eigen::MatrixXd& c, const Eigen::VectorXd& d,
                                       const Eigen::VectorXd& x0, double tolerance = 1e-12);

// Some x with C x ≥ d, found by cyclic projections onto the rows' half-spaces (each in the
// Euclidean metric), from `start`; `found` false when none is within `tolerance` after the
// sweeps (the polytope is empty or nearly so).
Eigen::VectorXd FeasiblePoint(const Eigen::MatrixXd& c, const Eigen::VectorXd& d,
                              Eigen::VectorXd start, double tolerance, bool* found);

}  // namespace frfit
