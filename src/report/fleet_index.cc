#include "frfit/report/fleet_index.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/io/atomic_file.h"
#include "frfit/report/html_report.h"

namespace frfit {
namespace {

std::string StatusClass(const std::string& status) {
  std::string out = "status-";
  for (char c : status) out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  return out;
}

}  // namespace

std::string RenderFleetIndex(const std::vector<FleetIndexRow>& rows, const std::string& title) {
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
       ".vs-median{color:#5b6470;font-size:12px}\n"
       "</style>\n</head>\n<body>\n<h1>"
    << HtmlEscape(title)
    << "</h1>\n<table "
       "class=\"fleet-index\">\n<thead><tr><th>robot</th><th>result</th><th>report</th>"
       "<th>cost</th><th>status</th><th>drift flags</th></tr></thead>\n<tbody>\n";
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
    s << "</td><td class=\"status\">" << HtmlEscape(r.status) << "</td><td>";
    if (r.drift_flags.empty()) s << "none";
    for (const std::string& flag : r.drift_flags) s << "<span class=\"drift-flag\">" << HtmlEscape(flag) << "</span>";
    s << "</td></tr>\n";
  }
  if (rows.empty()) s << "<tr><td colspan=\"6\">no robots</td></tr>\n";
  s << "</tbody>\n</table>\n</body>\n</html>\n";
  return s.str();
}

void WriteFleetIndex(const std::string& path, const std::vector<FleetIndexRow>& rows) {
  WriteTextFileAtomically(path, RenderFleetIndex(rows));
}

}  // namespace frfit
