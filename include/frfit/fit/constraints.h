// Linear constraints between parameters (the fit configuration's `constraints:` list,
// docs/fit-config.md "Constraints"): `k_x1 >= k_z1`, `k_x2 == k_y2`, `m_tool + m_spindle <= 95`,
// `2*k_a - k_b >= 0`. Each is a relation between two linear expressions in parameter names and
// numbers; it is kept here as Σ aᵢ·θᵢ (relation) b in physical units.
//
// The ParameterMap turns them into the optimiser's terms: an equality removes one parameter from
// the search (it is tied to the others), an inequality bounds the search (fit/parameter_map.h).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace frfit {

enum class Relation { kGreaterEqual, kLessEqual, kEqual };
std::string ToString(Relation relation);  // ">=" | "<=" | "=="

struct LinearConstraint {
  std::string text;                                   // as written
  std::vector<std::pair<std::string, double>> terms;  // parameter, coefficient; in first-seen order
  Relation relation = Relation::kGreaterEqual;
  double bound = 0.0;                                 // b
};

// Parses one constraint. A term is a parameter name, a number, or a number and a name joined by
// `*` (either order); terms are joined by + and −; both sides may hold names and numbers. On error
// returns false with a message that quotes the constraint and says what was expected.
bool ParseLinearConstraint(const std::string& text, LinearConstraint* out, std::string* error);

// How a constraint stands at a fitted point: its slack Σaθ − b (≥ 0 when an inequality holds,
// after a ≤ was turned into a ≥), and whether it is active — on its boundary within kActiveSlack
// of Σ|aᵢθᵢ| + |b| — as a parameter can sit at a bound. Equalities are always active.
struct ConstraintStatus {
  std::string text;
  Relation relation = Relation::kGreaterEqual;
  double slack = 0.0;
  bool active = false;
};
inline constexpr double kActiveSlack = 1e-6;

}  // namespace frfit
