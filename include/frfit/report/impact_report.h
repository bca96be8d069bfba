// The HTML page of an impact test (`frfit frf ... --report HITS.html`, docs/report.md): the run's
// settings, every hit kept or rejected with its reason, the force pulses and their spectra per
// hammer axis, the responses of one kept hit per axis, and the coherence of every measured entry.
// It draws what impact/impact_frf.h computed (ImpactOptions::keep_traces); it computes no FRF.
#pragma once

#include <string>
#include <vector>

#include "frfit/impact/impact_frf.h"

namespace frfit {

// What the page shows besides the result: the run's inputs and its output, as given.
struct ImpactReportInput {
  std::vector<std::string> recordings;  // the time recordings' files
  std::string frf_path;                 // the FRF set written
};

// `result` must hold traces (ImpactOptions::keep_traces), one per verdict.
std::string RenderImpactReportHtml(const ImpactResult& result, const ImpactOptions& options,
                                   const ImpactReportInput& input);

// Writes the page to `html_path` atomically (files/atomic_file.h): whole or not at all.
void WriteImpactReport(const std::string& html_path, const ImpactResult& result,
                       const ImpactOptions& options, const ImpactReportInput& input);

}  // namespace frfit
