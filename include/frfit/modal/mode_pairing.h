// One-to-one pairing of two lists of modes (a reference and a model, two nights of one robot):
// the assignment of least total cost (Kuhn–Munkres), each mode paired at most once, so that two
// reference modes can never share one fitted mode and a mode with no partner says so.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "frfit/modal/modal.h"

namespace frfit {

// Rows are assigned to distinct columns with the least total cost; +inf marks a pair that is not
// allowed. Returns each row's column, or −1 for a row left without one (more rows than columns,
// or only forbidden columns left for it).
std::vector<int> AssignMinimumCost(const Eigen::MatrixXd& cost);

struct ModePairingOptions {
  // A pair is allowed only within this relative frequency difference |f_b − f_a| / f_a.
  double max_frequency_difference = 0.15;
  // and, where both modes have shapes on common axes, with at least this MAC.
  double min_mac = 0.3;
};

// The MAC of two shapes over the entries both know (an estimated shape is NaN on axes no FRF
// measured); NaN when they share none. Shapes of any length: one point's three axes, or several
// points' stacked.
double ShapeMac(const Eigen::VectorXcd& a, const Eigen::VectorXcd& b);
// ShapeMac of the modes' sensor_shape.
double SensorMac(const Mode& a, const Mode& b);
// The modes' sensor_shape, in order: the shapes the pairing and comparisons take by default.
std::vector<Eigen::VectorXcd> SensorShapes(const std::vector<Mode>& modes);

// For each mode of `a` its partner in `b` (−1 for none): the cost of a pair is its relative
// frequency difference plus (1 − MAC) where a MAC is known.
std::vector<int> PairModes(const std::vector<Mode>& a, const std::vector<Mode>& b,
                           const ModePairingOptions& options = {});
// The same with the MAC of given shapes, one per mode (e.g. stacked over several points), in
// place of the modes' sensor_shape.
std::vector<int> PairModes(const std::vector<Mode>& a,
                           const std::vector<Eigen::VectorXcd>& a_shapes,
                           const std::vector<Mode>& b,
                           const std::vector<Eigen::VectorXcd>& b_shapes,
                           const ModePairingOptions& options = {});

}  // namespace frfit
