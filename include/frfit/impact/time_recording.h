// TimeRecording: what an impact test records before any FRF exists: the hammer's force and the
// responses at the tool tip, sampled together. It holds data only; reading and writing files
// lives under io/ (HDF5: io/time_hdf5.h; UFF 58 time records: io/uff_time.h), turning it into
// FRFs under impact/.
#pragma once

#include <string>
#include <vector>

namespace frfit {

// What a channel measured, in SI units after reading (N, m/s², m/s, m).
enum class ChannelQuantity { kForce, kAcceleration, kVelocity, kDisplacement };
std::string ToString(ChannelQuantity quantity);  // "force", "acceleration", ...
bool FromString(const std::string& text, ChannelQuantity* quantity);

struct TimeChannel {
  std::string name;  // as the file names it ("hammer", "acc_x", "node 1 +Z"), for messages
  ChannelQuantity quantity = ChannelQuantity::kAcceleration;
  int axis = 0;  // sensor-frame axis it measures along (x=0, y=1, z=2); a force: the hammer's
  std::vector<double> samples;  // SI units, one per sample, equally spaced
  // The front end's range in SI units (a sample at ± this is clipped); 0 when the file does not
  // say, and then clipping is detected from a flat top of samples at the channel's extreme.
  double full_scale = 0.0;
};

// One hit (a triggered record) or a continuous recording holding several hits: exactly one force
// channel and one or more responses, all of the same length and sample rate.
struct TimeRecording {
  double sample_rate_hz = 0.0;
  std::vector<TimeChannel> channels;
  std::string source;  // the file (and record numbers) it came from, for messages
  // Which hit of the file this is (0-based) when the file holds triggered records; -1 for a
  // continuous recording that the trigger splits.
  int hit = -1;
};

// Checks one force channel, responses, equal lengths, a positive sample rate and finite samples;
// throws Error naming `source` and the offending channel.
void Validate(const TimeRecording& recording, const std::string& source);

}  // namespace frfit
