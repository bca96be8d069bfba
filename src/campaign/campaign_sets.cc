#include "frfit/campaign/campaign_sets.h"

#include <map>
#include <utility>

#include "frfit/common/error.h"

namespace frfit::campaign {
namespace {

const std::string& FrameOf(const uff::Mapping& mapping, const Record& r, long node) {
  const auto it = mapping.node_frames.find(node);
  if (it == mapping.node_frames.end())
    throw Error(r.file, r.where,
                "expected node " + std::to_string(node) + " in the node map " + mapping.source +
                    " (nodes: {node: model frame}); it has no model frame");
  return it->second;
}

std::pair<int, int> AxisOf(const uff::Mapping& mapping, const Record& r, const Dof& dof) {
  const auto it = mapping.directions.find(dof.direction);
  if (it == mapping.directions.end())
    throw Error(r.file, r.where,
                "expected a direction the mapping's directions map onto an axis, got " +
                    ToString(dof) + " (" + mapping.source + ")");
  return it->second;
}

}  // namespace

std::vector<FrfSet> ToMultiPointSets(const Campaign& campaign, const uff::Mapping& mapping,
                                     const std::string& posture, const std::string& source) {
  std::vector<FrfSet> sets;
  std::map<std::pair<long, long>, size_t> index;  // (response node, reference node) → set
  std::vector<std::vector<const Record*>> members;
  const size_t lines = campaign.frequency_hz.size();
  for (const Record& r : campaign.records) {
    const std::pair<long, long> key{r.response.node, r.reference.node};
    auto it = index.find(key);
    if (it == index.end()) {
      FrfSet set;
      set.posture = posture;
      set.response_frame = FrameOf(mapping, r, r.response.node);
      set.excitation_frame = FrameOf(mapping, r, r.reference.node);
      set.format = r.format;
      set.frequency_hz = campaign.frequency_hz;
      set.H.assign(lines * 9, 0.0);
      set.provenance = {{"source_file", source},
                        {"source_format", "campaign"},
                        {"campaign_nodes", std::to_string(key.first) + ":" + std::to_string(key.second)}};
      it = index.emplace(key, sets.size()).first;
      sets.push_back(std::move(set));
      members.emplace_back();
    }
    FrfSet& set = sets[it->second];
    const auto [i, si] = AxisOf(mapping, r, r.response);
    const auto [j, sj] = AxisOf(mapping, r, r.reference);
    const int e = EntryIndex(i, j);
    if (set.present[e])
      throw Error(r.file, r.where,
                  "expected one record per entry of the set between nodes " +
                      std::to_string(key.first) + " and " + std::to_string(key.second) +
                      ", got a second H_" + EntryName(e));
    set.present[e] = true;
    for (size_t l = 0; l < lines; ++l) set.H[l * 9 + e] = static_cast<double>(si * sj) * r.H[l];
    members[it->second].push_back(&r);
  }
  // Coherence where the whole set has it, with one number of averages (FrfSet keeps one).
  for (size_t s = 0; s < sets.size(); ++s) {
    bool all = true;
    for (const Record* r : members[s])
      all = all && !r->coherence.empty() && r->averages.has_value() &&
            r->averages == members[s].front()->averages;
    if (!all) continue;
    FrfSet& set = sets[s];
    set.coherence.assign(lines * 9, 0.0);
    for (const Record* r : members[s]) {
      const auto [i, si] = AxisOf(mapping, *r, r->response);
      const auto [j, sj] = AxisOf(mapping, *r, r->reference);
      for (size_t l = 0; l < lines; ++l) set.coherence[l * 9 + EntryIndex(i, j)] = r->coherence[l];
    }
    set.averages = *members[s].front()->averages;
  }
  for (const FrfSet& set : sets) Validate(set, source);
  return sets;
}

}  // namespace frfit::campaign
