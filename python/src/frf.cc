// FrfSet: measured or simulated FRFs at one posture, from NumPy arrays or files (HDF5, UFF 58/58b),
// to NumPy arrays and files.
#include <filesystem>

#include "common.h"
#include "frfit/common/error.h"
#include "frfit/frf/frf_format.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/io/uff.h"

namespace frfit::python {
namespace {

bool IsUff(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".uff" || ext == ".unv";
}

std::string PathArg(const py::handle& path) {
  return py::str(py::module_::import("os").attr("fspath")(path));
}

FrfSet ReadAny(const std::string& path, const std::string& posture, const std::string& format,
               int averages) {
  if (!IsUff(path)) {
    FrfSet set = ReadFrfSet(path);
    if (!posture.empty() && set.posture != posture)
      throw Error(path, "/@posture", "holds posture '" + set.posture + "', not '" + posture + "'");
    return set;
  }
  uff::ToFrfOptions options;
  options.posture = posture;
  if (!format.empty()) {
    FrfFormat f;
    if (!FromString(format, &f))
      throw Error(path, "format", "expected receptance, mobility or inertance, got '" + format + "'");
    options.format = f;
  }
  if (averages > 0) options.averages = averages;
  return uff::ToFrfSet(uff::Read(path), options);
}

// [line][3][3] values of an optional NumPy argument, or empty.
template <typename T>
std::vector<T> PerEntry(const py::object& arg, int lines, const char* what) {
  if (arg.is_none()) return {};
  const auto a = arg.cast<py::array_t<T, py::array::c_style | py::array::forcecast>>();
  if (a.size() != static_cast<py::ssize_t>(lines) * 9)
    throw Error("FrfSet", what, "expected an array of lines × 3 × 3 = " + std::to_string(lines) +
                                    " × 9 values, got " + std::to_string(a.size()));
  return std::vector<T>(a.data(), a.data() + a.size());
}

}  // namespace

FrfSet FrfSetArg(const py::handle& arg, std::string* source) {
  if (py::isinstance<FrfSet>(arg)) {
    const FrfSet& set = arg.cast<const FrfSet&>();
    *source = "FrfSet at posture '" + set.posture + "'";
    return set;
  }
  *source = PathArg(arg);
  return ReadAny(*source, "", "", 0);
}

void RegisterFrf(py::module_& m) {
  py::class_<FrfSet>(m, "FrfSet",
                     "A 3×3 FRF matrix per frequency line at one posture of a model, in receptance "
                     "(m/N), mobility (m/s/N) or inertance (m/s²/N); H[line, i, j] is the response "
                     "along axis i to a force along axis j (x, y, z).")
      .def(py::init([](const DoubleArray& frequency_hz, const ComplexArray& H, const std::string& posture,
                       const std::string& format, const py::object& present, const py::object& coherence,
                       int averages, const py::object& noise_variance, const py::dict& provenance,
                       const std::string& response_frame, const std::string& excitation_frame) {
             FrfSet set;
             set.posture = posture;
             set.response_frame = response_frame;
             set.excitation_frame = excitation_frame;
             if (!FromString(format, &set.format))
               throw Error("FrfSet", "format",
                           "expected receptance, mobility or inertance, got '" + format + "'");
             set.frequency_hz.assign(frequency_hz.data(), frequency_hz.data() + frequency_hz.size());
             const int lines = set.num_lines();
             if (H.ndim() != 3 || H.shape(0) != lines || H.shape(1) != 3 || H.shape(2) != 3)
               throw Error("FrfSet", "H",
                           "expected a complex array of shape (" + std::to_string(lines) +
                               ", 3, 3), one 3×3 matrix per line of frequency_hz");
             set.H.assign(H.data(), H.data() + H.size());
             if (present.is_none()) {
               // The entries that hold anything.
               for (int e = 0; e < 9; ++e)
                 for (int l = 0; l < lines && !set.present[e]; ++l) set.present[e] = set.H[l * 9 + e] != 0.0;
             } else {
               const auto p = present.cast<py::array_t<bool, py::array::c_style | py::array::forcecast>>();
               if (p.size() != 9) throw Error("FrfSet", "present", "expected a 3×3 array of booleans");
               for (int e = 0; e < 9; ++e) set.present[e] = p.data()[e];
             }
             set.coherence = PerEntry<double>(coherence, lines, "coherence");
             set.averages = averages;
             set.noise_variance = PerEntry<double>(noise_variance, lines, "noise_variance");
             if (!set.noise_variance.empty()) set.noise_source = "variance";
             for (const auto& [key, value] : provenance)
               set.provenance.emplace_back(py::str(key), py::str(value));
             set.exponential_window_tau_s = ExponentialWindowTauOf(set.provenance);
             WarningsToPython warnings;
             Validate(set, "FrfSet");
             if (!set.coherence.empty() && set.noise_variance.empty()) NoiseFromCoherence(&set, "FrfSet");
             return set;
           }),
           py::arg("frequency_hz"), py::arg("H"), py::kw_only(), py::arg("posture") = "",
           py::arg("format") = "inertance", py::arg("present") = py::none(),
           py::arg("coherence") = py::none(), py::arg("averages") = 0,
           py::arg("noise_variance") = py::none(), py::arg("provenance") = py::dict(),
           py::arg("response_frame") = "", py::arg("excitation_frame") = "",
           "From NumPy arrays: frequency_hz (lines), H (lines×3×3 complex), the posture's name in "
           "the model, the format; present (3×3 bool, default: the entries that are not all 0); "
           "optionally the noise model: coherence γ² (lines×3×3) with the number of averages, or "
           "noise_variance E|ΔH|² (lines×3×3); response_frame and excitation_frame name the model's "
           "frames of a multi-point set (empty: the sensor). Checked as a file is (frfit.Error).")
      .def_static("read",
                  [](const py::object& path, const std::string& posture, const std::string& format,
                     int averages) {
                    WarningsToPython warnings;
                    return ReadAny(PathArg(path), posture, format, averages);
                  },
                  py::arg("path"), py::kw_only(), py::arg("posture") = "", py::arg("format") = "",
                  py::arg("averages") = 0,
                  "Reads an FRF set: HDF5 (docs/file-formats.md), or UFF 58/58b (.uff, .unv; "
                  "docs/uff.md) for `posture`, its format detected from the units unless given, "
                  "`averages` behind its coherence records.")
      .def("write",
           [](const FrfSet& set, const py::object& path) {
             WarningsToPython warnings;
             WriteFrfSet(PathArg(path), set);
           },
           py::arg("path"), "Writes the set as frfit's HDF5 FRF file (atomically).")
      .def("write_uff",
           [](const FrfSet& set, const py::object& path, bool binary) {
             WarningsToPython warnings;
             uff::WriteFrfSet(PathArg(path), set, binary);
           },
           py::arg("path"), py::kw_only(), py::arg("binary") = false,
           "Writes one UFF dataset 58 (ASCII) or 58b (binary) per present entry.")
      .def_readonly("posture", &FrfSet::posture)
      .def_readonly("response_frame", &FrfSet::response_frame)
      .def_readonly("excitation_frame", &FrfSet::excitation_frame)
      .def_property_readonly("format", [](const FrfSet& s) { return ToString(s.format); })
      .def_property_readonly("units", [](const FrfSet& s) { return UnitsOf(s.format); })
      .def_property_readonly("frequency_hz", [](const FrfSet& s) { return ToNumpy(s.frequency_hz); })
      .def_property_readonly("H",
                             [](const FrfSet& s) {
                               return ToNumpy(s.H, {static_cast<py::ssize_t>(s.num_lines()), 3, 3});
                             },
                             "lines×3×3 complex, in the set's format (a copy)")
      .def_property_readonly("present",
                             [](const FrfSet& s) {
                               py::array_t<bool> out({3, 3});
                               for (int e = 0; e < 9; ++e) out.mutable_data()[e] = s.present[e];
                               return out;
                             })
      .def_property_readonly("coherence",
                             [](const FrfSet& s) -> py::object {
                               if (s.coherence.empty()) return py::none();
                               return ToNumpy(s.coherence, {s.num_lines(), 3, 3});
                             })
      .def_readonly("averages", &FrfSet::averages)
      .def_property_readonly("noise_variance",
                             [](const FrfSet& s) -> py::object {
                               if (s.noise_variance.empty()) return py::none();
                               return ToNumpy(s.noise_variance, {s.num_lines(), 3, 3});
                             })
      .def_readonly("noise_source", &FrfSet::noise_source)
      .def_property_readonly("provenance",
                             [](const FrfSet& s) {
                               py::dict out;
                               for (const auto& [key, value] : s.provenance) out[py::str(key)] = value;
                               return out;
                             })
      .def("to_format",
           [](const FrfSet& s, const std::string& format) {
             FrfFormat f;
             if (!FromString(format, &f))
               throw Error("FrfSet", "format", "expected receptance, mobility or inertance, got '" + format + "'");
             return ConvertFormat(s, f);
           },
           py::arg("format"), "The same FRFs in another format.")
      .def("__len__", &FrfSet::num_lines)
      .def("__repr__", [](const FrfSet& s) {
        return "<frfit.FrfSet posture '" + s.posture + "', " + std::to_string(s.num_lines()) +
               " lines, " + ToString(s.format) + ">";
      });
}

}  // namespace frfit::python
