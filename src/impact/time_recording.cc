#include "frfit/impact/time_recording.h"

#include <cmath>

#include "frfit/common/enum_names.h"
#include "frfit/common/error.h"

namespace frfit {

namespace {
constexpr std::pair<ChannelQuantity, const char*> kQuantities[] = {
    {ChannelQuantity::kForce, "force"},
    {ChannelQuantity::kAcceleration, "acceleration"},
    {ChannelQuantity::kVelocity, "velocity"},
    {ChannelQuantity::kDisplacement, "displacement"}};
}  // namespace

std::string ToString(ChannelQuantity quantity) { return EnumName(kQuantities, quantity); }
bool FromString(const std::string& text, ChannelQuantity* quantity) {
  return EnumFromName(kQuantities, text, quantity);
}

void Validate(const TimeRecording& recording, const std::string& source) {
  Require(recording.sample_rate_hz > 0.0 && std::isfinite(recording.sample_rate_hz), source,
          "sample_rate_hz", "a positive sample rate", FormatDouble(recording.sample_rate_hz));
  int forces = 0;
  for (const TimeChannel& c : recording.channels) forces += c.quantity == ChannelQuantity::kForce;
  Require(forces == 1, source, "channels", "exactly one force channel",
          std::to_string(forces));
  Require(recording.channels.size() >= 2, source, "channels",
          "a force channel and at least one response", std::to_string(recording.channels.size()) +
                                                           " channel(s)");
  const size_t n = recording.channels.front().samples.size();
  for (const TimeChannel& c : recording.channels) {
    const std::string field = "channels/" + c.name;
    Require(c.axis >= 0 && c.axis <= 2, source, field + "/axis", "0, 1 or 2 (x, y, z)",
            std::to_string(c.axis));
    Require(c.samples.size() == n && n >= 2, source, field + "/samples",
            std::to_string(n) + " samples like every channel (at least 2)",
            std::to_string(c.samples.size()));
    Require(c.full_scale >= 0.0 && std::isfinite(c.full_scale), source, field + "/full_scale",
            "a range >= 0 (0: unknown)", FormatDouble(c.full_scale));
    for (size_t k = 0; k < n; ++k)
      if (!std::isfinite(c.samples[k]))
        throw Error(source, field + "/samples[" + std::to_string(k) + "]",
                    "expected a finite sample, got " + FormatDouble(c.samples[k]));
  }
}

}  // namespace frfit
