#include "src/campaign/campaign_pole_columns.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace frfit::campaign {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

PoleColumn ColumnOf(const std::vector<const StabilisationPole*>& members) {
  std::set<int> orders;
  std::vector<double> f, zeta;
  for (const StabilisationPole* p : members) {
    orders.insert(p->order);
    f.push_back(p->frequency_hz);
    zeta.push_back(p->damping_ratio);
  }
  PoleColumn c;
  c.frequency_hz = Median(f);
  c.damping_ratio = Median(zeta);
  c.eigenvalue = PoleFrom(c.frequency_hz, c.damping_ratio);
  c.stable_poles = static_cast<int>(orders.size());
  c.lowest_order = orders.empty() ? 0 : *orders.begin();
  return c;
}

// The group's poles in k sub-columns: the orders holding exactly k poles give each rank's
// frequencies; every pole joins the rank whose median frequency is nearest.
std::vector<std::vector<const StabilisationPole*>> Split(
    const std::vector<const StabilisationPole*>& group, int k) {
  std::map<int, std::vector<const StabilisationPole*>> by_order;
  for (const StabilisationPole* p : group) by_order[p->order].push_back(p);
  std::vector<std::vector<double>> rank_f(k);
  for (auto& [order, poles] : by_order)
    if (static_cast<int>(poles.size()) == k)
      for (int i = 0; i < k; ++i) rank_f[i].push_back(poles[i]->frequency_hz);  // sorted by f
  std::vector<double> centre(k);
  for (int i = 0; i < k; ++i) centre[i] = Median(rank_f[i]);
  std::vector<std::vector<const StabilisationPole*>> out(k);
  for (const StabilisationPole* p : group) {
    int best = 0;
    for (int i = 1; i < k; ++i)
      if (std::abs(p->frequency_hz - centre[i]) < std::abs(p->frequency_hz - centre[best])) best = i;
    out[best].push_back(p);
  }
  return out;
}

}  // namespace

std::vector<PoleColumn> SplitColumns(const std::vector<StabilisationPole>& poles,
                                     const StabilisationCriteria& criteria, int min_stable_poles,
                                     std::vector<PoleColumn>* too_short) {
  std::vector<const StabilisationPole*> stable;
  for (const StabilisationPole& p : poles)
    if (p.stability == PoleStability::kStable) stable.push_back(&p);
  std::stable_sort(stable.begin(), stable.end(),
                   [](const auto* a, const auto* b) { return a->frequency_hz < b->frequency_hz; });
  std::vector<PoleColumn> columns;
  for (size_t begin = 0; begin < stable.size();) {
    size_t end = begin + 1;
    while (end < stable.size() && stable[end]->frequency_hz - stable[end - 1]->frequency_hz <=
                                      criteria.frequency_tolerance * stable[end - 1]->frequency_hz)
      ++end;
    const std::vector<const StabilisationPole*> group(stable.begin() + begin, stable.begin() + end);
    // k: the most poles per order that at least min_stable_poles orders hold.
    std::map<int, int> per_order;
    for (const StabilisationPole* p : group) ++per_order[p->order];
    int k = 1;
    for (int c = 2;; ++c) {
      int orders = 0;
      for (const auto& [order, count] : per_order) orders += count >= c;
      if (orders < min_stable_poles) break;
      k = c;
    }
    const std::vector<std::vector<const StabilisationPole*>> parts =
        k > 1 ? Split(group, k) : std::vector<std::vector<const StabilisationPole*>>{group};
    for (const auto& members : parts) {
      if (members.empty()) continue;
      const PoleColumn c = ColumnOf(members);
      if (c.stable_poles >= min_stable_poles)
        columns.push_back(c);
      else if (too_short && c.stable_poles >= 3)
        too_short->push_back(c);
    }
    begin = end;
  }
  std::sort(columns.begin(), columns.end(),
            [](const PoleColumn& a, const PoleColumn& b) { return a.frequency_hz < b.frequency_hz; });
  return columns;
}

}  // namespace frfit::campaign
