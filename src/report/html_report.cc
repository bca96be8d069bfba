#include "frfit/report/html_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>
#include <initializer_list>
#include <iterator>
#include <tuple>

#include "frfit/common/error.h"
#include "frfit/fit/fit_run.h"
#include "frfit/files/atomic_file.h"
#include "frfit/report/ema_report.h"
#include "report_plots.h"
#include "svg_parts.h"

namespace frfit {
namespace {

using namespace html;

// `name` as MacMap's.
std::string ModalTable(const ModalComparison& p, const std::string& name) {
  std::ostringstream s;
  s << "<table class=\"modal-table\" id=\"modal-" << IdPart(name) << "\"><thead><tr><th>mode</th>"
       "<th>f<sub>ref</sub> [Hz]</th><th>f<sub>fit</sub> &#177; 1&#963; [Hz]</th><th>error [%]</th>"
       "<th>&#950;<sub>ref</sub> [%]</th><th>&#950;<sub>fit</sub> &#177; 1&#963; [%]</th>"
       "<th>error [%]</th><th>MAC</th>"
       "</tr></thead><tbody>";
  for (size_t k = 0; k < p.rows.size(); ++k) {
    const ModalComparisonRow& m = p.rows[k];
    auto cell = [](double v, const std::string& text) {
      return "<td class=\"num\" data-value=\"" + Exact(v) + "\">" + text + "</td>";
    };
    if (std::isnan(m.fitted_frequency_hz)) {  // paired one to one: no fitted mode left for it
      s << "<tr class=\"modal-row unpaired\"><td>" << k + 1 << "</td>"
        << cell(m.reference_frequency_hz, Fixed(m.reference_frequency_hz, 3))
        << "<td colspan=\"2\">unpaired</td>"
        << cell(m.reference_damping_ratio, Fixed(100.0 * m.reference_damping_ratio, 3))
        << "<td colspan=\"3\"></td></tr>";
      continue;
    }
    s << "<tr class=\"modal-row\"><td>" << k + 1 << "</td>" << cell(m.reference_frequency_hz, Fixed(m.reference_frequency_hz, 3))
      << cell(m.fitted_frequency_hz,
              Fixed(m.fitted_frequency_hz, 3) + PlusMinus(m.fitted_frequency_sigma_hz))
      << cell(m.frequency_error_percent, Fixed(m.frequency_error_percent, 2))
      << cell(m.reference_damping_ratio, Fixed(100.0 * m.reference_damping_ratio, 3))
      << cell(m.fitted_damping_ratio, Fixed(100.0 * m.fitted_damping_ratio, 3) +
                                          PlusMinus(100.0 * m.fitted_damping_sigma))
      << cell(m.damping_error_percent, Fixed(m.damping_error_percent, 2)) << cell(m.mac, Fixed(m.mac, 3))
      << "</tr>";
  }
  if (p.rows.empty()) s << "<tr><td colspan=\"8\">no modes in the band</td></tr>";
  for (double f : p.unpaired_fitted_frequency_hz)
    s << "<tr class=\"modal-row unpaired-fitted\"><td>&#8212;</td><td></td><td class=\"num\">"
      << Fixed(f, 3) << "</td><td colspan=\"5\">fitted mode no reference mode pairs with</td></tr>";
  s << "</tbody></table>";
  return s.str();
}

// A posture's modes with their shapes over every response point its sets measured.
std::string PointsSection(const ModalComparisonPoints& c) {
  std::string points;
  for (const std::string& p : c.points) points += (points.empty() ? "" : ", ") + HtmlEscape(p);
  std::ostringstream s;
  s << "<section class=\"points\" id=\"points-" << IdPart(c.posture) << "\">\n<h2>Posture "
    << HtmlEscape(c.posture) << ": modes over all points</h2>\n<p class=\"note\">Mode shapes "
       "stacked over the three components at every response point measured at this posture, each "
       "in its frame's axes: <span class=\"points-list\">" << points << "</span>. One point's three "
       "components cannot tell every pair of modes apart; the MAC over all points can, so here a "
       "pale cell off the diagonal is a real difference between two modes. Reference modes: "
    << HtmlEscape(c.modal.reference) << ". Pairs, errors and the map read as in each set's modal "
       "comparison.</p>\n<div class=\"modal-block\">" << ModalTable(c.modal, "points-" + c.posture)
    << MacMap(c.modal, "points-" + c.posture) << "</div>\n</section>\n";
  return s.str();
}

// The model check (docs/noise.md): the verdict, χ² against the noise, every reason, and the
// modes the model lacks.
std::string ModelCheckHtml(const ModelCheck& c) {
  std::ostringstream s;
  const std::string verdict = c.verdict();
  s << "<table class=\"summary\" id=\"model-check-summary\"><tr><th>verdict</th><td><span class=\""
    << (verdict == "misfit" ? "verdict-misfit" : "verdict-ok") << "\" id=\"model-check-verdict\">"
    << verdict << "</span></td></tr>";
  if (c.has_noise_model)
    s << "<tr><th>reduced &#967;&#178;</th><td data-value=\"" << Exact(c.reduced_chi2) << "\">"
      << Num(c.reduced_chi2, 4) << " <span class=\"note\">(1 when the residual is the noise; "
      << c.degrees_of_freedom << " degrees of freedom)</span></td></tr><tr><th>noise model</th><td>"
      << HtmlEscape(c.noise_source) << "</td></tr>";
  for (const auto& [name, chi2] : c.posture_reduced_chi2)
    s << "<tr><th>&#967;&#178; at " << HtmlEscape(name) << "</th><td>" << Num(chi2, 4) << "</td></tr>";
  s << "</table>";
  if (!c.reasons.empty()) {
    s << "<ul class=\"model-check-reasons\">";
    for (const std::string& r : c.reasons) s << "<li>" << HtmlEscape(r) << "</li>";
    s << "</ul><p class=\"note\">The fitted values absorb what the model lacks: read them as "
         "effective values for this model and these data, not as the joints' physics.</p>";
  }
  if (!c.unexplained_modes.empty()) {
    s << "<table class=\"unexplained-modes\"><thead><tr><th>posture</th><th>f [Hz]</th>"
         "<th>&#950; [%]</th><th>entries</th><th>local &#967;&#178;</th></tr></thead><tbody>";
    for (const UnexplainedMode& m : c.unexplained_modes) {
      std::string entries;
      for (int e : m.entries) entries += (entries.empty() ? "H" : ", H") + EntryName(e);
      s << "<tr><td>" << HtmlEscape(m.posture) << "</td><td class=\"num\" data-value=\""
        << Exact(m.frequency_hz) << "\">" << Fixed(m.frequency_hz, 2) << "</td><td class=\"num\">"
        << Fixed(100.0 * m.damping_ratio, 2) << "</td><td>" << entries << "</td><td class=\"num\">"
        << Num(m.reduced_chi2, 3) << "</td></tr>";
    }
    s << "</tbody></table>";
  }
  return s.str();
}

// Where a value sits between its bounds, in log space when both are positive: a bar with the
// initial (hollow) and fitted (filled) positions.
std::string BoundBar(double initial, double value, double lo, double hi) {
  const bool log = lo > 0 && hi > 0;
  auto t = [&](double v) {
    if (!(hi > lo) || !std::isfinite(v)) return 0.5;
    const double a = log ? std::log(lo) : lo, b = log ? std::log(hi) : hi;
    const double x = log ? std::log(std::max(v, 1e-300)) : v;
    return std::clamp((x - a) / (b - a), 0.0, 1.0);
  };
  const double w = 120, x0 = 4, x1 = w - 4;
  std::ostringstream s;
  s << "<svg class=\"bound-bar\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w
    << "\" height=\"14\" viewBox=\"0 0 " << w << " 14\"><line x1=\"" << x0 << "\" x2=\"" << x1
    << "\" y1=\"7\" y2=\"7\" stroke=\"#999\" stroke-width=\"2\"/>"
    << "<circle cx=\"" << Coord(x0 + t(initial) * (x1 - x0)) << "\" cy=\"7\" r=\"3.5\" fill=\"#fff\" stroke=\"#555\"/>"
    << "<circle cx=\"" << Coord(x0 + t(value) * (x1 - x0)) << "\" cy=\"7\" r=\"3.5\" fill=\"" << kFittedColour
    << "\"/></svg>";
  return s.str();
}

// A parameter's bound flag in the report: the fit's own (identifiability, BoundFlagAt with the
// parameter's real scale), so the report, the CLI and the JSON flag the same parameters; for a
// result without identifiability, BoundFlagAt on a log scale where both bounds are positive.
BoundFlag ReportBoundFlag(const FitResult& d, size_t k) {
  if (d.has_identifiability)
    for (const ParameterIdentifiability& q : d.identifiability.per_parameter)
      if (q.name == d.parameter_names[k]) return q.at_bound;
  const bool log = d.lower[k] > 0 && d.upper[k] > 0;
  return BoundFlagAt({d.parameter_names[k], d.lower[k], d.upper[k],
                      log ? ParameterScale::kLog : ParameterScale::kLinear},
                     d.parameters[k]);
}

// A parameter's 1σ relative to its value from the identifiability report; NaN without one.
double RelativeSigma(const FitResult& d, size_t k) {
  for (const ParameterIdentifiability& q : d.identifiability.per_parameter)
    if (q.name == d.parameter_names[k]) return q.std_relative;
  return NAN;
}

std::string ParameterTable(const FitResult& d) {
  std::ostringstream s;
  s << "<table class=\"parameter-table\" id=\"parameters-table\"><thead><tr><th>parameter</th><th>unit</th>"
       "<th>initial</th><th>fitted</th><th title=\"1σ relative to the fitted value "
       "(identifiability)\">&#177;1&#963; [%]</th><th>min</th><th>max</th><th>fitted / initial</th>"
       "<th title=\"position between min and max (log scale when both are positive): hollow initial, "
       "filled fitted\">in bounds</th><th>flag</th></tr></thead><tbody>";
  for (size_t k = 0; k < d.parameters.size(); ++k) {
    std::string flag, cls;
    if (!d.free[k]) flag = "fixed", cls = "flag-fixed";
    else if (const BoundFlag b = ReportBoundFlag(d, k); b != BoundFlag::kNone)
      flag = b == BoundFlag::kMin ? "at lower bound" : "at upper bound", cls = "flag-bound";
    auto cell = [](double v) { return "<td class=\"num\" data-value=\"" + Exact(v) + "\">" + Num(v) + "</td>"; };
    const double sigma = d.free[k] ? RelativeSigma(d, k) : NAN;
    s << "<tr class=\"parameter-row" << (cls.empty() ? "" : " " + cls) << "\" data-name=\""
      << HtmlEscape(d.parameter_names[k]) << "\"><td class=\"pname\">" << HtmlEscape(d.parameter_names[k])
      << "</td><td>" << HtmlEscape(d.parameter_units[k]) << "</td>" << cell(d.initial_parameters[k]) << cell(d.parameters[k])
      << "<td class=\"num parameter-sigma\" data-value=\"" << Exact(sigma) << "\">"
      << (std::isfinite(sigma) ? (sigma > 10 ? "&gt;1000" : Num(100 * sigma, 3)) : "&#8212;")
      << "</td>" << cell(d.lower[k]) << cell(d.upper[k]) << "<td class=\"num\">"
      << (d.initial_parameters[k] != 0.0 ? Num(d.parameters[k] / d.initial_parameters[k], 4) : std::string("&#8212;")) << "</td><td>"
      << BoundBar(d.initial_parameters[k], d.parameters[k], d.lower[k], d.upper[k]) << "</td><td class=\"flag\">" << flag
      << "</td></tr>";
  }
  s << "</tbody></table>";
  return s.str();
}

// What the 1σ rests on, for the identifiability section's note (fit/identifiability.h).
std::string SigmaBasisText(const Identifiability& id) {
  switch (id.sigma_basis) {
    case SigmaBasis::kNoiseModel:
      return "(J&#7488;WJ)<sup>&#8722;1</sup> with W the inverse noise variance: absolute, the "
             "residual being the noise (reduced &#967;&#178; " + Num(id.reduced_chi2, 3) + ")";
    case SigmaBasis::kNoiseModelWidened:
      return "(J&#7488;WJ)<sup>&#8722;1</sup> with W the inverse noise variance, widened "
             "&#215;" + Num(id.widening, 3) + " because the residual exceeds the noise "
             "(reduced &#967;&#178; " + Num(id.reduced_chi2, 3) + ")";
    case SigmaBasis::kNoiseModelScaled:
      return "(J&#7488;WJ)<sup>&#8722;1</sup> with W the inverse noise variance, scaled "
             "&#215;" + Num(id.widening, 3) + " = &#8730;&#967;&#178;: noise overestimated "
             "(reduced &#967;&#178; " + Num(id.reduced_chi2, 3) + ", below its 0.1 % quantile)";
    case SigmaBasis::kResidualScatter:
      break;
  }
  return "&#963;&#178;(J&#7488;WJ)<sup>&#8722;1</sup> with &#963;&#178; estimated from the "
         "residual's scatter (no noise model)";
}

// How large the residual is: against the noise model, its rms in units of the noise's σ
// (√ reduced χ²; 1 when the residual is the noise), since σ² there is the constant 1/2 of a
// noise-weighted residual; without one, the rms of a residual as weighted.
std::string ResidualSize(const Identifiability& id) {
  if (id.sigma_basis == SigmaBasis::kResidualScatter)
    return "residual rms " + Sci(std::sqrt(id.sigma2));
  return "residual rms in units of the noise &#963; " + Num(std::sqrt(id.reduced_chi2), 3);
}

// The fit's constraints as its bounds are flagged: slack, and "active" where it ended on one.
std::string ConstraintsSection(const std::vector<ConstraintStatus>& constraints) {
  std::ostringstream s;
  s << "<section id=\"constraints\">\n<h2>Constraints</h2>\n<p class=\"note\">The fit "
       "configuration's linear constraints (docs/fit-config.md, \"Constraints\"): slack is the "
       "left side minus the right (right minus left for &lt;=), &#8805; 0 where it holds; "
       "<b>active</b>: the fit ended on it, as a parameter at a bound. An equality ties a "
       "parameter to the others.</p>\n<table class=\"constraint-table\" id=\"constraint-table\">"
       "<thead><tr><th>constraint</th><th>slack</th><th>flag</th></tr></thead><tbody>";
  for (const ConstraintStatus& c : constraints)
    s << "<tr" << (c.active && c.relation != Relation::kEqual ? " class=\"flag-bound\"" : "")
      << "><td class=\"pname\">" << HtmlEscape(c.text) << "</td><td class=\"num\">"
      << Num(c.slack, 3) << "</td><td class=\"flag\">"
      << (c.relation == Relation::kEqual ? "equality" : c.active ? "active" : "") << "</td></tr>";
  s << "</tbody></table>\n</section>\n";
  return s.str();
}

// The free parameters' 1σ and bound flags, the weak directions and the correlation matrix.
std::string IdentifiabilityHtml(const Identifiability& id) {
  std::ostringstream s;
  s << "<table class=\"summary\">"
    << "<tr><th>condition number</th><td id=\"condition-number\" data-value=\""
    << Exact(id.condition_number) << "\">" << Sci(id.condition_number)
    << "</td></tr><tr><th>residuals</th><td>" << id.residuals << " (" << ResidualSize(id)
    << ")</td></tr><tr><th>singular values</th><td>";
  for (size_t k = 0; k < id.singular_values.size(); ++k)
    s << (k ? ", " : "") << Num(id.singular_values[k], 3);
  s << "</td></tr></table>";
  s << "<table class=\"identifiability-table\" "
       "id=\"identifiability-table\"><thead><tr><th>parameter</th>"
       "<th>fitted</th><th>1&#963;</th><th>1&#963; [%]</th><th>bound</th></tr></thead><tbody>";
  for (const ParameterIdentifiability& q : id.per_parameter)
    s << "<tr class=\"identifiability-row" << (q.at_bound != BoundFlag::kNone ? " flag-bound" : "")
      << "\" data-name=\"" << HtmlEscape(q.name) << "\"><td class=\"pname\">" << HtmlEscape(q.name)
      << "</td><td class=\"num\">" << Num(q.value) << "</td><td class=\"num\">"
      << Num(q.std_absolute, 3) << "</td><td class=\"num\" data-value=\"" << Exact(q.std_relative)
      << "\">" << Num(100 * q.std_relative, 3) << "</td><td class=\"flag\">"
      << (q.at_bound == BoundFlag::kNone ? "" : "at " + ToString(q.at_bound)) << "</td></tr>";
  for (size_t t = 0; t < id.tied.size(); ++t)  // equality constraints: σ through the free ones
    s << "<tr class=\"identifiability-row tied\" data-name=\"" << HtmlEscape(id.tied[t].name)
      << "\"><td class=\"pname\">" << HtmlEscape(id.tied[t].name) << "</td><td class=\"num\">"
      << Num(id.tied[t].value) << "</td><td class=\"num\">" << Num(id.tied[t].std_absolute, 3)
      << "</td><td class=\"num\">" << Num(100 * id.tied[t].std_relative, 3)
      << "</td><td class=\"flag\">tied: " << HtmlEscape(id.tied_by[t]) << "</td></tr>";
  s << "</tbody></table>";
  if (id.has_prior) {  // a MAP fit: what the data did with each prior
    s << "<table class=\"prior-table\" id=\"prior-table\"><thead><tr><th>parameter</th>"
         "<th>prior mean</th><th>prior 1&#963;</th><th>posterior 1&#963;</th>"
         "<th>posterior / prior</th><th>shift [prior &#963;]</th><th>determined by</th>"
         "</tr></thead><tbody>";
    for (const ParameterIdentifiability& q : id.per_parameter)
      if (std::isfinite(q.prior_std_absolute))
        s << "<tr data-name=\"" << HtmlEscape(q.name) << "\"><td class=\"pname\">"
          << HtmlEscape(q.name) << "</td><td class=\"num\">" << Num(q.prior_mean)
          << "</td><td class=\"num\">" << Num(q.prior_std_absolute, 3) << "</td><td class=\"num\">"
          << Num(q.std_absolute, 3) << "</td><td class=\"num\">" << Num(q.std_ratio, 3)
          << "</td><td class=\"num\">" << Num(q.shift_in_prior_std, 3) << "</td><td>"
          << (q.moved_by_data ? "the data" : "the prior") << "</td></tr>";
    s << "</tbody></table>";
  }
  if (!id.weak_directions.empty()) {
    s << "<ul class=\"weak-directions\">";
    for (const WeakDirection& w : id.weak_directions)
      s << "<li>" << HtmlEscape(w.description) << " <span class=\"note\">(singular value "
        << Num(w.singular_value, 3) << ", 1&#963; " << Num(100 * w.std_relative, 3)
        << "&#160;%)</span></li>";
    s << "</ul>";
  }
  s << CorrelationMap(id);
  return s.str();
}

std::string Row(const std::string& key, const std::string& value_html) {
  return "<tr><th>" + key + "</th><td>" + value_html + "</td></tr>";
}

std::string Seconds(double s) { return std::isfinite(s) ? Fixed(s, 2) + " s" : "&#8212;"; }

// Three significant digits: a stage's evaluations of a small model take milliseconds.
std::string StageSeconds(double s) { return Num(s, 3) + " s"; }

// The stages that ran (evaluations > 0) with their evaluation time, and the rest of the wall
// time (reading, linearising, the model check, the reference modes) that no stage counts.
std::string WallTimeStages(const FitResult& d) {
  const std::pair<const char*, std::pair<double, double>> stages[] = {
      {"genetic algorithm", {static_cast<double>(d.ga_evaluations), d.ga_seconds}},
      {"Nelder-Mead", {static_cast<double>(d.nm_evaluations), d.nm_seconds}},
      {"Levenberg-Marquardt", {static_cast<double>(d.lm_evaluations), d.lm_seconds}}};
  std::string text;
  double staged = 0.0;
  for (const auto& [name, stage] : stages) {
    const auto [evaluations, seconds] = stage;
    if (!(evaluations > 0.0) || !std::isfinite(seconds)) continue;
    text += (text.empty() ? "" : ", ") + std::string(name) + " " + StageSeconds(seconds);
    staged += seconds;
  }
  if (text.empty() || !std::isfinite(d.wall_seconds)) return "";
  return " <span class=\"note\">(evaluations: " + text + "; reading, linearising, the model check "
         "and the reference modes: " + StageSeconds(std::max(0.0, d.wall_seconds - staged)) +
         ")</span>";
}

constexpr const char* kStyle = R"CSS(
:root{--fg:#1d232b;--muted:#5b6470;--line:#d8dde3;--measured:#1f5fa8;--fitted:#d7301f}
*{box-sizing:border-box}
body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:#fff}
h1{font-size:24px;margin:0 0 12px}h2{font-size:19px;margin:28px 0 8px;border-bottom:2px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
nav a{margin-right:14px}
table{border-collapse:collapse;margin:6px 0}
th,td{padding:3px 9px;border-bottom:1px solid var(--line);text-align:left;vertical-align:middle}
thead th{background:#f2f4f7;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
table.summary th{font-weight:600;color:var(--muted);background:none;width:210px}
table.summary{min-width:720px}
.posture-meta{color:var(--muted);margin:2px 0 8px}
.frf-grid{display:grid;grid-template-columns:repeat(3,424px);gap:6px 10px}
.frf-cell{margin:0;border:1px solid var(--line);border-radius:4px;background:#fff}
.frf-absent{display:flex;align-items:center;justify-content:center;height:322px;border:1px dashed var(--line);border-radius:4px;color:var(--muted)}
.modal-block{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}
tr.flag-bound td{background:#fff3cd}tr.flag-fixed td{background:#eef0f3;color:var(--muted)}
td.flag{font-weight:600;color:#8a5a00}
pre.settings{background:#f6f8fa;border:1px solid var(--line);border-radius:4px;padding:10px 14px;overflow:auto;max-height:480px}
.note{color:var(--muted);font-size:12.5px;max-width:900px}
svg text{font-size:10.5px;fill:#2a2f36}
svg .title{font-size:13px;font-weight:600}svg .sub{font-size:10px;font-weight:400;fill:#6a717b}
svg .panel{fill:#fcfcfd;stroke:#aab2bd;stroke-width:0.8}
svg .grid{stroke:#e3e6ea;stroke-width:0.7}
svg .weight-band{fill:#ffd54f;fill-opacity:0.35;stroke:none}
svg path.measured{fill:none;stroke:var(--measured);stroke-width:1.5}
svg path.fitted{fill:none;stroke:var(--fitted);stroke-width:1.5;stroke-dasharray:6 3}
svg path.residual-magnitude,svg path.residual-phase{fill:none;stroke-width:1.3}svg .zero{stroke:#6a717b;stroke-width:0.9}
svg .phase-ga{fill:#dbe8f6}svg .phase-nm{fill:#fde3cc}svg .phase-lm{fill:#dff3dc}
svg .cycle-boundary{stroke:#4a4f57;stroke-width:1;stroke-dasharray:4 3}
svg .best-cost{fill:none;stroke:#111;stroke-width:1.8}svg .ga-generation{fill:#1f5fa8;stroke:#fff;stroke-width:0.8}svg .pass-boundary{stroke:#2e7d32;stroke-width:1.2;stroke-dasharray:2 2}
svg .mac-off{fill:#f4f5f7;stroke:#fff;stroke-width:1}svg .mac-cell{stroke:#fff;stroke-width:1}
svg .mac-pair{stroke:#d7301f;stroke-width:2.5}svg .mac-value{font-size:12px}svg .mac-value.on-dark{fill:#fff}svg .mac-label{font-size:11.5px}
footer{margin-top:36px;color:var(--muted);font-size:12px}
.verdict-misfit{color:#fff;background:#c0392b;padding:1px 8px;border-radius:3px;font-weight:600}
.verdict-ok{color:#fff;background:#2e7d32;padding:1px 8px;border-radius:3px;font-weight:600}
tr.unpaired td,tr.unpaired-fitted td{color:var(--muted)}
)CSS";

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string RenderFrfGrid(const PostureResult& p) {
  std::ostringstream s;
  s << "<div class=\"frf-grid\">\n";
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      if (p.measured.present[3 * i + j]) s << "<figure class=\"frf-cell\">" << FrfPlot(p, i, j) << "</figure>\n";
      else
        s << "<div class=\"frf-absent\">H<sub>" << kAxisNames[i] << kAxisNames[j] << "</sub> not measured</div>\n";
    }
  s << "</div>";
  return s.str();
}

std::string ReportStyle() { return kStyle; }

std::string RenderReportHtml(const FitResult& d, const ReportBackLink& back) {
  std::ostringstream s;
  const std::string model = HtmlEscape(d.model_name);
  s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>frfit fit report: " << model << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  if (!back.href.empty())
    s << "<nav class=\"back-link\"><a href=\"" << HtmlEscape(back.href) << "\">&#8592; "
      << HtmlEscape(back.text) << "</a></nav>\n";
  s << "<header id=\"summary\">\n<h1>Fit report: " << model << "</h1>\n";
  std::string frf_files;
  for (const PostureResult& p : d.postures)
    frf_files += (frf_files.empty() ? "" : "<br>") + HtmlEscape(p.frf_source) + " <span class=\"note\">(posture " +
                 HtmlEscape(p.name) + ")</span>";
  s << "<table class=\"summary\">" << Row("model", model)
    << Row("model file", HtmlEscape(d.model_file))
    << Row("FRF files", frf_files.empty() ? "&#8212;" : frf_files)
    << Row("result file", HtmlEscape(d.file)) << Row("seed", HtmlEscape(std::to_string(d.seed)))
    << Row("backend", HtmlEscape(d.backend_used) + " <span class=\"note\">(asked: " +
                          HtmlEscape(d.backend_given) + ")</span>")
    << Row("frfit version", HtmlEscape(d.frfit_version))
    << Row("termination", HtmlEscape(d.termination) + " <span class=\"note\">(" +
                              HtmlEscape(TerminationMeaning(d.termination)) + ")</span>")
    << "<tr><th>cost</th><td id=\"summary-cost\" data-value=\"" << Exact(d.cost) << "\">"
    << Sci(d.cost) << " <span class=\"note\">(best of the initial population: "
    << Sci(d.initial_population_best_cost) << ")</span></td></tr>"
    << Row("evaluations", Num(static_cast<double>(d.evaluations), 12) + " <span class=\"note\">(genetic algorithm " +
                              Num(static_cast<double>(d.ga_evaluations), 12) + ", Nelder-Mead " +
                              Num(static_cast<double>(d.nm_evaluations), 12) + ", Levenberg-Marquardt " +
                              Num(static_cast<double>(d.lm_evaluations), 12) + ")</span>")
    << Row("cycles", Num(d.cycles, 6))
    << Row("wall time", Seconds(d.wall_seconds) + WallTimeStages(d))
    << "</table>\n";
  s << "<nav>";
  for (const PostureResult& p : d.postures)
    s << "<a href=\"#posture-" << IdPart(p.name) << "\">posture " << HtmlEscape(p.name) << "</a>";
  for (const ModalComparisonPoints& c : d.modal_comparison_points)
    s << "<a href=\"#points-" << IdPart(c.posture) << "\">modes of " << HtmlEscape(c.posture)
      << " over all points</a>";
  s << "<a href=\"#history\">cost history</a><a href=\"#parameters\">parameters</a>"
    << (d.has_identifiability ? "<a href=\"#identifiability\">identifiability</a>" : "")
    << (d.has_model_check ? "<a href=\"#model-check\">model check</a>" : "")
    << "<a href=\"#settings\">settings</a><a "
       "href=\"#provenance\">provenance</a></nav>\n</header>\n";

  for (const PostureResult& p : d.postures) {
    s << "<section class=\"posture\" id=\"posture-" << IdPart(p.name) << "\">\n<h2>Posture " << HtmlEscape(p.name)
      << "</h2>\n<p class=\"posture-meta\">" << HtmlEscape(p.frf_source) << " &#183; " << HtmlEscape(ToString(p.measured.format)) << " ["
      << HtmlEscape(UnitsOf(p.measured.format)) << "] &#183; " << p.measured.num_lines() << " lines";
    if (p.measured.num_lines() > 0)
      s << " from " << Num(p.measured.frequency_hz.front(), 6) << " to " << Num(p.measured.frequency_hz.back(), 6) << " Hz";
    s << " &#183; " << p.dropped_hz.size() << " dropped &#183; posture cost <span class=\"posture-cost\" data-value=\""
      << Exact(p.cost) << "\">" << Sci(p.cost) << "</span></p>\n";
    s << FrfLegend(p) << "\n" << RenderFrfGrid(p);
    // A noise model the file gave (measured data: coherence or variance) draws the residual in its
    // units; one estimated from the FRFs (synthetic sets, imports without one) keeps dB / degrees.
    if (p.measured.noise_variance.empty() || p.measured.noise_source == "estimated")
      s << "\n<h3>Residual</h3>\n<p class=\"note\">Magnitude error "
           "20&#183;log<sub>10</sub>(|H<sub>fit</sub>| / |H<sub>measured</sub>|) and phase error "
           "arg(H<sub>fit</sub> / H<sub>measured</sub>) of every measured entry at every fitted line: "
           "the two parts of the log-FRF cost. A good fit stays near zero everywhere; a band where it "
           "does not is where the model and the measurement disagree.</p>\n"
        << ResidualPlot(p) << "\n";
    else  // measured data: in units of the noise, per entry, the model check's bands shaded
      s << "\n<h3>Residual</h3>\n<p class=\"note\">|H<sub>fit</sub> &#8722; H<sub>measured</sub>| "
           "of every measured entry at every fitted line in units of that line's noise &#963; (noise "
           "model: " << HtmlEscape(p.measured.noise_source) << "): where the model explains the data it "
           "scatters around 1 (dashed), the noise's rms, on every entry alike. Shaded: the bands the "
           "model check names as structured residual"
        << (d.has_model_check ? "" : " (this result has no model check)") << ".</p>\n"
        << StandardizedResidualPlot(p, d.model_check.bands) << "\n";
    s << "<h3>Modal comparison</h3>\n<p class=\"note\">Reference modes: " << HtmlEscape(p.modal.reference)
      << ". The reference modes are paired one to one with the fitted modes (least total frequency "
         "difference and 1 &#8722; MAC); a mode no partner is left for says <i>unpaired</i>. Errors are "
         "100&#183;(fitted &#8722; "
         "reference)/reference. The MAC map compares every reference mode with every fitted mode in the "
         "band; the pairs of the table are outlined. A good fit is a dark outlined diagonal, pale "
         "elsewhere; n/a where the reference has no mode shapes.</p>\n"
      << "<div class=\"modal-block\">" << ModalTable(p.modal, p.name) << MacMap(p.modal, p.name) << "</div>\n";
    if (p.modal.ema) s << EmaReferenceHtml(p) << "\n";
    s << "</section>\n";
  }

  for (const ModalComparisonPoints& c : d.modal_comparison_points) s << PointsSection(c);

  s << "<section id=\"history\">\n<h2>Cost history</h2>\n<p class=\"note\">Best cost so far "
       "against evaluations (log scale); blue stretches are genetic-algorithm generations (a dot "
       "at each one's best where they are few: the bundled configurations sample one "
       "population, a single dot), orange stretches Nelder-Mead, green stretches Levenberg-Marquardt rounds; dashed "
       "lines mark the start of a new cycle, green dotted lines a refinement pass, which fits "
       "under the noise weights of the point before it: its cost is on another scale, and the "
       "step down at the line is that change of weights, not progress.</p>\n"
    << HistoryPlot(d) << "\n</section>\n";
  s << "<section id=\"parameters\">\n<h2>Parameters</h2>\n<p class=\"note\">&#177;1&#963;: "
       "relative to the fitted value, from the identifiability below. Flags: <b>fixed</b> when the "
       "parameter was not fitted; <b>at lower/upper bound</b> when the fitted value lies within "
       "1&#160;% of a bound (of the value for a log-scaled parameter, of the bounds' span for a "
       "linear one), as <code>frfit fit</code> flags it.</p>\n"
    << ParameterTable(d) << "\n</section>\n";
  if (!d.constraints.empty()) s << ConstraintsSection(d.constraints);
  if (d.has_identifiability)
    s << "<section id=\"identifiability\">\n<h2>Identifiability</h2>\n<p class=\"note\">How well "
         "the fitted FRFs determine each free parameter (docs/identifiability.md): 1&#963; from "
         "the covariance " << SigmaBasisText(d.identifiability) << "; weakly determined "
         "directions (singular value below 10<sup>&#8722;3</sup> of the largest, or 1&#963; above "
         "10&#160;%) named by their main parameters; the correlation matrix from blue (&#8722;1) "
         "through white (0) to red (+1). <b>at min/max</b>: within 1&#160;% of a bound.</p>\n"
      << IdentifiabilityHtml(d.identifiability) << "\n</section>\n";
  if (d.regularization.enabled)
    s << "<section id=\"regularization\">\n<h2>Regularization</h2>\n<p class=\"note\">Tikhonov "
         "toward the " << ToString(d.regularization.toward) << " with weight "
      << Num(d.regularization.weight, 4)
      << (!d.regularization.automatic ? " as given"
          : d.regularization.curve.rule == WeightRule::kGcv
              ? " chosen by generalised cross-validation"
              : " chosen by the evidence (the weight's marginal likelihood)")
      << " (docs/fit-config.md, \"Regularization\"). The curve: each weight's residual norm "
         "and regularisation norm of the problem linearised at the fitted point; red marks the "
      << (d.regularization.curve.rule == WeightRule::kGcv ? "GCV" : "evidence")
      << " minimum there, black the weight used.</p>\n"
      << RegularizationCurvePlot(d.regularization) << "\n</section>\n";
  if (d.has_model_check)
    s << "<section id=\"model-check\">\n<h2>Model check</h2>\n<p class=\"note\">Does the fitted "
         "model explain the measured FRFs as well as their noise allows (docs/noise.md)? The "
         "residual against the noise model, overall and per posture, bands where it is structured, "
         "modes the measured FRFs show that the model lacks, and bounds the data pull against.</p>\n"
      << ModelCheckHtml(d.model_check) << "\n</section>\n";
  s << "<section id=\"settings\">\n<h2>Settings</h2>\n<pre class=\"settings\">" << HtmlEscape(d.settings_yaml)
    << "</pre>\n</section>\n";
  s << "<section id=\"provenance\">\n<h2>Provenance</h2>\n<table class=\"summary\">"
    << Row("result file", HtmlEscape(d.file)) << Row("model", model)
    << Row("model file", HtmlEscape(d.model_file)) << Row("frfit version", HtmlEscape(d.frfit_version))
    << Row("seed", HtmlEscape(std::to_string(d.seed))) << Row("backend asked / used", HtmlEscape(d.backend_given) + " / " +
                                                                         HtmlEscape(d.backend_used));
  for (const PostureResult& p : d.postures) {
    std::string dropped;
    for (size_t k = 0; k < p.dropped_hz.size() && k < 20; ++k) dropped += (k ? ", " : "") + Num(p.dropped_hz[k], 6);
    if (p.dropped_hz.size() > 20) dropped += ", &#8230;";
    s << Row("posture " + HtmlEscape(p.name),
             "FRF file " + HtmlEscape(p.frf_source) + "; format " + HtmlEscape(ToString(p.measured.format)) + " [" + HtmlEscape(UnitsOf(p.measured.format)) +
                 "]; modal reference: " + HtmlEscape(p.modal.reference) + "; dropped lines [Hz]: " +
                 (dropped.empty() ? "none" : dropped));
  }
  s << "</table>\n</section>\n<footer>Written by frfit " << HtmlEscape(d.frfit_version)
    << " <code>report</code> from " << HtmlEscape(d.file) << ".</footer>\n</body>\n</html>\n";
  return s.str();
}

void WriteReport(const std::string& result_path, const std::string& html_path) {
  WriteTextFileAtomically(html_path, RenderReportHtml(ReadFitResult(result_path)));
}

}  // namespace frfit
