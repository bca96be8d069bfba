// frfit campaign: UFF files (or a campaign .h5) → one campaign, summarised, and written as HDF5
// or back as UFF 58/58b (docs/campaign.md).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <filesystem>
#include <set>

#include "args.h"
#include "commands.h"
#include "frfit/campaign/campaign_hdf5.h"
#include "frfit/campaign/campaign_sets.h"
#include "frfit/campaign/campaign_uff.h"
#include "frfit/common/error.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/output_path.h"

namespace frfit::cli {
namespace {

std::string Extension(const std::string& path) {
  const auto dot = path.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}
bool IsHdf5(const std::string& path) { return Extension(path) == "h5" || Extension(path) == "hdf5"; }
bool IsUff(const std::string& path) {
  const std::string e = Extension(path);
  return e == "uff" || e == "unv" || e == "uf" || e == "58";
}

nlohmann::ordered_json Dofs(const std::vector<campaign::Dof>& dofs) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& d : dofs) out.push_back(campaign::ToString(d));
  return out;
}

nlohmann::ordered_json Summary(const campaign::Campaign& c) {
  nlohmann::ordered_json j;
  j["format"] = ToString(c.records.front().format);
  j["units"] = UnitsOf(c.records.front().format);
  j["lines"] = c.frequency_hz.size();
  j["band_hz"] = {c.frequency_hz.front(), c.frequency_hz.back()};
  j["nodes"] = c.Nodes();
  j["responses"] = Dofs(c.ResponseDofs());
  j["references"] = Dofs(c.ReferenceDofs());
  auto records = nlohmann::ordered_json::array();
  size_t with_coherence = 0;
  std::set<long> missing;
  for (const auto& r : c.records) {
    nlohmann::ordered_json e = {{"response", campaign::ToString(r.response)},
                                {"reference", campaign::ToString(r.reference)},
                                {"units", r.units},
                                {"coherence", !r.coherence.empty()},
                                {"averages", r.averages ? nlohmann::ordered_json(*r.averages) : nullptr},
                                {"file", r.file},
                                {"where", r.where}};
    records.push_back(e);
    with_coherence += !r.coherence.empty();
    for (long n : {r.response.node, r.reference.node})
      if (!c.coordinates.count(n)) missing.insert(n);
  }
  j["records"] = records;
  j["records_with_coherence"] = with_coherence;
  j["nodes_with_coordinates"] = c.coordinates.size();
  j["nodes_without_coordinates"] = missing;
  auto traces = nlohmann::ordered_json::array();
  for (const auto& t : c.trace_lines) traces.push_back({{"id", t.id}, {"name", t.name}, {"nodes", t.nodes}});
  j["trace_lines"] = traces;
  j["exponential_window"] = c.exponential_window;
  j["assumed"] = c.assumed;
  j["unused"] = c.unused;
  return j;
}

void PrintText(const campaign::Campaign& c, const nlohmann::ordered_json& j) {
  std::fprintf(stderr, "campaign: %zu records (%zu with coherence), %zu lines %g-%g Hz, %s (%s)\n",
               c.records.size(), j["records_with_coherence"].get<size_t>(), c.frequency_hz.size(),
               c.frequency_hz.front(), c.frequency_hz.back(), ToString(c.records.front().format).c_str(),
               UnitsOf(c.records.front().format).c_str());
  std::fprintf(stderr, "  %zu nodes, %zu response DOFs, %zu reference DOFs, %zu nodes with coordinates, "
               "%zu trace lines\n", c.Nodes().size(), c.ResponseDofs().size(), c.ReferenceDofs().size(),
               c.coordinates.size(), c.trace_lines.size());
  if (!j["nodes_without_coordinates"].empty())
    std::fprintf(stderr, "  nodes without coordinates: %s\n", j["nodes_without_coordinates"].dump().c_str());
  for (const auto& a : c.assumed) std::fprintf(stderr, "  assumed: %s\n", a.c_str());
  for (const auto& u : c.unused) std::fprintf(stderr, "  not used: %s\n", u.c_str());
}

// --sets DIR: one multi-point FRF set per pair of nodes (campaign/campaign_sets.h), for frfit fit.
nlohmann::ordered_json WriteSets(const Args& args, const campaign::Campaign& c,
                                 const std::vector<std::string>& in) {
  const std::string cmd = "frfit campaign";
  if (!args.Has("mapping"))
    throw Error(cmd, "--mapping", "expected the node map (MAP.yaml, nodes: {node: model frame}) with --sets");
  if (!args.Has("posture")) throw Error(cmd, "--posture", "expected the posture the campaign was measured at with --sets");
  const uff::Mapping mapping = uff::ReadMapping(args.Get("mapping"));
  const std::vector<FrfSet> sets =
      campaign::ToMultiPointSets(c, mapping, args.Get("posture"), in.size() == 1 ? in[0] : in[0] + ", ...");
  const std::filesystem::path dir = args.Get("sets");
  std::filesystem::create_directories(dir);
  nlohmann::ordered_json written = nlohmann::json::array();
  for (const FrfSet& set : sets) {
    std::string nodes;
    for (const auto& [key, value] : set.provenance)
      if (key == "campaign_nodes") nodes = value;
    std::replace(nodes.begin(), nodes.end(), ':', '_');
    const std::string path = (dir / ("nodes_" + nodes + ".h5")).string();
    WriteFrfSet(path, set);
    written.push_back(path);
  }
  return written;
}

}  // namespace

int RunCampaign(int argc, char** argv) {
  const Args args("campaign", argc, argv, {"out", "averages", "sets", "mapping", "posture"},
                  {"binary", "json", "exponential-window", "require-coordinates"}, 1000);
  const std::string cmd = "frfit campaign";
  const auto& in = args.positional();
  if (in.empty()) throw Error(cmd, "arguments", "expected UFF files or one campaign .h5, got none");
  const bool from_hdf5 = in.size() == 1 && IsHdf5(in[0]);
  for (const auto& p : in)
    if (!from_hdf5 && !IsUff(p))
      throw Error(cmd, "arguments", "expected .uff/.unv files or one campaign .h5, got '" + p + "'");
  campaign::UffOptions options;
  if (args.Has("averages")) {
    const long n = args.GetInt("averages", 0);
    if (n < 1 || n > 1000000) throw Error(cmd, "--averages", "expected an integer in [1, 1000000]");
    options.averages = static_cast<int>(n);
  }
  options.exponential_window = args.Flag("exponential-window");
  options.require_coordinates = args.Flag("require-coordinates");
  campaign::Campaign c;
  if (from_hdf5) {
    if (args.Has("averages") || options.exponential_window)
      throw Error(cmd, "--averages", "only applies when reading UFF (the campaign .h5 says it)");
    c = campaign::ReadHdf5(in[0]);
    campaign::Validate(c, in[0], options.require_coordinates);
  } else {
    c = campaign::ReadUff(in, options);
  }
  nlohmann::ordered_json j = {{"in", in}};
  if (args.Has("out")) {
    const std::string out = args.Get("out");
    RequireNotAnInput(cmd, "--out", out, in);
    if (IsHdf5(out)) {
      if (args.Flag("binary")) throw Error(cmd, "--binary", "only applies when writing UFF");
      campaign::WriteHdf5(out, c);
    } else if (IsUff(out)) {
      campaign::WriteUff(out, c, args.Flag("binary"));
    } else {
      throw Error(cmd, "--out", "expected a .h5 or .uff file, got '" + out + "'");
    }
    j["out"] = out;
  }
  if (args.Has("sets")) j["sets"] = WriteSets(args, c, in);
  else if (args.Has("mapping") || args.Has("posture"))
    throw Error(cmd, args.Has("mapping") ? "--mapping" : "--posture", "only applies with --sets DIR");
  const auto summary = Summary(c);
  j.update(summary);
  if (args.Flag("json")) std::printf("%s\n", j.dump().c_str());
  else PrintText(c, summary);
  return 0;
}

}  // namespace frfit::cli
