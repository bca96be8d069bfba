#include "frfit/io/time_hdf5.h"

#include <initializer_list>
#include <string>

#include "frfit/common/error.h"
#include "frfit/files/hdf5_file.h"

namespace frfit {

namespace {

// "[3][4][2048]": a shape for messages, appended piece by piece ("[" + std::string&& trips GCC
// 12's -Wrestrict false positive, bug 105329).
std::string Shape(std::initializer_list<hsize_t> dims) {
  std::string text;
  for (hsize_t d : dims) ((text += '[') += std::to_string(d)) += ']';
  return text;
}

}  // namespace

void WriteTimeRecordings(const std::string& path, const std::vector<TimeRecording>& recordings) {
  Require(!recordings.empty(), path, "samples", "at least one recording", "none");
  const bool continuous = recordings.front().hit < 0;
  Require(!continuous || recordings.size() == 1, path, "samples",
          "one continuous recording or triggered hits", std::to_string(recordings.size()) +
                                                            " recordings, the first continuous");
  const TimeRecording& first = recordings.front();
  for (const TimeRecording& r : recordings) {
    Validate(r, path);
    Require(r.channels.size() == first.channels.size() &&
                r.channels.front().samples.size() == first.channels.front().samples.size() &&
                r.sample_rate_hz == first.sample_rate_hz,
            path, "samples", "hits with the first hit's channels, length and sample rate",
            "a hit that differs");
  }
  const hsize_t h = recordings.size(), c = first.channels.size(),
                n = first.channels.front().samples.size();
  Hdf5File file(path, Hdf5File::Mode::kCreate);
  file.SetAttribute("/", "frfit_file", "time_recording");
  file.SetAttribute("/", "frfit_version", FRFIT_VERSION);
  file.SetAttribute("/", "recording", continuous ? "continuous" : "hits");
  file.WriteDoubles("/sample_rate_hz", {1}, &first.sample_rate_hz);
  file.CreateGroup("/channels");
  std::vector<std::string> names, quantities;
  std::vector<std::int64_t> axes;
  std::vector<double> full_scale;
  for (const TimeChannel& ch : first.channels) {
    names.push_back(ch.name);
    quantities.push_back(ToString(ch.quantity));
    axes.push_back(ch.axis);
    full_scale.push_back(ch.full_scale);
  }
  file.WriteStrings("/channels/name", names);
  file.WriteStrings("/channels/quantity", quantities);
  file.WriteInts("/channels/axis", {c}, axes.data());
  file.WriteDoubles("/channels/full_scale", {c}, full_scale.data());
  std::vector<double> samples;
  samples.reserve(h * c * n);
  for (const TimeRecording& r : recordings)
    for (const TimeChannel& ch : r.channels)
      samples.insert(samples.end(), ch.samples.begin(), ch.samples.end());
  file.WriteDoubles("/samples", {h, c, n}, samples.data());
  file.Save();
}

std::vector<TimeRecording> ReadTimeRecordings(const std::string& path) {
  Hdf5File file(path, Hdf5File::Mode::kRead);
  file.RequireFileKind("time_recording", "an frfit time recording");
  const std::string layout = file.GetAttribute("/", "recording");
  Require(layout == "hits" || layout == "continuous", path, "/@recording",
          "\"hits\" or \"continuous\"", "\"" + layout + "\"");
  std::vector<hsize_t> dims;
  const std::vector<double> rate = file.ReadDoubles("/sample_rate_hz", 1, &dims);
  Require(dims[0] == 1, path, "/sample_rate_hz", "shape [1]", Shape({dims[0]}));
  const std::vector<std::string> names = file.ReadStrings("/channels/name");
  const std::vector<std::string> quantities = file.ReadStrings("/channels/quantity");
  const std::vector<std::int64_t> axes = file.ReadInts("/channels/axis", 1, &dims);
  const size_t c = names.size();
  auto same_count = [&](size_t count, const std::string& what) {
    Require(count == c, path, what, std::to_string(c) + " values (one per channel name)",
            std::to_string(count));
  };
  same_count(quantities.size(), "/channels/quantity");
  same_count(axes.size(), "/channels/axis");
  std::vector<double> full_scale(c, 0.0);
  if (file.Exists("/channels/full_scale")) {
    full_scale = file.ReadDoubles("/channels/full_scale", 1, &dims);
    same_count(full_scale.size(), "/channels/full_scale");
  }
  const std::vector<double> samples = file.ReadDoubles("/samples", 3, &dims);
  Require(dims[1] == c, path, "/samples", "shape [hits][" + std::to_string(c) + "][samples]",
          Shape({dims[0], dims[1], dims[2]}));
  Require(dims[0] >= 1 && (layout == "hits" || dims[0] == 1), path, "/samples",
          layout == "hits" ? "at least one hit" : "one recording ([1][channels][samples])",
          std::to_string(dims[0]));
  const size_t h = dims[0], n = dims[2];
  std::vector<TimeRecording> out;
  for (size_t k = 0; k < h; ++k) {
    TimeRecording r;
    r.sample_rate_hz = rate[0];
    r.source = path;
    r.hit = layout == "continuous" ? -1 : static_cast<int>(k);
    for (size_t ch = 0; ch < c; ++ch) {
      TimeChannel channel;
      channel.name = names[ch];
      if (!FromString(quantities[ch], &channel.quantity))
        throw Error(path, "/channels/quantity[" + std::to_string(ch) + "]",
                    "expected force, acceleration, velocity or displacement, got \"" +
                        quantities[ch] + "\"");
      Require(axes[ch] >= 0 && axes[ch] <= 2, path, "/channels/axis[" + std::to_string(ch) + "]",
              "0, 1 or 2 (x, y, z)", std::to_string(axes[ch]));
      channel.axis = static_cast<int>(axes[ch]);
      channel.full_scale = full_scale[ch];
      const double* begin = samples.data() + (k * c + ch) * n;
      channel.samples.assign(begin, begin + n);
      r.channels.push_back(std::move(channel));
    }
    Validate(r, path);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace frfit
