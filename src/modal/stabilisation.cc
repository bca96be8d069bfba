#include "frfit/modal/stabilisation.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>

#include "frfit/modal/modal.h"

namespace frfit {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Higher is more stable; kDamping and kVector rank alike.
int Rank(PoleStability s) {
  switch (s) {
    case PoleStability::kNew:
      return 0;
    case PoleStability::kFrequency:
      return 1;
    case PoleStability::kDamping:
    case PoleStability::kVector:
      return 2;
    case PoleStability::kStable:
      return 3;
  }
  return 0;
}

}  // namespace

char ToLetter(PoleStability stability) {
  switch (stability) {
    case PoleStability::kNew:
      return 'o';
    case PoleStability::kFrequency:
      return 'f';
    case PoleStability::kDamping:
      return 'd';
    case PoleStability::kVector:
      return 'v';
    case PoleStability::kStable:
      return 's';
  }
  return '?';
}

std::string Describe(PoleStability stability) {
  switch (stability) {
    case PoleStability::kNew:
      return "new";
    case PoleStability::kFrequency:
      return "frequency";
    case PoleStability::kDamping:
      return "frequency and damping";
    case PoleStability::kVector:
      return "frequency and vector";
    case PoleStability::kStable:
      return "stable";
  }
  return "?";
}

std::complex<double> PoleFrom(double frequency_hz, double damping_ratio) {
  const double omega_d = 2.0 * std::numbers::pi * frequency_hz;
  return {-damping_ratio * omega_d / std::sqrt(1.0 - damping_ratio * damping_ratio), omega_d};
}

int StabilisationCriteria::MinStablePolesFor(int orders) const {
  return min_stable_poles > 0 ? min_stable_poles : std::max(3, orders / 4);
}

void MarkStability(const StabilisationCriteria& criteria, std::vector<StabilisationPole>* poles) {
  // Index range of each order's poles.
  for (size_t begin = 0; begin < poles->size();) {
    const int order = (*poles)[begin].order;
    size_t end = begin;
    while (end < poles->size() && (*poles)[end].order == order) ++end;
    size_t prev_begin = begin, prev_end = begin;
    // The poles of order − 1 sit just before this order's, if that order has any.
    if (begin > 0 && (*poles)[begin - 1].order == order - 1) {
      prev_end = begin;
      prev_begin = begin - 1;
      while (prev_begin > 0 && (*poles)[prev_begin - 1].order == order - 1) --prev_begin;
    }
    for (size_t i = begin; i < end; ++i) {
      StabilisationPole& p = (*poles)[i];
      p.stability = PoleStability::kNew;
      double best_distance = INFINITY;
      for (size_t j = prev_begin; j < prev_end; ++j) {
        const StabilisationPole& q = (*poles)[j];
        const double df = std::abs(p.frequency_hz - q.frequency_hz) / q.frequency_hz;
        if (df > criteria.frequency_tolerance) continue;
        const bool damping = std::abs(p.damping_ratio - q.damping_ratio) <=
                             criteria.damping_tolerance * q.damping_ratio;
        const bool vector = p.vector.size() == q.vector.size() && p.vector.squaredNorm() > 0.0 &&
                            q.vector.squaredNorm() > 0.0 &&
                            Mac({p.vector}, {q.vector})(0, 0) >= criteria.min_mac;
        const PoleStability s = damping && vector ? PoleStability::kStable
                                : damping         ? PoleStability::kDamping
                                : vector          ? PoleStability::kVector
                                                  : PoleStability::kFrequency;
        // The best agreement among the neighbours in frequency, then the nearest.
        if (Rank(s) > Rank(p.stability) || (Rank(s) == Rank(p.stability) && df < best_distance)) {
          p.stability = s;
          best_distance = df;
        }
      }
    }
    begin = end;
  }
}

std::vector<PoleColumn> SelectColumns(const std::vector<StabilisationPole>& poles,
                                      const StabilisationCriteria& criteria, int min_stable_poles,
                                      std::vector<PoleColumn>* too_short) {
  std::vector<const StabilisationPole*> stable;
  for (const StabilisationPole& p : poles)
    if (p.stability == PoleStability::kStable) stable.push_back(&p);
  std::sort(stable.begin(), stable.end(),
            [](const auto* a, const auto* b) { return a->frequency_hz < b->frequency_hz; });
  std::vector<PoleColumn> columns;
  for (size_t begin = 0; begin < stable.size();) {
    size_t end = begin + 1;
    while (end < stable.size() && stable[end]->frequency_hz - stable[end - 1]->frequency_hz <=
                                      criteria.frequency_tolerance * stable[end - 1]->frequency_hz)
      ++end;
    std::set<int> orders;
    std::vector<double> f, zeta;
    for (size_t i = begin; i < end; ++i) {
      orders.insert(stable[i]->order);
      f.push_back(stable[i]->frequency_hz);
      zeta.push_back(stable[i]->damping_ratio);
    }
    const int count = static_cast<int>(orders.size());
    if (count >= min_stable_poles || (too_short && count >= 3)) {
      PoleColumn c;
      c.frequency_hz = Median(f);
      c.damping_ratio = Median(zeta);
      c.eigenvalue = PoleFrom(c.frequency_hz, c.damping_ratio);
      c.stable_poles = count;
      c.lowest_order = *orders.begin();
      (count >= min_stable_poles ? columns : *too_short).push_back(c);
    }
    begin = end;
  }
  return columns;
}

}  // namespace frfit
