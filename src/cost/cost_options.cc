#include "frfit/cost/cost_options.h"

#include <cmath>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"

namespace frfit {
namespace {

constexpr std::pair<CostType, const char*> kCostTypes[] = {
    {CostType::kLogComplex, "log_complex"},
    {CostType::kLogMagnitude, "log_magnitude"},
    {CostType::kNormalizedComplex, "normalized_complex"}};
constexpr std::pair<PhaseMode, const char*> kPhaseModes[] = {
    {PhaseMode::kWrapped, "wrapped"}, {PhaseMode::kPrincipalLogs, "principal_logs"}};
constexpr std::pair<WeightMode, const char*> kWeightModes[] = {{WeightMode::kPeaks, "peaks"},
                                                               {WeightMode::kUniform, "uniform"},
                                                               {WeightMode::kBands, "bands"},
                                                               {WeightMode::kNoise, "noise"}};
constexpr std::pair<LossType, const char*> kLossTypes[] = {
    {LossType::kNone, "none"}, {LossType::kHuber, "huber"}, {LossType::kCauchy, "cauchy"}};
constexpr std::pair<NoiseSource, const char*> kNoiseSources[] = {
    {NoiseSource::kAuto, "auto"},
    {NoiseSource::kFile, "file"},
    {NoiseSource::kEstimate, "estimate"}};

}  // namespace

std::string ToString(CostType v) { return EnumName(kCostTypes, v); }
bool FromString(const std::string& t, CostType* v) { return EnumFromName(kCostTypes, t, v); }
std::string ToString(PhaseMode v) { return EnumName(kPhaseModes, v); }
bool FromString(const std::string& t, PhaseMode* v) { return EnumFromName(kPhaseModes, t, v); }
std::string ToString(WeightMode v) { return EnumName(kWeightModes, v); }
bool FromString(const std::string& t, WeightMode* v) { return EnumFromName(kWeightModes, t, v); }
std::string ToString(LossType v) { return EnumName(kLossTypes, v); }
bool FromString(const std::string& t, LossType* v) { return EnumFromName(kLossTypes, t, v); }
std::string ToString(NoiseSource v) { return EnumName(kNoiseSources, v); }
bool FromString(const std::string& t, NoiseSource* v) { return EnumFromName(kNoiseSources, t, v); }

int ParseEntryName(const std::string& text) {
  if (text.size() != 2) return -1;
  const auto axis = [](char c) { return c == 'x' ? 0 : c == 'y' ? 1 : c == 'z' ? 2 : -1; };
  const int i = axis(text[0]), j = axis(text[1]);
  return i < 0 || j < 0 ? -1 : 3 * i + j;
}

bool CostOptions::IsValid(std::string* error) const {
  auto fail = [&](const std::string& message) {
    if (error) *error = message;
    return false;
  };
  if (!(band_min_hz >= 0.0) || std::isnan(band_max_hz) || !(band_max_hz > band_min_hz))
    return fail("cost.band_hz: expected 0 <= min < max, got [" + FormatDouble(band_min_hz) + ", " +
                FormatDouble(band_max_hz) + "]");
  bool any = false;
  for (bool e : entries) any = any || e;
  if (!any) return fail("cost.entries: expected at least one FRF entry");
  const WeightOptions& w = weights;
  if (!(w.peak_gain > 0.0) || !std::isfinite(w.peak_gain))
    return fail("cost.weights.peak_gain: expected a positive number, got " + FormatDouble(w.peak_gain));
  if (!(w.search_peak_gain >= 1.0) || !std::isfinite(w.search_peak_gain))
    return fail("cost.weights.search_peak_gain: expected a number >= 1, got " +
                FormatDouble(w.search_peak_gain));
  if (!(w.base_gain >= 0.0) || !std::isfinite(w.base_gain))
    return fail("cost.weights.base_gain: expected a number >= 0, got " + FormatDouble(w.base_gain));
  if (w.peak_halfwidth_lines < 0)
    return fail("cost.weights.peak_halfwidth_lines: expected >= 0, got " +
                std::to_string(w.peak_halfwidth_lines));
  if (!(w.min_prominence_db >= 0.0))
    return fail("cost.weights.min_prominence_db: expected >= 0 dB");
  if (w.ema_peaks && (w.mode != WeightMode::kPeaks || !w.peak_frequencies_hz.empty()))
    return fail("cost.weights.ema_peaks: expected mode peaks and no peak_frequencies_hz with it");
  if (!(w.peak_floor_db > 0.0))
    return fail("cost.weights.peak_floor_db: expected > 0 dB, got " +
                FormatDouble(w.peak_floor_db));
  for (size_t b = 0; b < w.bands.size(); ++b)
    if (!(w.bands[b].to_hz >= w.bands[b].from_hz) || !(w.bands[b].gain >= 0.0))
      return fail("cost.weights.bands[" + std::to_string(b) +
                  "]: expected from_hz <= to_hz and gain >= 0");
  if (loss.type != LossType::kNone && !(loss.scale > 0.0 && std::isfinite(loss.scale)))
    return fail("cost.loss.scale: expected a positive number, got " + FormatDouble(loss.scale));
  if (noise.reweight_passes < 0 || noise.reweight_passes > 10)
    return fail("cost.noise.reweight_passes: expected 0 to 10, got " +
                std::to_string(noise.reweight_passes));
  if (w.mode == WeightMode::kBands && w.bands.empty())
    return fail("cost.weights.bands: expected at least one band for mode bands");
  return true;
}

}  // namespace frfit
