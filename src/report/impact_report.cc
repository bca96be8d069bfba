#include "frfit/report/impact_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <sstream>

#include "frfit/common/error.h"
#include "frfit/files/atomic_file.h"
#include "frfit/report/html_report.h"
#include "svg_parts.h"

namespace frfit {
namespace {

using namespace html;

constexpr const char* kRejectedColour = "#c62828";
constexpr const char* kResponseColours[3] = {"#1f77b4", "#2ca02c", "#9467bd"};  // x, y, z
constexpr double kWideW = 860, kLeft = 66, kRight = 16;  // the wide plots' frame

// Extra rules of this page on top of the fit report's stylesheet.
constexpr const char* kImpactStyle = R"CSS(
tr.rejected td{background:#fdecea}td.verdict-kept{color:#2e7d32;font-weight:600}
td.verdict-rejected{color:#b71c1c}
.coherence-grid{display:grid;grid-template-columns:repeat(3,292px);gap:6px 10px}
.coherence-absent{display:flex;align-items:center;justify-content:center;height:176px;border:1px dashed var(--line);border-radius:4px;color:var(--muted)}
svg path.trace{fill:none;stroke-width:1.4}svg path.rejected{stroke:#c62828;stroke-dasharray:5 3}
svg .limit{stroke:#4a4f57;stroke-width:1.1;stroke-dasharray:6 3}svg .tail{fill:#ffd54f;fill-opacity:0.3}
)CSS";

std::string AxisName(int a) { return kAxisNames[a]; }

std::string UnitOf(ChannelQuantity q) {
  switch (q) {
    case ChannelQuantity::kForce:
      return "N";
    case ChannelQuantity::kAcceleration:
      return "m/s&#178;";
    case ChannelQuantity::kVelocity:
      return "m/s";
    default:
      return "m";
  }
}

std::string Row(const std::string& key, const std::string& value_html) {
  return "<tr><th>" + key + "</th><td>" + value_html + "</td></tr>";
}

std::string Line(const std::string& cls, double x1, double y1, double x2, double y2) {
  return "<line class=\"" + cls + "\" x1=\"" + Coord(x1) + "\" y1=\"" + Coord(y1) + "\" x2=\"" +
         Coord(x2) + "\" y2=\"" + Coord(y2) + "\"/>";
}

std::string Text(double x, double y, const std::string& anchor, const std::string& html) {
  return std::string("<text class=\"") + kAxes + "\" x=\"" + Coord(x) + "\" y=\"" + Coord(y) +
         "\" text-anchor=\"" + anchor + "\">" + html + "</text>";
}

std::string Panel(double left, double top, double w, double h) {
  return "<rect class=\"panel\" x=\"" + Coord(left) + "\" y=\"" + Coord(top) + "\" width=\"" +
         Coord(w) + "\" height=\"" + Coord(h) + "\"/>";
}

// Horizontal grid lines and their labels at about `ticks` round values of sy.
std::string YGrid(const Scale& sy, int ticks, double left, double w, int significant = 4) {
  std::string s;
  for (double t : NiceTicks(std::min(sy.d0, sy.d1), std::max(sy.d0, sy.d1), ticks))
    s += Line("grid", left, sy(t), left + w, sy(t)) +
         Text(left - 4, sy(t) + 3.5, "end", Num(t, significant));
  return s;
}

// Vertical grid lines over one panel with their labels below it and the axis name at the right.
std::string XGrid(const Scale& sx, int ticks, double top, double h, const std::string& name) {
  std::string s;
  for (double t : NiceTicks(sx.d0, sx.d1, ticks))
    s += Line("grid", sx(t), top, sx(t), top + h) + Text(sx(t), top + h + 13, "middle", Num(t, 6));
  return s + Text(sx.p1, top + h + 28, "end", name);
}

std::string YName(double top, double h, const std::string& name) {
  return std::string("<text class=\"") + kAxes + "\" transform=\"translate(13," +
         Coord(top + h / 2) + ") rotate(-90)\" text-anchor=\"middle\">" + name + "</text>";
}

std::string SvgOpen(const std::string& cls, const std::string& id, double w, double h,
                    const std::string& label, const std::string& data = "") {
  std::ostringstream s;
  s << "<svg class=\"" << cls << "\" id=\"" << id
    << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
    << "\" viewBox=\"0 0 " << w << " " << h << "\" role=\"img\" aria-label=\"" << HtmlEscape(label)
    << "\"" << data << ">";
  return s.str();
}

// The legend of the overlays: kept solid, rejected dashed red.
std::string KeptRejectedLegend(int kept, int rejected, double x, double y) {
  std::vector<LegendItem> items = {
      {std::string("<line x1=\"0\" x2=\"24\" y1=\"6\" y2=\"6\" stroke=\"") + kMeasuredColour +
           "\" stroke-width=\"2\"/>",
       "kept (" + std::to_string(kept) + ")"}};
  if (rejected > 0)
    items.push_back({std::string("<line x1=\"0\" x2=\"24\" y1=\"6\" y2=\"6\" stroke=\"") +
                         kRejectedColour + "\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>",
                     "rejected (" + std::to_string(rejected) + ")"});
  return LegendRow(items, x, y);
}

// The hits of one hammer axis that have samples (a hit the trigger could not cut has none), the
// kept ones first: drawn last, a rejected hit stays visible where it lies on the kept ones.
std::vector<size_t> HitsOfAxis(const ImpactResult& r, int axis) {
  std::vector<size_t> out;
  for (size_t h = 0; h < r.verdicts.size(); ++h)
    if (r.verdicts[h].hammer_axis == axis && !r.traces[h].record.channels.empty()) out.push_back(h);
  std::stable_partition(out.begin(), out.end(), [&](size_t h) { return r.verdicts[h].kept; });
  return out;
}

const TimeChannel* ForceOf(const TimeRecording& r) {
  for (const TimeChannel& c : r.channels)
    if (c.quantity == ChannelQuantity::kForce) return &c;
  return nullptr;
}

std::string TraceTitle(const ImpactResult& r, size_t h) {
  const HitVerdict& v = r.verdicts[h];
  return "<title>" + HtmlEscape(v.source) + ": " +
         (v.kept ? std::string("kept") : "rejected: " + HtmlEscape(v.reason)) + "</title>";
}

std::string TraceAttributes(const ImpactResult& r, size_t h) {
  const HitVerdict& v = r.verdicts[h];
  return std::string(" class=\"trace ") + (v.kept ? "kept" : "rejected") + "\" data-hit=\"" +
         std::to_string(v.hit) + "\"" +
         (v.kept ? std::string(" stroke=\"") + kMeasuredColour + "\"" : "");
}

// --- header and hits table
// ------------------------------------------------------------------------

std::string HitsPerAxis(const ImpactResult& r) {
  std::string out;
  for (int a = 0; a < 3; ++a) {
    int kept = 0, rejected = 0;
    for (const HitVerdict& v : r.verdicts)
      if (v.hammer_axis == a) (v.kept ? kept : rejected) += 1;
    if (kept + rejected == 0) continue;
    out += (out.empty() ? "" : "; ") + std::string("<span id=\"hits-") + AxisName(a) +
           "\" data-kept=\"" + std::to_string(kept) + "\" data-rejected=\"" +
           std::to_string(rejected) + "\">" + AxisName(a) + ": " + std::to_string(kept) +
           " kept, " + std::to_string(rejected) + " rejected</span>";
  }
  return out;
}

std::string WindowsText(const ImpactResult& r, const ImpactOptions& o) {
  const ForceWindowOptions& fw = o.force_window;
  std::string force = fw.enabled ? "margin " + Num(1e3 * fw.margin_s) + " ms, taper " +
                                       Num(1e3 * fw.taper_s) + " ms"
                                 : "none";
  std::string exp = "none";
  if (std::isfinite(r.exponential_tau_s)) {
    const auto& f = r.set.frequency_hz;
    const double z0 = AddedDampingRatio(r.exponential_tau_s, 2 * std::numbers::pi * f.front());
    const double z1 = AddedDampingRatio(r.exponential_tau_s, 2 * std::numbers::pi * f.back());
    exp = "&#964; = <span id=\"exponential-tau\" data-value=\"" + Exact(r.exponential_tau_s) +
          "\">" + Num(r.exponential_tau_s, 4) + "</span> s; adds a damping ratio of " +
          Num(100 * z0, 3) + "&#160;% at " + Num(f.front()) + " Hz and " + Num(100 * z1, 3) +
          "&#160;% at " + Num(f.back()) +
          " Hz <span class=\"note\">(1/(&#964;&#969;): subtract it from damping estimated from "
          "these FRFs)</span>";
  }
  return Row("force window", force) + Row("exponential window", exp);
}

std::string Header(const ImpactResult& r, const ImpactOptions& o, const ImpactReportInput& in) {
  std::string inputs;
  for (const std::string& p : in.recordings)
    inputs += (inputs.empty() ? "" : "<br>") + HtmlEscape(p);
  const auto& f = r.set.frequency_hz;
  const double record_s = r.record_samples / r.sample_rate_hz;
  std::ostringstream s;
  s << "<header id=\"summary\">\n<h1>Impact test"
    << (o.posture.empty() ? "" : ": posture " + HtmlEscape(o.posture))
    << "</h1>\n<table class=\"summary\">" << Row("recordings", inputs)
    << Row("sample rate", "<span id=\"sample-rate\" data-value=\"" + Exact(r.sample_rate_hz) +
                              "\">" + Num(r.sample_rate_hz) + "</span> Hz")
    << Row("record length", std::to_string(r.record_samples) + " samples, " + Num(record_s) + " s")
    << Row("hits per hammer axis", HitsPerAxis(r))
    << Row("estimator", HtmlEscape(ToString(o.estimator)))
    << Row("format",
           HtmlEscape(ToString(r.set.format)) + " [" + HtmlEscape(UnitsOf(r.set.format)) + "]")
    << WindowsText(r, o)
    << Row("band", "<span id=\"band-lines\" data-value=\"" + std::to_string(f.size()) + "\">" +
                       std::to_string(f.size()) + "</span> lines from " + Num(f.front()) + " to " +
                       Num(f.back()) + " Hz, every " + Num(r.sample_rate_hz / r.record_samples) +
                       " Hz")
    << Row("checks", "double hit above " + Num(100 * o.checks.double_hit_fraction) +
                         "&#160;% of the peak; force spectrum drop at most " +
                         Num(o.checks.max_force_drop_db) + " dB; clipping; decay inside the record")
    << Row("FRF file", HtmlEscape(in.frf_path)) << "</table>\n";
  s << "<nav><a href=\"#hits\">hits</a><a href=\"#pulses\">force pulses</a><a "
       "href=\"#spectra\">force "
       "spectra</a><a href=\"#responses\">responses</a><a "
       "href=\"#coherence\">coherence</a></nav>\n</header>\n";
  return s.str();
}

std::string HitsTable(const ImpactResult& r) {
  std::ostringstream s;
  s << "<section id=\"hits-section\">\n<h2>Hits</h2>\n<table "
       "id=\"hits\"><thead><tr><th>#</th><th>file</th>"
       "<th>hit</th><th>hammer axis</th><th>peak force "
       "[N]</th><th>verdict</th></tr></thead><tbody>";
  for (size_t h = 0; h < r.verdicts.size(); ++h) {
    const HitVerdict& v = r.verdicts[h];
    const HitTrace& t = r.traces[h];
    const bool has_samples = !t.record.channels.empty();
    const double peak = has_samples ? std::abs(t.pulse.peak_value) : NAN;
    s << "<tr class=\"" << (v.kept ? "kept" : "rejected") << "\" data-hit=\"" << v.hit
      << "\"><td class=\"num\">" << v.hit + 1 << "</td><td>" << HtmlEscape(t.file)
      << "</td><td class=\"num\">" << t.record.hit << "</td><td>" << AxisName(v.hammer_axis)
      << "</td><td class=\"num\" data-value=\"" << Exact(peak) << "\">" << Num(peak, 4)
      << "</td><td class=\"verdict-"
      << (v.kept ? "kept\">kept" : "rejected\">rejected: " + HtmlEscape(v.reason)) << "</td></tr>";
  }
  s << "</tbody></table>\n</section>\n";
  return s.str();
}

// --- force pulses ------------------------------------------------------------------------------

// Samples shown around each peak: a few pulse widths before and more after (a double hit follows).
std::pair<int, int> PulseSpan(const ImpactResult& r, const std::vector<size_t>& hits) {
  int width = 1;
  for (size_t h : hits) width = std::max(width, r.traces[h].pulse.last - r.traces[h].pulse.first);
  return {std::max(2 * width, 5), std::max(5 * width, 8)};
}

std::string PulsePlot(const ImpactResult& r, int axis) {
  const std::vector<size_t> hits = HitsOfAxis(r, axis);
  const auto [before, after] = PulseSpan(r, hits);
  const double fs = r.sample_rate_hz, top = 30, h = 190, w = kWideW - kLeft - kRight;
  std::vector<std::vector<double>> xs, ys;
  double lo = 0.0, hi = 0.0;
  int kept = 0;
  for (size_t k : hits) {
    const std::vector<double>& f = ForceOf(r.traces[k].record)->samples;
    const int peak = r.traces[k].pulse.peak, n = static_cast<int>(f.size());
    xs.emplace_back(), ys.emplace_back();
    for (int i = std::max(0, peak - before); i <= std::min(n - 1, peak + after); ++i) {
      xs.back().push_back(1e3 * (i - peak) / fs), ys.back().push_back(f[i]);
      lo = std::min(lo, f[i]), hi = std::max(hi, f[i]);
    }
    kept += r.verdicts[k].kept;
  }
  if (!(hi > lo)) hi = lo + 1.0;
  const double pad = 0.05 * (hi - lo);
  const Scale sx{-1e3 * before / fs, 1e3 * after / fs, kLeft, kLeft + w};
  const Scale sy{lo - pad, hi + pad, top + h, top};
  std::ostringstream s;
  s << SvgOpen("pulse-plot", std::string("pulses-") + kAxisNames[axis], kWideW, top + h + 36,
               std::string("force pulses of hammer axis ") + kAxisNames[axis],
               " data-traces=\"" + std::to_string(hits.size()) + "\"")
    << KeptRejectedLegend(kept, static_cast<int>(hits.size()) - kept, kLeft, 6)
    << Panel(kLeft, top, w, h) << XGrid(sx, 8, top, h, "time from the peak [ms]")
    << YGrid(sy, 5, kLeft, w) << YName(top, h, "force [N]");
  for (size_t t = 0; t < hits.size(); ++t)
    s << "<path" << TraceAttributes(r, hits[t]) << " data-value=\""
      << Exact(std::abs(r.traces[hits[t]].pulse.peak_value)) << "\" d=\""
      << Path(xs[t], ys[t], sx, sy) << "\">" << TraceTitle(r, hits[t]) << "</path>";
  s << "</svg>";
  return s.str();
}

// --- force spectra -------------------------------------------------------------------------------

// |F|² of each hit in dB re its own largest line: the force-drop check's view, its limit a line.
std::string SpectrumPlot(const ImpactResult& r, const ImpactOptions& o, int axis) {
  const std::vector<size_t> hits = HitsOfAxis(r, axis);
  const auto& f = r.set.frequency_hz;
  const double limit = o.checks.max_force_drop_db, top = 30, h = 190, w = kWideW - kLeft - kRight;
  std::vector<std::vector<double>> db;
  double lowest = -limit;
  int kept = 0;
  for (size_t k : hits) {
    // A rejected hit as recorded (before the force window): a double hit then shows its ripple.
    const HitTrace& trace = r.traces[k];
    const std::vector<double>& p =
        trace.force_power_unwindowed.empty() ? trace.force_power : trace.force_power_unwindowed;
    const double peak = p.empty() ? 1.0 : *std::max_element(p.begin(), p.end());
    db.emplace_back(f.size(), NAN);
    for (size_t l = 0; l < p.size() && l < f.size(); ++l) {
      db.back()[l] = p[l] > 0 ? 10.0 * std::log10(p[l] / peak) : NAN;
      if (std::isfinite(db.back()[l])) lowest = std::min(lowest, db.back()[l]);
    }
    kept += r.verdicts[k].kept;
  }
  const double bottom = std::max(-10.0 * std::ceil((-lowest + 5.0) / 10.0), -100.0);
  const Scale sx{f.front(), f.size() > 1 ? f.back() : f.front() + 1.0, kLeft, kLeft + w};
  const Scale sy{bottom, 3.0, top + h, top};
  std::ostringstream s;
  s << SvgOpen("spectrum-plot", std::string("spectra-") + kAxisNames[axis], kWideW, top + h + 36,
               std::string("force spectra of hammer axis ") + kAxisNames[axis],
               " data-limit-db=\"" + Exact(limit) + "\"")
    << KeptRejectedLegend(kept, static_cast<int>(hits.size()) - kept, kLeft, 6)
    << Panel(kLeft, top, w, h) << FrequencyAxis(sx, 8, {{top, h}}, top + h + 34)
    << YGrid(sy, 6, kLeft, w) << YName(top, h, "|F|&#178; re its largest line [dB]");
  for (size_t t = 0; t < hits.size(); ++t)
    s << "<path" << TraceAttributes(r, hits[t]) << " d=\"" << Path(f, db[t], sx, sy) << "\">"
      << TraceTitle(r, hits[t]) << "</path>";
  s << Line("limit", kLeft, sy(-limit), kLeft + w, sy(-limit))
    << Text(kLeft + w - 4, sy(-limit) - 4, "end", "limit &#8722;" + Num(limit) + " dB");
  s << "</svg>";
  return s.str();
}

// --- responses ---------------------------------------------------------------------------------

// At most two points per pixel column, the column's extremes in their order: a long record
// drawn with its envelope intact (a plain stride would alias the oscillation).
void Decimate(const std::vector<double>& y, double fs, int columns, std::vector<double>* tx,
              std::vector<double>* ty) {
  const size_t n = y.size();
  if (n <= 2 * static_cast<size_t>(columns)) {
    for (size_t i = 0; i < n; ++i) tx->push_back(i / fs), ty->push_back(y[i]);
    return;
  }
  for (int c = 0; c < columns; ++c) {
    const size_t a = n * c / columns, b = std::max(a + 1, n * (c + 1) / columns);
    const auto [lo, hi] = std::minmax_element(y.begin() + a, y.begin() + b);
    for (auto it : lo < hi ? std::array{lo, hi} : std::array{hi, lo})
      tx->push_back((it - y.begin()) / fs), ty->push_back(*it);
  }
}

std::string ResponsePanel(const TimeChannel& c, const ImpactResult& r, const ImpactOptions& o,
                          double top, double h, bool last) {
  const double w = kWideW - kLeft - kRight, fs = r.sample_rate_hz, record_s = c.samples.size() / fs;
  double peak = 0.0;
  for (double v : c.samples) peak = std::max(peak, std::abs(v));
  if (!(peak > 0)) peak = 1.0;
  const Scale sx{0.0, record_s, kLeft, kLeft + w}, sy{-1.1 * peak, 1.1 * peak, top + h, top};
  std::vector<double> tx, ty;
  Decimate(c.samples, fs, static_cast<int>(w), &tx, &ty);
  std::ostringstream s;
  const double tail = kLeft + w * (1.0 - o.checks.tail_fraction);
  s << Panel(kLeft, top, w, h) << "<rect class=\"tail\" x=\"" << Coord(tail) << "\" y=\""
    << Coord(top) << "\" width=\"" << Coord(kLeft + w - tail) << "\" height=\"" << Coord(h)
    << "\"/>" << (last ? XGrid(sx, 8, top, h, "time in the record [s]") : "")
    << YGrid(sy, 4, kLeft, w, 3)
    << Text(kLeft, top - 5, "start",
            HtmlEscape(c.name) + " (" + HtmlEscape(ToString(c.quantity)) + " " + AxisName(c.axis) +
                ") [" + UnitOf(c.quantity) + "]");
  if (std::isfinite(r.exponential_tau_s)) {  // the window's envelope at the channel's peak
    std::vector<double> et, up, down;
    for (int k = 0; k <= 100; ++k) {
      const double t = record_s * k / 100;
      et.push_back(t), up.push_back(peak * std::exp(-t / r.exponential_tau_s)),
          down.push_back(-up.back());
    }
    s << "<path class=\"limit\" fill=\"none\" d=\"" << Path(et, up, sx, sy)
      << "\"/><path class=\"limit\" "
      << "fill=\"none\" d=\"" << Path(et, down, sx, sy) << "\"/>";
  }
  s << "<path class=\"trace response\" data-samples=\"" << c.samples.size() << "\" data-drawn=\""
    << tx.size() << "\" stroke=\"" << kResponseColours[c.axis] << "\" d=\"" << Path(tx, ty, sx, sy)
    << "\"/>";
  return s.str();
}

std::string ResponsePlot(const ImpactResult& r, const ImpactOptions& o, int axis) {
  size_t chosen = r.verdicts.size();
  for (size_t h : HitsOfAxis(r, axis))
    if (r.verdicts[h].kept) {
      chosen = h;
      break;
    }
  if (chosen == r.verdicts.size()) return "";
  std::vector<const TimeChannel*> responses;
  for (const TimeChannel& c : r.traces[chosen].record.channels)
    if (c.quantity != ChannelQuantity::kForce) responses.push_back(&c);
  const double top = 42, h = 84, gap = 24;
  const double H = top + responses.size() * (h + gap) - gap + 36;
  std::ostringstream s;
  s << SvgOpen("response-plot", std::string("responses-") + kAxisNames[axis], kWideW, H,
               std::string("responses to a hit of hammer axis ") + kAxisNames[axis],
               " data-hit=\"" + std::to_string(r.verdicts[chosen].hit) + "\"")
    << "<text class=\"title\" x=\"" << kLeft << "\" y=\"15\">"
    << HtmlEscape(r.verdicts[chosen].source) << "</text>";
  for (size_t c = 0; c < responses.size(); ++c)
    s << ResponsePanel(*responses[c], r, o, top + c * (h + gap), h, c + 1 == responses.size());
  s << "</svg>\n";
  return s.str();
}

// --- coherence ---------------------------------------------------------------------------------

constexpr double kCoherenceLine = 0.95;

std::string CoherencePlot(const FrfSet& set, int entry) {
  const auto& f = set.frequency_hz;
  const double W = 290, H = 172, left = 36, right = 10, top = 28, h = 110, w = W - left - right;
  std::vector<double> g(f.size());
  std::string values;
  for (size_t l = 0; l < f.size(); ++l) {
    g[l] = set.coherence[l * 9 + entry];
    (values += l ? " " : "") += Exact(g[l]);
  }
  const Scale sx{f.front(), f.size() > 1 ? f.back() : f.front() + 1.0, left, left + w};
  const Scale sy{0.0, 1.0, top + h, top};
  const std::string name = EntryName(entry);
  std::ostringstream s;
  s << SvgOpen("coherence-plot", "coherence-" + name, W, H, "coherence of H" + name)
    << "<text class=\"title\" x=\"" << left
    << "\" y=\"15\">&#947;&#178; H<tspan dy=\"3\" font-size=\"10\">" << name
    << "</tspan><tspan dy=\"-3\" class=\"sub\"> response " << name[0] << ", force " << name[1]
    << "</tspan></text>" << Panel(left, top, w, h) << FrequencyAxis(sx, 4, {{top, h}}, H);
  for (double t : {0.0, 0.5, 1.0})
    s << Line("grid", left, sy(t), left + w, sy(t)) << Text(left - 4, sy(t) + 3.5, "end", Num(t));
  s << "<line class=\"limit\" data-value=\"" << Exact(kCoherenceLine) << "\" x1=\"" << Coord(left)
    << "\" x2=\"" << Coord(left + w) << "\" y1=\"" << Coord(sy(kCoherenceLine)) << "\" y2=\""
    << Coord(sy(kCoherenceLine)) << "\"/>"
    << "<path class=\"measured coherence\" data-frequency-hz=\"" << Exact(f.front()) << ":"
    << Exact(f.back()) << "\" data-values=\"" << values << "\" d=\"" << Path(f, g, sx, sy)
    << "\"/></svg>";
  return s.str();
}

std::string CoherenceGrid(const FrfSet& set) {
  std::ostringstream s;
  s << "<section id=\"coherence\">\n<h2>Coherence per entry</h2>\n<p class=\"note\">Ordinary "
       "coherence "
       "&#947;&#178; = |G<sub>fx</sub>|&#178; / (G<sub>ff</sub>&#183;G<sub>xx</sub>) of each "
       "measured entry over "
       "the kept hits of its hammer axis (1 for a single hit); dashed: 0.95. Where it dips, the "
       "FRF is noisy "
       "there (antiresonances, the band's ends) and a fit weighted by the noise trusts it "
       "less.</p>\n"
       "<div class=\"coherence-grid\">\n";
  for (int e = 0; e < 9; ++e)
    if (set.present[e])
      s << "<figure class=\"frf-cell\">" << CoherencePlot(set, e) << "</figure>\n";
    else
      s << "<div class=\"coherence-absent\">H<sub>" << EntryName(e)
        << "</sub> not measured</div>\n";
  s << "</div>\n</section>\n";
  return s.str();
}

std::string PerAxisSections(const ImpactResult& r, const ImpactOptions& o) {
  std::ostringstream pulses, spectra, responses;
  for (int a = 0; a < 3; ++a) {
    if (HitsOfAxis(r, a).empty()) continue;
    const std::string name = std::string("Hammer axis ") + kAxisNames[a];
    pulses << "<h3>" << name << "</h3>\n" << PulsePlot(r, a) << "\n";
    spectra << "<h3>" << name << "</h3>\n" << SpectrumPlot(r, o, a) << "\n";
    if (const std::string plot = ResponsePlot(r, o, a); !plot.empty())
      responses << "<h3>" << name << "</h3>\n" << plot;
  }
  std::ostringstream s;
  s << "<section id=\"pulses\">\n<h2>Force pulses</h2>\n<p class=\"note\">The force of every hit, "
       "after DC "
       "removal, around its peak (time 0); solid blue: kept, dashed red: rejected (hover for the "
       "reason).</p>\n"
    << pulses.str()
    << "</section>\n<section id=\"spectra\">\n<h2>Force spectra</h2>\n<p class=\"note\">|F|&#178; "
    << "of every kept hit on the band's lines after the force and exponential windows, in dB re "
       "its own largest line: a hit whose spectrum falls below the limit line (--max-force-drop-db) "
       "is rejected, the tip too soft for the band or the hit too slow. A rejected hit (dashed "
       "red) is drawn before the force window, as recorded: a double hit's second pulse shows as "
       "ripple there, which the window would have cut.</p>\n"
    << spectra.str()
    << "</section>\n<section id=\"responses\">\n<h2>Responses</h2>\n<p class=\"note\">The "
       "responses of each hammer axis's first kept hit after DC removal, before the windows"
    << (std::isfinite(r.exponential_tau_s)
            ? "; dashed: the exponential window at each channel's peak"
            : "")
    << "; shaded: the record's last " << Num(100 * o.checks.tail_fraction)
    << "&#160;%, where the decay check looks (a response still ringing there leaks).</p>\n"
    << responses.str() << "</section>\n";
  return s.str();
}

}  // namespace

std::string RenderImpactReportHtml(const ImpactResult& r, const ImpactOptions& o,
                                   const ImpactReportInput& in) {
  if (r.traces.size() != r.verdicts.size() || r.set.frequency_hz.empty())
    throw Error("", "traces",
                "expected a result estimated with keep_traces, got " +
                    std::to_string(r.traces.size()) + " traces for " +
                    std::to_string(r.verdicts.size()) + " hits");
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>frfit impact test" << (o.posture.empty() ? "" : ": " + HtmlEscape(o.posture))
    << "</title>\n<style>" << ReportStyle() << kImpactStyle << "</style>\n</head>\n<body>\n"
    << Header(r, o, in) << HitsTable(r) << PerAxisSections(r, o) << CoherenceGrid(r.set)
    << "<footer>Written by frfit " << FRFIT_VERSION << " <code>frf</code> with "
    << HtmlEscape(in.frf_path) << ".</footer>\n</body>\n</html>\n";
  return s.str();
}

void WriteImpactReport(const std::string& html_path, const ImpactResult& r, const ImpactOptions& o,
                       const ImpactReportInput& in) {
  WriteTextFileAtomically(html_path, RenderImpactReportHtml(r, o, in));
}

}  // namespace frfit
