#include "frfit/io/frf_hdf5.h"

#include <cmath>

#include "frfit/common/error.h"
#include "frfit/files/hdf5_file.h"

namespace frfit {

void WriteFrfMatrix(Hdf5File* file, const std::string& dataset, const FrfSet& set) {
  std::vector<double> h(set.H.size() * 2);
  for (size_t i = 0; i < set.H.size(); ++i) {
    h[2 * i] = set.H[i].real();
    h[2 * i + 1] = set.H[i].imag();
  }
  const hsize_t lines = set.frequency_hz.size();
  file->WriteDoubles(dataset, {lines, 3, 3, 2}, h.data());
}

void WriteFrfSet(const std::string& path, const FrfSet& set) {
  Validate(set, path);
  Hdf5File file(path, Hdf5File::Mode::kCreate);
  {
    const hsize_t lines = set.frequency_hz.size();
    file.WriteDoubles("/frequency_hz", {lines}, set.frequency_hz.data());
    WriteFrfMatrix(&file, "/H", set);
    std::int64_t present[9];
    for (int e = 0; e < 9; ++e) present[e] = set.present[e] ? 1 : 0;
    file.WriteInts("/present", {3, 3}, present);
    file.SetAttribute("/", "frfit_file", "frf_set");
    file.SetAttribute("/", "frfit_version", FRFIT_VERSION);
    file.SetAttribute("/", "format", ToString(set.format));
    file.SetAttribute("/", "units", UnitsOf(set.format));
    file.SetAttribute("/", "posture", set.posture);
    // Written only when named, so a tool-tip set reads the same in a reader that predates them.
    if (!set.response_frame.empty()) file.SetAttribute("/", "response_frame", set.response_frame);
    if (!set.excitation_frame.empty())
      file.SetAttribute("/", "excitation_frame", set.excitation_frame);
    // The noise model: given as variance, or coherence with its averages (docs/file-formats.md).
    // A variance derived from the coherence is not written: the coherence is the measurement.
    if (!set.noise_variance.empty() && set.noise_source != "coherence")
      file.WriteDoubles("/noise_variance", {lines, 3, 3}, set.noise_variance.data());
    if (!set.coherence.empty()) {
      file.WriteDoubles("/coherence", {lines, 3, 3}, set.coherence.data());
      const std::int64_t averages = set.averages;
      file.WriteInts("/averages", {1}, &averages);
    }
    file.CreateGroup("/provenance");
    for (const auto& [key, value] : set.provenance) file.SetAttribute("/provenance", key, value);
    // The window is the set's typed field; one given without its provenance record gets one.
    if (std::isfinite(set.exponential_window_tau_s) && !std::isfinite(ExponentialWindowTauOf(set.provenance)))
      file.SetAttribute("/provenance", "exponential_window_tau_s",
                        FormatDouble(set.exponential_window_tau_s));
  }
  file.Save();
}

namespace {

// A [lines][3][3] dataset of doubles, or a message naming its shape.
std::vector<double> ReadPerEntry(const Hdf5File& file, const std::string& name, size_t lines) {
  std::vector<hsize_t> dims;
  std::vector<double> values = file.ReadDoubles(name, 3, &dims);
  if (dims[0] != lines || dims[1] != 3 || dims[2] != 3)
    throw Error(file.path(), name,
                "expected shape [" + std::to_string(lines) + "][3][3], got [" +
                    std::to_string(dims[0]) + "][" + std::to_string(dims[1]) + "][" +
                    std::to_string(dims[2]) + "]");
  return values;
}

// /noise_variance, or /coherence with /averages (then the variance is derived from them).
void ReadNoiseModel(const Hdf5File& file, FrfSet* set) {
  const size_t lines = set->frequency_hz.size();
  if (file.Exists("/coherence")) {
    set->coherence = ReadPerEntry(file, "/coherence", lines);
    if (!file.Exists("/averages"))
      throw Error(file.path(), "/averages",
                  "expected the number of averages beside /coherence (an integer dataset of shape [1])");
    std::vector<hsize_t> dims;
    const std::vector<std::int64_t> averages = file.ReadInts("/averages", 1, &dims);
    if (dims[0] != 1 || averages[0] < 1 || averages[0] > 1000000)
      throw Error(file.path(), "/averages", "expected one integer in [1, 1000000]");
    set->averages = static_cast<int>(averages[0]);
  }
  if (file.Exists("/noise_variance")) {
    set->noise_variance = ReadPerEntry(file, "/noise_variance", lines);
    set->noise_source = "variance";
  } else {
    NoiseFromCoherence(set, file.path());
  }
}

// The root attributes this reader knows. An unknown one is refused rather than ignored: an
// attribute that changes what the data mean (as response_frame did: without it, a set measured
// at the elbow would be fitted as tool-tip data) must not be dropped silently by an older reader.
void RefuseUnknownAttributes(const Hdf5File& file) {
  static const char* const kKnown[] = {"frfit_file", "frfit_version",  "format",          "units",
                                       "posture",    "response_frame", "excitation_frame"};
  for (const std::string& name : file.AttributeNames("/")) {
    bool known = false;
    for (const char* k : kKnown) known = known || name == k;
    if (!known)
      throw Error(file.path(), "/@" + name,
                  "unknown attribute: this frfit (" FRFIT_VERSION
                  ") does not know what it means for the data, so it does not read the file "
                  "(written by a newer frfit? docs/file-formats.md lists the attributes it reads)");
  }
}

}  // namespace

FrfSet ReadFrfSet(const std::string& path) {
  Hdf5File file(path, Hdf5File::Mode::kRead);
  file.RequireFileKind("frf_set", "an frfit FRF set");
  RefuseUnknownAttributes(file);
  FrfSet set;
  set.posture = file.GetAttribute("/", "posture");
  if (file.HasAttribute("/", "response_frame"))
    set.response_frame = file.GetAttribute("/", "response_frame");
  if (file.HasAttribute("/", "excitation_frame"))
    set.excitation_frame = file.GetAttribute("/", "excitation_frame");
  const std::string format = file.GetAttribute("/", "format");
  if (!FromString(format, &set.format))
    throw Error(path, "/@format", "expected receptance, mobility or inertance, got '" + format + "'");
  std::vector<hsize_t> dims;
  set.frequency_hz = file.ReadDoubles("/frequency_hz", 1, &dims);
  const std::vector<double> h = file.ReadDoubles("/H", 4, &dims);
  if (dims[0] != set.frequency_hz.size() || dims[1] != 3 || dims[2] != 3 || dims[3] != 2)
    throw Error(path, "/H", "expected shape [" + std::to_string(set.frequency_hz.size()) +
                                "][3][3][2], got [" + std::to_string(dims[0]) + "][" +
                                std::to_string(dims[1]) + "][" + std::to_string(dims[2]) + "][" +
                                std::to_string(dims[3]) + "]");
  const std::vector<std::int64_t> present = file.ReadInts("/present", 2, &dims);
  if (dims[0] != 3 || dims[1] != 3) throw Error(path, "/present", "expected shape [3][3]");
  for (int e = 0; e < 9; ++e) {
    if (present[e] != 0 && present[e] != 1)
      throw Error(path, "/present[" + std::to_string(e / 3) + "][" + std::to_string(e % 3) + "]",
                  "expected 0 (not measured) or 1 (measured), got " + std::to_string(present[e]));
    set.present[e] = present[e] == 1;
  }
  set.H.resize(set.frequency_hz.size() * 9);
  // Non-finite values are kept: whether a bad line is an error or dropped is the cost's decision
  // (fit configuration), which names the line.
  for (size_t i = 0; i < set.H.size(); ++i) set.H[i] = {h[2 * i], h[2 * i + 1]};
  ReadNoiseModel(file, &set);
  if (file.Exists("/provenance"))
    for (const std::string& key : file.AttributeNames("/provenance"))
      set.provenance.emplace_back(key, file.GetAttribute("/provenance", key));
  set.exponential_window_tau_s = ExponentialWindowTauOf(set.provenance);
  Validate(set, path);
  return set;
}

}  // namespace frfit
