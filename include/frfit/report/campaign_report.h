// The page `frfit report E.h5` writes for a campaign's EMA (docs/report.md): the stabilisation
// diagram, the modes, their auto-MAC, and each mode's shape drawn on the campaign's geometry as a
// deformed wireframe in three views (top, front, side). Self-contained: no scripts, nothing fetched.
#pragma once

#include <string>

#include "frfit/campaign/campaign.h"
#include "frfit/campaign/campaign_ema.h"

namespace frfit {

// One mode's shape on the geometry: three orthographic views (x-y, x-z, y-z), each the undeformed
// trace lines (or the bare nodes) in grey and the deformed ones in colour, nodes coloured by their
// amplitude. A node's displacement is Re φ along +X/+Y/+Z (a −Z DOF enters as −φ), scaled so that
// the largest moves 12 % of the geometry's extent. `id` becomes the SVG's id.
std::string ModeShapeSvg(const campaign::EmaResult& result, size_t mode,
                         const campaign::Campaign& geometry, const std::string& id);

// The auto-MAC as a grid of grey squares (darker: nearer 1) with its values.
std::string AutoMacSvg(const campaign::EmaResult& result, const std::string& id);

std::string RenderCampaignEmaHtml(const campaign::EmaResult& result,
                                  const campaign::Campaign& geometry, const std::string& result_path);

// Reads a campaign EMA result and writes its page atomically; nothing is written on an error.
void WriteCampaignEmaReport(const std::string& result_path, const std::string& html_path);

}  // namespace frfit
