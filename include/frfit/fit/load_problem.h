// Building a fit's Problem from its inputs: the FRF files of one robot, each at a posture of the
// model, prepared with the fit configuration's cost options and posture weights. Shared by
// `frfit fit` and `frfit fleet`, so a robot means the same problem to both.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frfit/cost/problem.h"
#include "frfit/fit/fit_options.h"

namespace frfit {

// Each file's posture must exist in the model and appear once; posture weights of the options
// must name postures that were given. Errors name the FRF file or `config_source`.
Problem LoadProblem(std::shared_ptr<const Model> model, const std::vector<std::string>& frf_files,
                    const FitOptions& options, const std::string& config_source);

// The same from FRF sets already in memory (the Python module's), each validated first and named
// in messages by its entry of `sources` (one per set).
Problem ProblemFromSets(std::shared_ptr<const Model> model, const std::vector<FrfSet>& sets,
                        const std::vector<std::string>& sources, const FitOptions& options,
                        const std::string& config_source);

// Adds each `frfit ema` result file of `files` as a set of measured modes (cost/modal_sets.h),
// scored as options.modes says. Beside FRF sets the weights must be the noise's (the modes'
// residuals are in units of their σ). Errors name the file.
void AddModes(const std::vector<std::string>& files, const FitOptions& options, Problem* problem);

// Where the points of a campaign's modes are (`--mapping`, `--posture` of frfit fit): the node
// map's file (nodes → model frames, direction codes → axes) and the posture the campaign was
// measured at. Empty: no campaign among the modes.
struct CampaignModesSettings {
  std::string mapping;
  std::string posture;
  bool empty() const { return mapping.empty() && posture.empty(); }
};

// AddModes, where a file may also be a campaign's EMA result (`frfit ema CAMPAIGN --out`): one set
// over every node of it (cost/campaign_modal_set.h), which needs both `campaign` settings (an
// Error naming --mapping or --posture otherwise); settings without a campaign file among `files`
// are an Error too (they would be ignored).
void AddModes(const std::vector<std::string>& files, const FitOptions& options,
              const CampaignModesSettings& campaign, Problem* problem);

// The coordinates (rad / m) of the problem's postures, in order, for FitJob::posture_q.
std::vector<std::vector<double>> PostureCoordinates(const Problem& problem);

}  // namespace frfit
