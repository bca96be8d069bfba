#include "frfit/report/fleet_index.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/files/atomic_file.h"
#include "frfit/report/html_report.h"

namespace frfit {
namespace {

std::string StatusClass(const std::string& status) {
  std::string out = "status-";
  for (char c : status) out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return out;
}

// A file path as a URL path: every byte but unreserved characters and '/' percent-encoded, so a
// directory named with a space, '#' or '%' still links.
std::string UrlPath(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char buffer[4];
      std::snprintf(buffer, sizeof buffer, "%%%02X", c);
      out += buffer;
    }
  }
  return out;
}

// "2026-11-22T03:15:00Z" as "2026-11-22 03:15:00 UTC" in a <time> element.
std::string UtcTime(const std::string& iso) {
  std::string shown = iso;
  if (shown.size() == 20 && shown[10] == 'T' && shown[19] == 'Z')
    shown = shown.substr(0, 10) + " " + shown.substr(11, 8) + " UTC";
  return "<time datetime=\"" + HtmlEscape(iso) + "\">" + HtmlEscape(shown) + "</time>";
}

// The line under the title: run id, start time, and the previous nights' index pages.
void RenderRunLine(std::ostringstream& s, const FleetIndexRun& run) {
  std::vector<std::string> parts;
  if (!run.run_id.empty())
    parts.push_back("run <span class=\"run-id\">" + HtmlEscape(run.run_id) + "</span>");
  if (!run.started_utc.empty()) parts.push_back("started " + UtcTime(run.started_utc));
  if (!run.previous.empty()) {
    std::string nights = run.previous.size() == 1 ? "previous night: " : "previous nights: ";
    for (size_t k = 0; k < run.previous.size(); ++k)
      nights += (k ? ", " : "") + std::string("<a class=\"previous-night\" href=\"") +
                HtmlEscape(UrlPath(run.previous[k].index)) + "\">" +
                HtmlEscape(run.previous[k].run_id) + "</a>";
    parts.push_back(nights);
  }
  if (parts.empty()) return;
  s << "<p class=\"run-info\">";
  for (size_t k = 0; k < parts.size(); ++k) s << (k ? " &#183; " : "") << parts[k];
  s << "</p>\n";
}

std::string Short(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", v);
  return buffer;
}

// One parameter's strip: an axis over the fleet's range (log-scaled when the spread is), the box
// from q1 to q3 with the median, whiskers to the fences (or to the extremes where those lie
// inside), and each outlier as a dot whose tooltip names the robot.
void RenderSpreadRow(std::ostringstream& s, const FleetParameterSpread& p) {
  constexpr double kWidth = 320.0, kLeft = 6.0, kRight = 314.0;
  auto scaled = [&](double v) { return p.log_scale ? std::log(v) : v; };
  const double lo = scaled(p.min), hi = scaled(p.max);
  auto x = [&](double v) {
    return hi > lo ? kLeft + (kRight - kLeft) * (scaled(v) - lo) / (hi - lo) : kWidth / 2;
  };
  // Whiskers to the fences, or to the extremes where those lie inside.
  const double whisker_lo = std::max(p.min, p.low_fence),
               whisker_hi = std::min(p.max, p.high_fence);
  char buffer[512];
  s << "<tr class=\"spread-row\"><td class=\"parameter\">" << HtmlEscape(p.name)
    << "</td><td class=\"unit\">" << (p.unit.empty() ? std::string("&#8212;") : HtmlEscape(p.unit))
    << "</td><td class=\"num\">" << Short(p.min) << "</td><td class=\"num\">" << Short(p.q1)
    << "</td><td class=\"num\">" << Short(p.median) << "</td><td class=\"num\">" << Short(p.q3)
    << "</td><td class=\"num\">" << Short(p.max) << "</td><td>";
  std::snprintf(
      buffer, sizeof buffer,
      "<svg class=\"strip\" width=\"%.0f\" height=\"18\" viewBox=\"0 0 %.0f 18\">"
      "<line x1=\"%.1f\" y1=\"9\" x2=\"%.1f\" y2=\"9\" stroke=\"#5b6470\"/>"
      "<rect x=\"%.1f\" y=\"3\" width=\"%.1f\" height=\"12\" fill=\"#dbe7f5\" stroke=\"#3b6ea5\"/>"
      "<line x1=\"%.1f\" y1=\"3\" x2=\"%.1f\" y2=\"15\" stroke=\"#1d232b\" stroke-width=\"2\"/>",
      kWidth, kWidth, x(whisker_lo), x(whisker_hi), x(p.q1), std::max(1.0, x(p.q3) - x(p.q1)),
      x(p.median), x(p.median));
  s << buffer;
  for (const auto& [robot, value] : p.outliers) {
    std::snprintf(buffer, sizeof buffer, "<circle cx=\"%.1f\" cy=\"9\" r=\"3.5\" fill=\"#b3261e\">",
                  x(value));
    s << buffer << "<title>" << HtmlEscape(robot) << ": " << Short(value) << "</title></circle>";
  }
  s << "</svg></td><td>";
  if (p.outliers.empty()) s << "none";
  for (const auto& [robot, value] : p.outliers)
    s << "<span class=\"outlier\">" << HtmlEscape(robot) << " " << Short(value) << "</span>";
  s << "</td></tr>\n";
}

}  // namespace

std::string RenderFleetIndex(const std::vector<FleetIndexRow>& rows,
                             const std::vector<FleetParameterSpread>& spread,
                             const std::string& title, const FleetIndexRun& run) {
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
    << HtmlEscape(title)
    << "</title>\n<style>\n"
       "body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,\"Segoe "
       "UI\",Roboto,\"DejaVu Sans\",sans-serif;color:#1d232b}\n"
       "h1{font-size:22px}table{border-collapse:collapse}th,td{padding:4px 10px;border-bottom:1px "
       "solid #d8dde3;text-align:left}\n"
       "thead th{background:#f2f4f7}td.num{text-align:right;font-variant-numeric:tabular-nums}\n"
       ".drift-flag{display:inline-block;margin:0 4px 2px 0;padding:0 "
       "6px;border-radius:8px;background:#fff3cd;color:#8a5a00;font-size:12px}\n"
       "tr.status-ok td.status{color:#1b7f3b}tr.status-failed td.status,tr.status-error "
       "td.status{color:#b3261e;font-weight:600}\n"
       "tr.status-high_cost td{background:#fde8e6}tr.status-high_cost "
       "td.status{color:#b3261e;font-weight:600}\n"
       ".vs-median,.unit-note,p.note{color:#5b6470;font-size:12px}p.run-info{color:#3d4650}\n"
       "h2{font-size:17px;margin-top:28px}.outlier{display:inline-block;margin:0 4px 2px "
       "0;padding:0 "
       "6px;border-radius:8px;background:#fde8e6;color:#b3261e;font-size:12px}svg.strip{vertical-"
       "align:middle}\n"
       "</style>\n</head>\n<body>\n<h1>"
    << HtmlEscape(title) << "</h1>\n";
  RenderRunLine(s, run);
  s << "<table class=\"fleet-index\">\n<thead><tr><th>robot</th><th>result</th><th>report</th>"
       "<th>cost <span class=\"unit-note\">(dimensionless)</span></th><th>status</th><th>start</th>"
       "<th>drift flags</th></tr></thead>\n<tbody>\n";
  for (const FleetIndexRow& r : rows) {
    char cost[64] = "&#8212;";
    if (std::isfinite(r.cost)) std::snprintf(cost, sizeof cost, "%.6e", r.cost);
    s << "<tr class=\"fleet-row " << StatusClass(r.status) << "\"><td class=\"robot\">" << HtmlEscape(r.robot)
      << "</td><td>";
    if (r.result_file.empty()) s << "&#8212;";
    else s << "<a href=\"" << HtmlEscape(r.result_file) << "\">" << HtmlEscape(r.result_file) << "</a>";
    s << "</td><td>";
    if (r.report_link.empty()) s << "&#8212;";
    else s << "<a class=\"report-link\" href=\"" << HtmlEscape(r.report_link) << "\">report</a>";
    s << "</td><td class=\"num\">" << cost;
    if (std::isfinite(r.cost_over_median)) {
      char ratio[64];
      std::snprintf(ratio, sizeof ratio, "%.3g", r.cost_over_median);
      s << " <span class=\"vs-median\" data-value=\"" << FormatDouble(r.cost_over_median) << "\">("
        << ratio << "&#215; median)</span>";
    }
    s << "</td><td class=\"status\">" << HtmlEscape(r.status) << "</td><td class=\"start\">"
      << (r.start.empty() ? std::string("&#8212;") : HtmlEscape(r.start)) << "</td><td>";
    if (r.drift_flags.empty()) s << "none";
    for (const std::string& flag : r.drift_flags) s << "<span class=\"drift-flag\">" << HtmlEscape(flag) << "</span>";
    s << "</td></tr>\n";
  }
  if (rows.empty()) s << "<tr><td colspan=\"7\">no robots</td></tr>\n";
  s << "</tbody>\n</table>\n"
       "<p class=\"note\">Cost: the fit's weighted misfit of the FRFs, dimensionless (with noise "
       "weights half the &#967;&#178; of the residuals), and its ratio to the median cost of the "
       "fitted robots. Drift flags: a change since the previous night in per cent of the previous "
       "value and in standard deviations (sigma) of the change.</p>\n";
  if (!spread.empty()) {
    s << "<h2>Parameters across the fleet</h2>\n<p>Quartiles over the fitted robots (interpolated "
         "in the logarithm of the value), in each parameter's unit; outliers lie more than 1.5 "
         "interquartile ranges of the logarithm outside the box (Tukey's fences), named when the "
         "fleet has at least 4 robots.</p>\n"
         "<table class=\"fleet-spread\">\n<thead><tr><th>parameter</th><th>unit</th><th>min</th>"
         "<th>q1</th><th>median</th><th>q3</th><th>max</th><th>spread</th><th>outliers</th></tr>"
         "</thead>\n<tbody>\n";
    for (const FleetParameterSpread& p : spread) RenderSpreadRow(s, p);
    s << "</tbody>\n</table>\n";
  }
  s << "</body>\n</html>\n";
  return s.str();
}

void WriteFleetIndex(const std::string& path, const std::vector<FleetIndexRow>& rows,
                     const std::vector<FleetParameterSpread>& spread, const FleetIndexRun& run) {
  WriteTextFileAtomically(path, RenderFleetIndex(rows, spread, "frfit fleet", run));
}

}  // namespace frfit
