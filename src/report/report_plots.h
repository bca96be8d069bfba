// The report's plots, each one self-contained SVG: an FRF entry measured against fitted, the
// residual, the cost history, the MAC map and the correlation matrix. Internal to src/report
// (html_report.cc assembles the page).
#pragma once

#include <string>
#include <vector>

#include "frfit/results/fit_result.h"
#include "frfit/results/identifiability.h"
#include "frfit/fit/regularization.h"

namespace frfit::html {

// Entry (i, j) of one posture: log magnitude over phase, measured and fitted, weight bands shaded.
std::string FrfPlot(const PostureResult& posture, int i, int j);
// The legend above a posture's FRF grid.
std::string FrfLegend(const PostureResult& posture);
// Whether the posture's weights are of a few levels (peaks), shaded in its FRF plots.
bool ShadesWeights(const PostureResult& posture);
// Magnitude (dB) and phase (°) error of every entry against frequency, a legend of each entry's
// worst error beside it (the plot as wide as its longest label).
std::string ResidualPlot(const PostureResult& posture);
// With a noise model: |H_fit − H_measured| / σ of each entry in its own small panel, the noise's
// rms (1) dashed, the model check's bands of that posture and entry shaded (residual_panels.cc).
std::string StandardizedResidualPlot(const PostureResult& posture,
                                     const std::vector<ResidualBand>& bands);
// Best cost against evaluations, log y, phases shaded, cycle boundaries dashed.
std::string HistoryPlot(const FitResult& result);
// Reference modes against fitted modes, the MAC of each pair, the modal table's pairs outlined;
// its element ids end in IdPart(name) (a set's name, or "points-<posture>").
std::string MacMap(const ModalComparison& modal, const std::string& name);
// The free parameters' correlation matrix, blue −1 to red +1, with its colour bar.
std::string CorrelationMap(const Identifiability& id);
// The regularisation weights' L-curve at the fitted point, the choice of the rule that chooses
// (evidence or GCV) and the weight used marked (regularization_plot.cc).
std::string RegularizationCurvePlot(const RegularizationSummary& regularization);
// The colour of a correlation (exposed for the tests that check the map's reading).
std::string CorrelationColour(double rho);

}  // namespace frfit::html
