#include "frfit/impact/impact_frf.h"

#include <array>
#include <cmath>
#include <numbers>

#include "frfit/common/error.h"
#include "frfit/common/warning.h"

namespace frfit {

bool ImpactOptions::IsValid(std::string* error) const {
  if (!(band_min_hz >= 0.0) || !std::isfinite(band_min_hz))
    return Invalid(error, "band_min_hz: expected Hz >= 0");
  if (!(band_max_hz >= 0.0) || !std::isfinite(band_max_hz))
    return Invalid(error, "band_max_hz: expected Hz >= 0");
  if (band_max_hz > 0.0 && band_max_hz <= band_min_hz)
    return Invalid(error, "band_max_hz: expected more than band_min_hz");
  std::string inner;
  if (!force_window.IsValid(&inner)) return Invalid(error, "force_window." + inner);
  if (!exponential.IsValid(&inner)) return Invalid(error, "exponential." + inner);
  if (!trigger.IsValid(&inner)) return Invalid(error, "trigger." + inner);
  if (!checks.IsValid(&inner)) return Invalid(error, "checks." + inner);
  return true;
}

namespace {

struct HitInput {
  std::string file;
  TimeRecording record;
  double trigger_time_s = 0.0;
  std::string problem;  // set: reported as rejected without processing
  int hammer_axis = 0;
};

FrfFormat NativeFormat(ChannelQuantity q) {
  switch (q) {
    case ChannelQuantity::kDisplacement: return FrfFormat::kReceptance;
    case ChannelQuantity::kVelocity: return FrfFormat::kMobility;
    default: return FrfFormat::kInertance;
  }
}

const TimeChannel& Force(const TimeRecording& r) {
  for (const TimeChannel& c : r.channels)
    if (c.quantity == ChannelQuantity::kForce) return c;
  throw Error(r.source, "channels", "expected a force channel, got none");
}

// Triggered records pass through; a continuous recording is split into its hits.
std::vector<HitInput> CollectHits(const std::vector<TimeRecording>& recordings,
                                  const TriggerOptions& trigger) {
  std::vector<HitInput> hits;
  for (const TimeRecording& r : recordings) {
    Validate(r, r.source);
    if (r.hit >= 0) {
      HitInput h{r.source, r, 0.0, "", Force(r).axis};
      h.record.source = r.source + " hit " + std::to_string(r.hit);
      hits.push_back(std::move(h));
      continue;
    }
    for (TriggeredHit& t : SplitHits(r, trigger))
      hits.push_back(
          {r.source, std::move(t.record), t.trigger_time_s, std::move(t.problem), Force(r).axis});
  }
  return hits;
}

// Lines k·fs/N inside the band, never 0 Hz and never above Nyquist.
std::vector<int> BandBins(int n, double fs, const ImpactOptions& o, const std::string& source) {
  const double df = fs / n;
  const double top = o.band_max_hz > 0.0 ? o.band_max_hz : fs / 2.56;
  std::vector<int> bins;
  for (int k = std::max(1, static_cast<int>(std::ceil(o.band_min_hz / df - 1e-9)));
       k <= n / 2 && k * df <= top * (1 + 1e-12); ++k)
    bins.push_back(k);
  if (bins.empty())
    throw Error(source, "band", "expected at least one line k·" + FormatDouble(df) +
                                    " Hz inside the band, got none");
  return bins;
}

// Subtracts each channel's mean over [0, end): the structure is at rest before the hit, so what
// the channel reads there is the front end's offset (it would leak into the low lines).
void RemoveDc(TimeRecording* r, int end) {
  if (end <= 0) return;
  for (TimeChannel& c : r->channels) {
    double mean = 0.0;
    for (int k = 0; k < end; ++k) mean += c.samples[k];
    mean /= end;
    for (double& v : c.samples) v -= mean;
  }
}

std::vector<double> Times(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(a.size());
  for (size_t k = 0; k < a.size(); ++k) out[k] = a[k] * b[k];
  return out;
}

// Spectra summed over the kept hits of one hammer axis: [response axis][line].
struct AxisSums {
  int hits = 0;
  std::array<std::vector<CrossSpectra>, 3> responses;
  std::array<bool, 3> seen{};
  std::array<FrfFormat, 3> native{};
};

}  // namespace

ImpactResult EstimateFrfs(const std::vector<TimeRecording>& recordings,
                          const ImpactOptions& options) {
  if (std::string error; !options.IsValid(&error))
    throw Error("", error.substr(0, error.find(':')), error.substr(error.find(':') + 2));
  if (recordings.empty()) throw Error("", "recordings", "expected at least one recording, got none");
  std::vector<HitInput> hits = CollectHits(recordings, options.trigger);

  ImpactResult result;
  const HitInput* first = nullptr;
  for (const HitInput& h : hits)
    if (h.problem.empty()) { first = &h; break; }
  if (first == nullptr)
    throw Error(recordings.front().source, "hits", "expected at least one whole hit, got none");
  const int n = static_cast<int>(first->record.channels.front().samples.size());
  const double fs = first->record.sample_rate_hz;
  result.record_samples = n;
  result.sample_rate_hz = fs;
  const std::vector<int> bins = BandBins(n, fs, options, first->record.source);
  result.exponential_tau_s = options.exponential.TimeConstant(n / fs);
  const std::vector<double> exponential = ExponentialWindow(n, fs, result.exponential_tau_s);
  ForceWindowOptions dc_region = options.force_window;
  dc_region.enabled = true;  // the pre-trigger region is the same with or without the window

  std::array<AxisSums, 3> sums;
  for (size_t index = 0; index < hits.size(); ++index) {
    HitInput& h = hits[index];
    HitVerdict v;
    v.hit = static_cast<int>(index);
    v.source = h.record.source;
    v.trigger_time_s = h.trigger_time_s;
    v.hammer_axis = h.hammer_axis;
    std::vector<std::string> reasons;
    if (!h.problem.empty()) reasons.push_back(h.problem);
    TimeRecording& r = h.record;
    HitTrace trace{h.file, {}, {}, {}, {}};
    if (reasons.empty()) {
      const int samples = static_cast<int>(r.channels.front().samples.size());
      if (samples != n || r.sample_rate_hz != fs)
        throw Error(r.source, "samples",
                    "expected records of " + std::to_string(n) + " samples at " +
                        FormatDouble(fs) + " Hz like the first hit, got " +
                        std::to_string(samples) + " at " + FormatDouble(r.sample_rate_hz) + " Hz");
      const Pulse pulse = FindPulse(Force(r).samples);
      reasons = CheckClipping(r, options.checks);
      for (auto& s : CheckDoubleHit(Force(r).samples, pulse, fs, options.checks))
        reasons.push_back(s);
      const int dc_end = ForceWindowStart(pulse, fs, dc_region);
      RemoveDc(&r, dc_end);
      for (auto& s : CheckDecay(r, exponential, dc_end, options.checks)) reasons.push_back(s);

      const std::vector<double> wf = ForceWindow(pulse, n, fs, options.force_window);
      const auto f = DftAtBins(Times(Times(Force(r).samples, wf), exponential), bins);
      std::vector<double> power(f.size());
      for (size_t l = 0; l < f.size(); ++l) power[l] = std::norm(f[l]);
      if (std::string s = CheckForceDrop(power, options.checks); !s.empty()) reasons.push_back(s);
      trace.pulse = pulse;
      trace.force_power = std::move(power);
      if (!reasons.empty() && options.keep_traces)
        for (const auto& c : DftAtBins(Times(Force(r).samples, exponential), bins))
          trace.force_power_unwindowed.push_back(std::norm(c));

      if (reasons.empty()) {
        AxisSums& axis = sums[v.hammer_axis];
        std::array<bool, 3> in_hit{};
        for (const TimeChannel& c : r.channels) {
          if (c.quantity == ChannelQuantity::kForce) continue;
          if (in_hit[c.axis])
            throw Error(r.source, "channels/" + c.name,
                        "expected one response per axis, got a second on axis " +
                            std::string(1, "xyz"[c.axis]));
          in_hit[c.axis] = true;
          if (axis.seen[c.axis] && axis.native[c.axis] != NativeFormat(c.quantity))
            throw Error(r.source, "channels/" + c.name,
                        "expected the quantity the other hits measure on this axis, got " +
                            ToString(c.quantity));
          axis.seen[c.axis] = true;
          axis.native[c.axis] = NativeFormat(c.quantity);
          auto& line_sums = axis.responses[c.axis];
          line_sums.resize(bins.size());
          const auto x = DftAtBins(Times(c.samples, exponential), bins);
          for (size_t l = 0; l < bins.size(); ++l) line_sums[l].Add(f[l], x[l]);
        }
        ++axis.hits;
      }
    }
    v.kept = reasons.empty();
    for (size_t k = 0; k < reasons.size(); ++k) v.reason += (k ? "; " : "") + reasons[k];
    result.verdicts.push_back(std::move(v));
    if (options.keep_traces) {
      trace.record = std::move(r);
      result.traces.push_back(std::move(trace));
    }
    if (options.progress) options.progress(index + 1, hits.size());
  }

  // The set's format: the one asked for, else the responses' own (which must then agree).
  FrfFormat format = FrfFormat::kInertance;
  bool format_known = options.format.has_value();
  if (format_known) format = *options.format;
  for (const AxisSums& a : sums)
    for (int i = 0; i < 3; ++i)
      if (a.seen[i] && !options.format) {
        if (format_known && a.native[i] != format)
          throw Error(recordings.front().source, "format",
                      "expected responses of one quantity when no format is asked for, got " +
                          ToString(format) + " and " + ToString(a.native[i]) + " FRFs");
        format = a.native[i];
        format_known = true;
      }

  FrfSet& set = result.set;
  set.posture = options.posture;
  set.format = format;
  for (int k : bins) set.frequency_hz.push_back(k * fs / n);
  const size_t lines = bins.size();
  set.H.assign(lines * 9, {});
  set.coherence.assign(lines * 9, 0.0);
  set.noise_variance.assign(lines * 9, 0.0);
  set.averages = 0;
  result.averages_per_axis.assign(3, 0);
  for (int j = 0; j < 3; ++j) {
    const AxisSums& a = sums[j];
    result.averages_per_axis[j] = a.hits;
    if (a.hits == 0) continue;
    set.averages = set.averages == 0 ? a.hits : std::min(set.averages, a.hits);
    for (int i = 0; i < 3; ++i) {
      if (!a.seen[i]) continue;
      const int e = EntryIndex(i, j);
      set.present[e] = true;
      for (size_t l = 0; l < lines; ++l) {
        const double omega = 2.0 * std::numbers::pi * set.frequency_hz[l];
        const auto h = Estimate(a.responses[i][l], options.estimator) *
                       ConversionFactor(a.native[i], format, omega);
        const double g = Coherence(a.responses[i][l]);
        set.H[l * 9 + e] = h;
        set.coherence[l * 9 + e] = g;
        // Each column has its own number of averages; the file's /averages (the fewest) alone
        // would overstate the noise of the better-averaged columns.
        if (a.hits >= kMinAveragesForNoise)
          set.noise_variance[l * 9 + e] = VarianceFromCoherence(h, g, a.hits);
      }
    }
  }
  int kept = 0;
  for (const HitVerdict& v : result.verdicts) kept += v.kept;
  if (kept == 0)
    throw Error(recordings.front().source, "hits",
                "expected at least one hit that passes the checks, got none (first reason: " +
                    result.verdicts.front().reason + ")");
  std::array<bool, 3> warned{};
  for (const HitVerdict& v : result.verdicts)
    if (!v.kept && result.averages_per_axis[v.hammer_axis] == 0 && !warned[v.hammer_axis]) {
      warned[v.hammer_axis] = true;
      Warn(v.source, "hits", "every hit of hammer axis " + std::string(1, "xyz"[v.hammer_axis]) +
                                 " was rejected: its column of the FRF matrix is missing");
    }
  // "coherence" when every column has the same averages: the file then stores γ² and n, and the
  // variance follows from them exactly; otherwise the per-column variance is stored as such.
  bool equal_averages = true;
  for (int a : result.averages_per_axis) equal_averages &= a == 0 || a == set.averages;
  set.noise_source = equal_averages ? "coherence" : "variance";
  if (set.averages < kMinAveragesForNoise) {
    // Too few hits for a variance from the coherence (frf/frf_set.h): none, and the fit estimates it.
    set.noise_variance.clear();
    set.noise_source.clear();
    Warn(recordings.front().source, "hits",
         "only " + std::to_string(set.averages) + " hit" + (set.averages == 1 ? "" : "s") +
             " kept along an axis: no noise variance from the coherence (at least " +
             std::to_string(kMinAveragesForNoise) + " are needed); a fit estimates the noise");
  }
  set.provenance = {{"generator", "frfit frf (impact test)"},
                    {"estimator", ToString(options.estimator)},
                    {"exponential_window_tau_s", FormatDouble(result.exponential_tau_s)},
                    {"force_window", options.force_window.enabled
                                         ? "margin " + FormatDouble(options.force_window.margin_s) +
                                               " s, taper " +
                                               FormatDouble(options.force_window.taper_s) + " s"
                                         : "none"},
                    {"sample_rate_hz", FormatDouble(fs)},
                    {"record_samples", std::to_string(n)},
                    {"hits_used", std::to_string(kept)},
                    {"hits_rejected", std::to_string(result.verdicts.size() - kept)},
                    {"averages_per_axis", std::to_string(result.averages_per_axis[0]) + "," +
                                              std::to_string(result.averages_per_axis[1]) + "," +
                                              std::to_string(result.averages_per_axis[2])}};
  set.exponential_window_tau_s = ExponentialWindowTauOf(set.provenance);  // as a reader sees it
  Validate(set, recordings.front().source);
  return result;
}

}  // namespace frfit
