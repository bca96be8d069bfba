#include "frfit/impact/trigger.h"

#include <cmath>

#include "frfit/common/error.h"

namespace frfit {

bool TriggerOptions::IsValid(std::string* error) const {
  if (!(level_n >= 0.0) || !std::isfinite(level_n))
    return Invalid(error, "level_n: expected a level >= 0 in N");
  if (!(level_fraction > 0.0 && level_fraction < 1.0))
    return Invalid(error, "level_fraction: expected a fraction in (0, 1)");
  if (!(pretrigger_s >= 0.0) || !std::isfinite(pretrigger_s))
    return Invalid(error, "pretrigger_s: expected seconds >= 0");
  if (!(record_s >= 0.0) || !std::isfinite(record_s))
    return Invalid(error, "record_s: expected seconds > 0");
  return true;
}

namespace {

const TimeChannel& ForceOf(const TimeRecording& r) {
  for (const TimeChannel& c : r.channels)
    if (c.quantity == ChannelQuantity::kForce) return c;
  throw Error(r.source, "channels", "expected a force channel, got none");
}

// Samples [start, start + length) of every channel, as one hit.
TimeRecording Cut(const TimeRecording& r, long start, long length, int hit) {
  TimeRecording out;
  out.sample_rate_hz = r.sample_rate_hz;
  out.hit = hit;
  out.source = r.source + " hit " + std::to_string(hit);
  for (const TimeChannel& c : r.channels) {
    TimeChannel cut = c;
    cut.samples.assign(c.samples.begin() + start, c.samples.begin() + start + length);
    out.channels.push_back(std::move(cut));
  }
  return out;
}

}  // namespace

std::vector<TriggeredHit> SplitHits(const TimeRecording& recording, const TriggerOptions& options) {
  Validate(recording, recording.source);
  if (!(options.record_s > 0.0))
    throw Error(recording.source, "record_s",
                "expected a record length in seconds to split a continuous recording into hits");
  const std::vector<double>& f = ForceOf(recording).samples;
  double largest = 0.0;
  for (double v : f) largest = std::max(largest, std::abs(v));
  const double level = options.level_n > 0.0 ? options.level_n : options.level_fraction * largest;
  const double fs = recording.sample_rate_hz;
  const long length = std::lround(options.record_s * fs);
  const long pre = std::lround(options.pretrigger_s * fs);
  const long n = static_cast<long>(f.size());

  std::vector<TriggeredHit> hits;
  long k = 1;
  while (k < n) {
    if (!(std::abs(f[k - 1]) < level && std::abs(f[k]) >= level)) {
      ++k;
      continue;
    }
    TriggeredHit hit;
    hit.trigger_time_s = k / fs;
    const int index = static_cast<int>(hits.size());
    const long start = k - pre;
    if (start < 0 || start + length > n) {
      // Reported, not dropped: a hit the recording cut is still a hit the user made.
      hit.record.source = recording.source + " hit " + std::to_string(index);
      hit.record.hit = index;
      hit.problem = start < 0 ? "record incomplete: the recording starts less than the "
                                "pre-trigger before this hit"
                              : "record incomplete: the recording ends " +
                                    FormatDouble((n - k) / fs) + " s after this hit's trigger, " +
                                    "the record needs " + FormatDouble((length - pre) / fs) + " s";
    } else {
      hit.record = Cut(recording, start, length, index);
    }
    hits.push_back(std::move(hit));
    k = std::max(k + 1, start + length);  // crossings inside this record belong to it
  }
  return hits;
}

}  // namespace frfit
