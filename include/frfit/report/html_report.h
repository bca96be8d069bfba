// The HTML fit report (`frfit report`, docs/report.md): one self-contained page — inline CSS and
// SVG, no scripts, fonts or images from elsewhere — with the run summary, per posture the 3×3
// measured-vs-fitted FRF grid (paper Fig. 7) with the weights, the modal comparison (Table 6) and a
// MAC map (Fig. 11, paired MACs on the diagonal), the cost history (Fig. 8), the parameters with
// bound flags, the settings and the provenance.
#pragma once

#include <string>
#include <string_view>

#include "frfit/results/fit_result.h"

namespace frfit {

// Escapes & < > " ' for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);

// The 3×3 grid of one posture's FRF plots, measured against fitted (`frf-plot` SVGs; entries not
// measured as empty cells), and the page's stylesheet: shared with the EMA page (ema_report.h).
std::string RenderFrfGrid(const PostureResult& posture);
std::string ReportStyle();

// A link above the page's title to the page it belongs to, e.g. a fleet run's index.
struct ReportBackLink {
  std::string href;  // relative to the report's own location; empty: no link
  std::string text;  // shown after an arrow: "fleet index"
};

// The page for one result.
std::string RenderReportHtml(const FitResult& result, const ReportBackLink& back = {});

// Reads `result_path` and writes the page to `html_path` atomically; on any error (Error naming
// the file) nothing is written.
void WriteReport(const std::string& result_path, const std::string& html_path);

}  // namespace frfit
