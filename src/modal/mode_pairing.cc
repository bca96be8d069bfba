#include "frfit/modal/mode_pairing.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace frfit {

// The O(n³) Hungarian method with row and column potentials (Kuhn 1955, Munkres 1957, in the
// shortest-augmenting-path form), on the cost padded to a square: a padded or forbidden cell costs
// more than any sum of allowed ones, so it is only taken when nothing else is possible.
std::vector<int> AssignMinimumCost(const Eigen::MatrixXd& cost) {
  const int rows = static_cast<int>(cost.rows()), cols = static_cast<int>(cost.cols());
  std::vector<int> out(rows, -1);
  if (rows == 0 || cols == 0) return out;
  const int n = std::max(rows, cols);
  double finite_sum = 0.0;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (std::isfinite(cost(r, c))) finite_sum += std::abs(cost(r, c));
  const double forbidden = 2.0 * (finite_sum + 1.0), padding = 4.0 * (finite_sum + 1.0);
  auto at = [&](int r, int c) {
    if (r >= rows || c >= cols) return padding;
    return std::isfinite(cost(r, c)) ? cost(r, c) : forbidden;
  };
  // 1-based: u, v potentials; p[j] the row matched to column j (0: none); way for the path.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> u(n + 1, 0.0), v(n + 1, 0.0);
  std::vector<int> p(n + 1, 0), way(n + 1, 0);
  for (int i = 1; i <= n; ++i) {
    p[0] = i;
    int j0 = 0;
    std::vector<double> minv(n + 1, inf);
    std::vector<char> used(n + 1, 0);
    do {
      used[j0] = 1;
      const int i0 = p[j0];
      double delta = inf;
      int j1 = 0;
      for (int j = 1; j <= n; ++j) {
        if (used[j]) continue;
        const double cur = at(i0 - 1, j - 1) - u[i0] - v[j];
        if (cur < minv[j]) minv[j] = cur, way[j] = j0;
        if (minv[j] < delta) delta = minv[j], j1 = j;
      }
      for (int j = 0; j <= n; ++j) {
        if (used[j]) u[p[j]] += delta, v[j] -= delta;
        else minv[j] -= delta;
      }
      j0 = j1;
    } while (p[j0] != 0);
    do {
      const int j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0);
  }
  for (int j = 1; j <= n; ++j) {
    const int r = p[j] - 1, c = j - 1;
    if (r < rows && c < cols && std::isfinite(cost(r, c))) out[r] = c;
  }
  return out;
}

double ShapeMac(const Eigen::VectorXcd& a, const Eigen::VectorXcd& b) {
  const Eigen::Index size = std::min(a.size(), b.size());
  Eigen::VectorXcd x(size), y(size);
  int n = 0;
  for (Eigen::Index i = 0; i < size; ++i)
    if (std::isfinite(std::abs(a(i))) && std::isfinite(std::abs(b(i)))) x(n) = a(i), y(n++) = b(i);
  x.conservativeResize(n);
  y.conservativeResize(n);
  if (n == 0 || !(x.squaredNorm() > 0.0) || !(y.squaredNorm() > 0.0)) return std::nan("");
  return Mac({x}, {y})(0, 0);
}

double SensorMac(const Mode& a, const Mode& b) { return ShapeMac(a.sensor_shape, b.sensor_shape); }

std::vector<Eigen::VectorXcd> SensorShapes(const std::vector<Mode>& modes) {
  std::vector<Eigen::VectorXcd> shapes;
  for (const Mode& m : modes) shapes.push_back(m.sensor_shape);
  return shapes;
}

std::vector<int> PairModes(const std::vector<Mode>& a, const std::vector<Mode>& b,
                           const ModePairingOptions& options) {
  return PairModes(a, SensorShapes(a), b, SensorShapes(b), options);
}

std::vector<int> PairModes(const std::vector<Mode>& a,
                           const std::vector<Eigen::VectorXcd>& a_shapes,
                           const std::vector<Mode>& b,
                           const std::vector<Eigen::VectorXcd>& b_shapes,
                           const ModePairingOptions& options) {
  Eigen::MatrixXd cost(static_cast<Eigen::Index>(a.size()), static_cast<Eigen::Index>(b.size()));
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) {
      const double df = std::abs(b[j].frequency_hz - a[i].frequency_hz) / a[i].frequency_hz;
      const double mac = ShapeMac(a_shapes[i], b_shapes[j]);
      const bool allowed = df <= options.max_frequency_difference &&
                           !(std::isfinite(mac) && mac < options.min_mac);
      cost(i, j) = allowed ? df + (std::isfinite(mac) ? 1.0 - mac : 0.0)
                           : std::numeric_limits<double>::infinity();
    }
  return AssignMinimumCost(cost);
}

}  // namespace frfit
