#include "frfit/results/model_check_io.h"

#include <cmath>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/frf/frf_set.h"

namespace frfit {
namespace {

nlohmann::json Number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

std::string JoinEntries(const std::vector<int>& entries) {
  std::string text;
  // Piece by piece: "," + std::string&& trips GCC 12's -Wrestrict false positive (bug 105329).
  for (int e : entries) (text += text.empty() ? "" : ",") += EntryName(e);
  return text;
}

std::vector<int> SplitEntries(const std::string& text, const Hdf5File& f, const std::string& where) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    int e = -1;
    for (int k = 0; k < 9; ++k)
      if (EntryName(k) == item) e = k;
    if (e < 0) throw Error(f.path(), where, "expected entry names xx ... zz, got '" + text + "'");
    out.push_back(e);
  }
  return out;
}

nlohmann::json EntryNames(const std::vector<int>& entries) {
  nlohmann::json out = nlohmann::json::array();
  for (int e : entries) out.push_back(EntryName(e));
  return out;
}

}  // namespace

void WriteModelCheck(Hdf5File* f, const std::string& g, const ModelCheck& c) {
  f->CreateGroup(g);
  f->SetAttribute(g, "verdict", c.verdict());
  f->SetAttribute(g, "noise_source", c.noise_source);
  const double scalars[2] = {c.reduced_chi2, static_cast<double>(c.degrees_of_freedom)};
  f->WriteDoubles(g + "/reduced_chi2", {1}, &scalars[0]);
  f->WriteDoubles(g + "/degrees_of_freedom", {1}, &scalars[1]);
  f->WriteStrings(g + "/reasons", c.reasons);
  std::vector<std::string> postures, entries;
  std::vector<double> table;
  for (const UnexplainedMode& m : c.unexplained_modes) {
    postures.push_back(m.posture);
    entries.push_back(JoinEntries(m.entries));
    table.insert(table.end(), {m.frequency_hz, m.damping_ratio, m.reduced_chi2});
  }
  f->WriteStrings(g + "/unexplained_mode_postures", postures);
  f->WriteStrings(g + "/unexplained_mode_entries", entries);
  f->WriteDoubles(g + "/unexplained_modes", {c.unexplained_modes.size(), 3}, table.data());
  f->SetAttribute(g + "/unexplained_modes", "columns", "frequency_hz, damping_ratio, reduced_chi2");
  postures.clear(), entries.clear(), table.clear();
  for (const ResidualBand& b : c.bands) {
    postures.push_back(b.posture);
    entries.push_back(JoinEntries(b.entries));
    table.insert(table.end(), {b.from_hz, b.to_hz, b.reduced_chi2});
  }
  f->WriteStrings(g + "/band_postures", postures);
  f->WriteStrings(g + "/band_entries", entries);
  f->WriteDoubles(g + "/bands", {c.bands.size(), 3}, table.data());
  f->SetAttribute(g + "/bands", "columns", "from_hz, to_hz, reduced_chi2");
  postures.clear(), table.clear();
  for (const auto& [name, chi2] : c.posture_reduced_chi2) {
    postures.push_back(name);
    table.push_back(chi2);
  }
  f->WriteStrings(g + "/postures", postures);
  f->WriteDoubles(g + "/posture_reduced_chi2", {table.size()}, table.data());
}

ModelCheck ReadModelCheck(const Hdf5File& f, const std::string& g) {
  ModelCheck c;
  const std::string verdict = f.GetAttribute(g, "verdict");
  c.has_noise_model = verdict != "unchecked";
  c.noise_source = f.GetAttribute(g, "noise_source");
  std::vector<hsize_t> dims;
  // One value each, refused otherwise (at(0) of an empty dataset threw a bare std::out_of_range).
  auto scalar = [&](const std::string& name) {
    const std::vector<double> v = f.ReadDoubles(g + "/" + name, 1, &dims);
    if (v.size() != 1) throw Error(f.path(), g + "/" + name, "expected one value");
    return v[0];
  };
  c.reduced_chi2 = scalar("reduced_chi2");
  c.degrees_of_freedom = f.ToInt(scalar("degrees_of_freedom"), g + "/degrees_of_freedom");
  c.reasons = f.ReadStrings(g + "/reasons");
  auto rows = [&](const std::string& name, size_t count) {
    const std::vector<double> v = f.ReadDoubles(g + "/" + name, 2, &dims);
    if (dims[0] != count || (count > 0 && dims[1] != 3))
      throw Error(f.path(), g + "/" + name, "expected [" + std::to_string(count) + "][3]");
    return v;
  };
  std::vector<std::string> postures = f.ReadStrings(g + "/unexplained_mode_postures");
  std::vector<std::string> entries = f.ReadStrings(g + "/unexplained_mode_entries");
  std::vector<double> table = rows("unexplained_modes", postures.size());
  if (entries.size() != postures.size())
    throw Error(f.path(), g + "/unexplained_mode_entries", "expected one per mode");
  for (size_t i = 0; i < postures.size(); ++i)
    c.unexplained_modes.push_back({postures[i], table[3 * i], table[3 * i + 1],
                                   SplitEntries(entries[i], f, g + "/unexplained_mode_entries"),
                                   table[3 * i + 2]});
  postures = f.ReadStrings(g + "/band_postures");
  entries = f.ReadStrings(g + "/band_entries");
  table = rows("bands", postures.size());
  if (entries.size() != postures.size()) throw Error(f.path(), g + "/band_entries", "expected one per band");
  for (size_t i = 0; i < postures.size(); ++i)
    c.bands.push_back({postures[i], table[3 * i], table[3 * i + 1],
                       SplitEntries(entries[i], f, g + "/band_entries"), table[3 * i + 2]});
  postures = f.ReadStrings(g + "/postures");
  table = f.ReadDoubles(g + "/posture_reduced_chi2", 1, &dims);
  if (table.size() != postures.size())
    throw Error(f.path(), g + "/posture_reduced_chi2", "expected one per posture");
  for (size_t i = 0; i < postures.size(); ++i) c.posture_reduced_chi2.push_back({postures[i], table[i]});
  return c;
}

nlohmann::ordered_json ModelCheckToJson(const ModelCheck& c) {
  nlohmann::ordered_json j;
  j["verdict"] = c.verdict();
  j["reduced_chi2"] = Number(c.reduced_chi2);
  j["degrees_of_freedom"] = c.degrees_of_freedom;
  j["noise_source"] = c.noise_source;
  nlohmann::ordered_json postures = nlohmann::ordered_json::object();
  for (const auto& [name, chi2] : c.posture_reduced_chi2) postures[name] = Number(chi2);
  j["posture_reduced_chi2"] = postures;
  nlohmann::json modes = nlohmann::json::array();
  for (const UnexplainedMode& m : c.unexplained_modes)
    modes.push_back({{"frequency_hz", m.frequency_hz},
                     {"damping_ratio", Number(m.damping_ratio)},
                     {"posture", m.posture},
                     {"entries", EntryNames(m.entries)},
                     {"reduced_chi2", Number(m.reduced_chi2)}});
  j["unexplained_modes"] = modes;
  nlohmann::json bands = nlohmann::json::array();
  for (const ResidualBand& b : c.bands)
    bands.push_back({{"posture", b.posture},
                     {"from_hz", b.from_hz},
                     {"to_hz", b.to_hz},
                     {"entries", EntryNames(b.entries)},
                     {"reduced_chi2", Number(b.reduced_chi2)}});
  j["structured_residual"] = bands;
  nlohmann::json correlated = nlohmann::json::array();
  for (const CorrelatedResidual& r : c.correlated)
    correlated.push_back({{"posture", r.posture}, {"entry", EntryName(r.entry)}, {"score", r.score}});
  j["correlated_residual"] = correlated;
  nlohmann::json pulls = nlohmann::json::array();
  for (const BoundPull& p : c.bound_pulls)
    pulls.push_back({{"parameter", p.parameter}, {"bound", ToString(p.bound)}, {"score", p.score}});
  j["bound_pulls"] = pulls;
  j["reasons"] = c.reasons;
  return j;
}

}  // namespace frfit
