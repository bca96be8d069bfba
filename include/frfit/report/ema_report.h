// The EMA pieces of the HTML reports (docs/report.md): the stabilisation diagram as inline SVG,
// the table of the modes it chose, and the page `frfit report EMA.h5` writes for an EMA result
// (summary, diagram, modes, the measured FRFs against the modal model's). Self-contained like the
// fit report: no scripts, nothing fetched.
#pragma once

#include <string>
#include <vector>

#include "frfit/modal/ema.h"
#include "frfit/results/fit_result.h"

namespace frfit {

// Poles of every order (y) at their frequency (x), one marker per stability class (o f d v s), the
// chosen modes as dashed verticals, and — when `frequency_hz` is not empty — the sum of the given
// magnitudes as a grey curve on a log scale behind them. `id` becomes the SVG's id.
std::string StabilisationDiagramSvg(const EmaResult& result,
                                    const std::vector<double>& frequency_hz,
                                    const std::vector<double>& magnitude, const std::string& id);

// Σ|H_ij| over the present entries, line by line (H as [line][9]): the curve behind the diagram.
std::vector<double> SummedMagnitude(const std::array<bool, 9>& present,
                                    const std::vector<std::complex<double>>& H);

// The modes table (class "ema-modes", exact values in data-value attributes) and the criteria.
std::string EmaModesTableHtml(const EmaResult& result);

// A fit report's posture whose modal reference was estimated from its measured FRFs: the
// diagram (over the measured FRFs' Σ|H|) and the modes table. Empty without `posture.modal.ema`.
std::string EmaReferenceHtml(const PostureResult& posture);

// The whole page for an EMA result read back from its file.
std::string RenderEmaReportHtml(const EmaResult& result, const std::string& result_path);

// Reads an EMA result file and writes the page atomically; on any error (Error naming the file)
// nothing is written.
void WriteEmaReport(const std::string& result_path, const std::string& html_path);

}  // namespace frfit
