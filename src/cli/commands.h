// The subcommands of build/frfit (DESIGN.md §5). Each returns the process exit code; errors are
// thrown as frfit::Error and printed by main as one "error: ..." line.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frfit/results/identifiability.h"
#include "frfit/modal/ema.h"
#include "frfit/modal/modal.h"
#include "frfit/model/model.h"
#include "frfit/posture/posture.h"

namespace frfit::cli {

int RunInfo(int argc, char** argv);
int RunModal(int argc, char** argv);
int RunSimulate(int argc, char** argv);
int RunLobes(int argc, char** argv);
int RunMap(int argc, char** argv);
int RunFit(int argc, char** argv);
int RunConvert(int argc, char** argv);
int RunCampaign(int argc, char** argv);
int RunFleet(int argc, char** argv);
int RunReport(int argc, char** argv);
int RunEma(int argc, char** argv);
int RunDesign(int argc, char** argv);
int RunExport(int argc, char** argv);
int RunFrf(int argc, char** argv);

class Args;

// frfit ema on a campaign (cmd_ema_campaign.cc): UFF files by their extension, or an HDF5 file
// of kind "campaign".
bool IsCampaignInput(const std::string& path);
bool AllUff(const std::vector<std::string>& paths);
int RunCampaignEma(const Args& args, const EmaOptions& options, const std::vector<std::string>& in);
// The `criteria` object of frfit ema --json (a set's and a campaign's, cmd_ema.cc): the
// stabilisation criteria, with the stable poles a mode needed as used (`min_stable_poles`).
nlohmann::ordered_json CriteriaJson(const StabilisationCriteria& criteria, int min_stable_poles);

// --model, --posture / --q, --params as modal and simulate read them.
struct ModelContext {
  Model model;
  std::string posture_name;
  std::vector<double> q;            // rad / m
  std::vector<double> parameters;   // Model::parameters order
  std::string parameters_source;    // file, or "initial values of the model"
  // The fit's covariance when the parameters come from a fit result that has one (per_parameter
  // empty otherwise): what predicted modes carry as their 1σ.
  Identifiability identifiability;
};
ModelContext LoadModelContext(const Args& args);

// frfit modal --ema CAMPAIGN_EMA.h5 --mapping MAP.yaml (cmd_modal_correlation.cc): `modes` (the
// model's at `posture`) paired with the campaign EMA's, MAC and COMAC per node.
int RunModalCorrelation(const Args& args, const ModelContext& ctx, const Posture& posture,
                        const std::vector<Mode>& modes);

// "k_z1=2000000;d_z1=1200;..." for provenance attributes.
std::string DescribeParameters(const Model& model, const std::vector<double>& values);

}  // namespace frfit::cli
