// The page of a campaign's EMA (report/campaign_report.h).
#include "frfit/report/campaign_report.h"

#include <sstream>

#include "frfit/campaign/campaign_ema_hdf5.h"
#include "frfit/files/atomic_file.h"
#include "frfit/report/ema_report.h"
#include "frfit/report/html_report.h"
#include "src/report/svg_parts.h"

namespace frfit {
namespace {

// The diagram's drawing reads a single-set result: the poles, the modes' frequencies, the band.
EmaResult ForDiagram(const campaign::EmaResult& r) {
  EmaResult d;
  d.poles = r.poles;
  d.band_min_hz = r.band_min_hz;
  d.band_max_hz = r.band_max_hz;
  d.max_order = r.max_order;
  d.min_stable_poles = r.min_stable_poles;
  d.options = r.options.ema;
  d.method = r.method;
  d.measured.format = r.format;
  for (const campaign::EmaMode& m : r.modes) {
    EmaMode mode;
    mode.mode.eigenvalue = m.eigenvalue;
    mode.mode.frequency_hz = m.frequency_hz;
    mode.mode.damping_ratio = m.damping_ratio;
    d.modes.push_back(mode);
  }
  return d;
}

std::string ModesTable(const campaign::EmaResult& r) {
  std::ostringstream s;
  s << "<table class=\"campaign-modes\"><tr><th>mode</th><th>frequency [Hz]</th><th>damping "
       "[%]</th><th>stable poles</th><th>response share [%]</th><th>MPC</th><th>MPD [°]</th></tr>";
  for (size_t k = 0; k < r.modes.size(); ++k) {
    const campaign::EmaMode& m = r.modes[k];
    s << "<tr><td><a href=\"#shape-" << k + 1 << "\">" << k + 1 << "</a></td><td data-value=\""
      << html::Exact(m.frequency_hz) << "\">" << html::Fixed(m.frequency_hz, 3) << " "
      << html::PlusMinus(m.frequency_sigma_hz) << "</td><td data-value=\""
      << html::Exact(m.damping_ratio) << "\">" << html::Fixed(100 * m.damping_ratio, 3) << " "
      << html::PlusMinus(100 * m.damping_sigma) << "</td><td>" << m.stable_poles << "</td><td>"
      << html::Fixed(100 * m.explained, 1) << "</td><td>" << html::Fixed(m.mpc, 3) << "</td><td>"
      << html::Fixed(m.mpd_deg, 1) << "</td></tr>";
  }
  s << "</table>";
  return s.str();
}

}  // namespace

std::string RenderCampaignEmaHtml(const campaign::EmaResult& r, const campaign::Campaign& g,
                                  const std::string& result_path) {
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>frfit campaign EMA: " << HtmlEscape(r.source) << "</title>\n<style>" << ReportStyle()
    << "</style>\n</head>\n<body>\n<header id=\"summary\">\n<h1>Campaign EMA: "
    << HtmlEscape(r.source) << "</h1>\n<table class=\"summary\"><tr><th>result file</th><td>"
    << HtmlEscape(result_path) << "</td></tr><tr><th>method</th><td>"
    << HtmlEscape(campaign::DescribeMethod(r)) << "</td></tr><tr><th>shapes at</th><td>"
    << r.dofs.size() << " DOFs, " << g.coordinates.size() << " nodes with coordinates, "
    << g.trace_lines.size() << " trace lines</td></tr><tr><th>modes</th><td id=\"mode-count\" "
    << "data-value=\"" << r.modes.size() << "\">" << r.modes.size() << "</td></tr></table>\n</header>\n";
  s << "<section id=\"stabilisation\">\n<h2>Stabilisation diagram</h2>\n"
    << StabilisationDiagramSvg(ForDiagram(r), {}, {}, "stabilisation-diagram")
    << "\n</section>\n<section id=\"modes\">\n<h2>Modes</h2>\n" << ModesTable(r)
    << "\n<h3>Auto-MAC</h3>\n" << AutoMacSvg(r, "auto-mac") << "\n</section>\n";
  s << "<section id=\"shapes\">\n<h2>Mode shapes on the structure</h2>\n";
  if (g.coordinates.empty())
    s << "<p class=\"note\">The campaign has no node coordinates (UFF 15 or 2411): no drawing.</p>\n";
  else
    s << "<p class=\"note\">Grey: the geometry; red: deformed by Re φ, the largest motion 12 % of "
         "the structure's extent; nodes coloured by |φ| (blue 0, red largest).</p>\n";
  for (size_t k = 0; k < r.modes.size() && !g.coordinates.empty(); ++k)
    s << "<h3 id=\"shape-" << k + 1 << "\">Mode " << k + 1 << ": " << html::Fixed(r.modes[k].frequency_hz, 3)
      << " Hz, damping " << html::Fixed(100 * r.modes[k].damping_ratio, 3) << " %</h3>\n"
      << ModeShapeSvg(r, k, g, "mode-shape-" + std::to_string(k + 1)) << "\n";
  s << "</section>\n<footer>Written by frfit " << FRFIT_VERSION << " <code>report</code> from "
    << HtmlEscape(result_path) << ".</footer>\n</body>\n</html>\n";
  return s.str();
}

void WriteCampaignEmaReport(const std::string& result_path, const std::string& html_path) {
  campaign::Campaign geometry;
  const campaign::EmaResult r = campaign::ReadEmaResult(result_path, &geometry);
  WriteTextFileAtomically(html_path, RenderCampaignEmaHtml(r, geometry, result_path));
}

}  // namespace frfit
