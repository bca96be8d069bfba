// frfit modal --ema CAMPAIGN_EMA.h5 --mapping MAP.yaml: the model's modes at the posture compared
// with a campaign's (docs/campaign.md, "Correlation with a model").
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "args.h"
#include "commands.h"
#include "frfit/campaign/campaign_correlation.h"
#include "frfit/campaign/campaign_ema_hdf5.h"
#include "frfit/common/error.h"
#include "frfit/common/json_number.h"

namespace frfit::cli {
namespace {

nlohmann::ordered_json CorrelationJson(const Args& args, const ModelContext& ctx,
                                       const campaign::Correlation& c, int mapped_dofs) {
  nlohmann::ordered_json out;
  out["ema"] = args.Get("ema");
  out["mapping"] = args.Get("mapping");
  out["model"] = ctx.model.name;
  out["posture"] = ctx.posture_name;
  out["parameters_source"] = ctx.parameters_source;
  out["mapped_dofs"] = mapped_dofs;
  out["unmapped_nodes"] = c.unmapped_nodes;
  out["pairs"] = nlohmann::json::array();
  for (const campaign::CorrelatedPair& p : c.pairs)
    out["pairs"].push_back({{"test_mode", p.test + 1},
                            {"model_mode", p.model + 1},
                            {"test_frequency_hz", p.test_hz},
                            {"model_frequency_hz", p.model_hz},
                            {"frequency_difference", p.frequency_difference},
                            {"test_damping_ratio", p.test_damping},
                            {"model_damping_ratio", p.model_damping},
                            {"mac", JsonNumber(p.mac)}});
  nlohmann::ordered_json unpaired_test = nlohmann::json::array(), unpaired_model = unpaired_test;
  for (int t : c.unpaired_test) unpaired_test.push_back(t + 1);
  for (int m : c.unpaired_model) unpaired_model.push_back(m + 1);
  out["unpaired_test_modes"] = unpaired_test;
  out["unpaired_model_modes"] = unpaired_model;
  out["mac"] = nlohmann::json::array();
  for (Eigen::Index t = 0; t < c.mac.rows(); ++t) {
    nlohmann::ordered_json row = nlohmann::json::array();
    for (Eigen::Index m = 0; m < c.mac.cols(); ++m) row.push_back(JsonNumber(c.mac(t, m)));
    out["mac"].push_back(row);
  }
  out["comac"] = nlohmann::json::array();
  for (const campaign::NodeComac& n : c.comac)
    out["comac"].push_back({{"node", n.node}, {"dofs", n.dofs}, {"comac", JsonNumber(n.comac)}});
  return out;
}

void PrintCorrelation(const Args& args, const ModelContext& ctx, const campaign::EmaResult& ema,
                      const std::vector<Mode>& modes, const campaign::Correlation& c,
                      int mapped_dofs) {
  std::printf("campaign EMA %s (%zu modes) against model %s, posture %s, parameters: %s\n",
              args.Get("ema").c_str(), ema.modes.size(), ctx.model.name.c_str(),
              ctx.posture_name.c_str(), ctx.parameters_source.c_str());
  std::printf("  node map %s: %d of %zu DOFs mapped", args.Get("mapping").c_str(), mapped_dofs,
              c.dofs.size());
  if (!c.unmapped_nodes.empty()) {
    std::printf("; nodes not mapped:");
    for (long n : c.unmapped_nodes) std::printf(" %ld", n);
  }
  std::printf("\n  test  model  f_test [Hz]  f_model [Hz]  diff [%%]  zeta_test [%%]  "
              "zeta_model [%%]    MAC\n");
  for (const campaign::CorrelatedPair& p : c.pairs)
    std::printf("  %4d  %5d  %11.4f  %12.4f  %8.3f  %13.3f  %14.3f  %5.3f\n", p.test + 1,
                p.model + 1, p.test_hz, p.model_hz, 100.0 * p.frequency_difference,
                100.0 * p.test_damping, 100.0 * p.model_damping, p.mac);
  for (int t : c.unpaired_test)
    std::printf("  test mode %d (%.4f Hz): no model mode within the pairing limits\n", t + 1,
                ema.modes[t].frequency_hz);
  for (int m : c.unpaired_model)
    if (modes[m].frequency_hz >= ema.band_min_hz && modes[m].frequency_hz <= ema.band_max_hz)
      std::printf("  model mode %d (%.4f Hz, in the EMA's band): no test mode\n", m + 1,
                  modes[m].frequency_hz);
  std::vector<campaign::NodeComac> order = c.comac;
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return (std::isnan(a.comac) ? -1.0 : a.comac) < (std::isnan(b.comac) ? -1.0 : b.comac);
  });
  std::printf("  COMAC per node over the %zu pairs, lowest first (1: test and model move alike "
              "there)\n   node  DOFs  COMAC\n",
              c.pairs.size());
  for (const campaign::NodeComac& n : order)
    std::printf("  %5ld  %4d  %5.3f\n", n.node, n.dofs, n.comac);
}

}  // namespace

int RunModalCorrelation(const Args& args, const ModelContext& ctx, const Posture& posture,
                        const std::vector<Mode>& modes) {
  if (!args.Has("mapping"))
    throw Error("frfit modal", "--mapping",
                "expected a node map (MAP.yaml, `nodes: {node: frame}`) with --ema");
  const campaign::EmaResult ema = campaign::ReadEmaResult(args.Get("ema"));
  const uff::Mapping mapping = uff::ReadMapping(args.Get("mapping"));
  if (mapping.node_frames.empty())
    throw Error(mapping.source, "nodes", "expected a map {node id: model frame} of the campaign's nodes");
  const std::vector<Eigen::VectorXcd> shapes =
      campaign::ModelShapesAt(ctx.model, posture, modes, ema.dofs, mapping);
  const campaign::Correlation c =
      campaign::Correlate(ema, modes, shapes, ModePairingOptions{}, mapping.source);
  const int mapped_dofs = static_cast<int>(std::count(c.mapped.begin(), c.mapped.end(), true));
  if (args.Flag("json"))
    std::printf("%s\n", CorrelationJson(args, ctx, c, mapped_dofs).dump().c_str());
  else
    PrintCorrelation(args, ctx, ema, modes, c, mapped_dofs);
  return 0;
}

}  // namespace frfit::cli
