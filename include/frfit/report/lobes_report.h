// The HTML page of stability lobes (frfit report LOBES.h5): the envelope over spindle speed with
// the fit's 5..95 % band shaded, the critical depth marked, titled from the model and posture.
#pragma once

#include <string>

#include "frfit/io/lobes_hdf5.h"

namespace frfit {

std::string RenderLobesReportHtml(const LobesFile& lobes, const std::string& lobes_path);

// Reads the lobes file and writes the page atomically; on any error nothing is written.
void WriteLobesReport(const std::string& lobes_path, const std::string& html_path);

}  // namespace frfit
