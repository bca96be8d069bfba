// Model, Posture, simulate and modal: the stages before any measured data (DESIGN.md §1).
#include <cmath>

#include "common.h"
#include "frfit/common/error.h"
#include "frfit/results/mode_uncertainty.h"
#include "frfit/frf/synthesize.h"
#include "frfit/modal/modal.h"
#include "frfit/model/joint_coefficients.h"
#include "frfit/model/model_yaml.h"
#include "frfit/posture/posture.h"

namespace frfit::python {
namespace {

py::array_t<double> MatrixToNumpy(const Eigen::MatrixXd& m) {
  py::array_t<double> out({static_cast<py::ssize_t>(m.rows()), static_cast<py::ssize_t>(m.cols())});
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) out.mutable_at(r, c) = m(r, c);
  return out;
}

std::vector<std::string> CoordinateNames(const Model& model) {
  std::vector<std::string> names;
  for (const Dof& dof : model.dofs) names.push_back(dof.name);
  for (const std::string& name : model.rigid_coordinates) names.push_back(name);
  return names;
}

// The frequency lines of simulate: an array in Hz, or a band (f0, f1, df).
std::vector<double> LinesArg(const py::object& frequency_hz, const py::object& band) {
  if (!frequency_hz.is_none() && !band.is_none())
    throw Error("simulate", "band", "give frequency_hz or band, not both");
  if (!band.is_none()) {
    const auto b = band.cast<std::tuple<double, double, double>>();
    return MakeBand(std::get<0>(b), std::get<1>(b), std::get<2>(b), "band");
  }
  if (frequency_hz.is_none()) throw Error("simulate", "frequency_hz", "missing (give frequency_hz or band)");
  const DoubleArray f = frequency_hz.cast<DoubleArray>();
  return std::vector<double>(f.data(), f.data() + f.size());
}

FrfFormat FormatArg(const std::string& text, const std::string& what) {
  FrfFormat format;
  if (!FromString(text, &format))
    throw Error(what, "format", "expected receptance, mobility or inertance, got '" + text + "'");
  return format;
}

}  // namespace

void RegisterModel(py::module_& m) {
  py::class_<Model, std::shared_ptr<Model>>(m, "Model",
                                            "A flexible multibody model (immutable): bodies, "
                                            "elastic DOFs, sensor, postures, parameter bounds.")
      .def(py::init([](const py::object& path) {
             const std::string file = py::str(py::module_::import("os").attr("fspath")(path));
             WarningsToPython warnings;
             return std::make_shared<Model>(LoadModel(file));
           }),
           py::arg("path"),
           "Reads a model file: frfit's YAML, or a URDF overlay (docs/model-format.md, docs/urdf.md).")
      .def_readonly("name", &Model::name)
      .def_readonly("source", &Model::source)
      .def_property_readonly("postures",
                             [](const Model& model) {
                               std::vector<std::string> names;
                               for (const PostureSpec& p : model.postures) names.push_back(p.name);
                               return names;
                             },
                             "Names of the model's postures.")
      .def_property_readonly("dof_names",
                             [](const Model& model) {
                               std::vector<std::string> names;
                               for (const Dof& dof : model.dofs) names.push_back(dof.name);
                               return names;
                             })
      .def_property_readonly("coordinate_names", &CoordinateNames,
                             "Every coordinate: the elastic DOFs, then the rigid ones.")
      .def_property_readonly("parameter_names",
                             [](const Model& model) {
                               std::vector<std::string> names;
                               for (const ParameterSpec& p : model.parameters) names.push_back(p.name);
                               return names;
                             })
      .def_property_readonly("parameter_units",
                             [](const Model& model) {
                               std::vector<std::string> units;
                               for (const ParameterSpec& p : model.parameters) units.push_back(p.unit);
                               return units;
                             })
      .def_property_readonly("initial_parameters",
                             [](const Model& model) { return ToNumpy(model.InitialParameters()); })
      .def_property_readonly("lower_bounds",
                             [](const Model& model) {
                               std::vector<double> v;
                               for (const ParameterSpec& p : model.parameters) v.push_back(p.bounds.min);
                               return ToNumpy(v);
                             })
      .def_property_readonly("upper_bounds",
                             [](const Model& model) {
                               std::vector<double> v;
                               for (const ParameterSpec& p : model.parameters) v.push_back(p.bounds.max);
                               return ToNumpy(v);
                             })
      .def("posture_q",
           [](const Model& model, const std::string& name) { return ToNumpy(model.posture(name).q); },
           py::arg("name"), "The coordinates of a named posture, rad / m (coordinate_names order).")
      .def("load_parameters",
           [](const Model& model, const py::object& params) {
             WarningsToPython warnings;
             return ToNumpy(ParametersArg(model, params));
           },
           py::arg("params"),
           "Parameter values (parameter_names order) from a parameter YAML file, a fit result .h5, "
           "a dict over the initial values, or a sequence.")
      .def("linearize",
           [](const Model& model, const py::object& posture, const py::object& q) {
             std::string name;
             const std::vector<double> coordinates = CoordinatesArg(model, posture, q, &name);
             return Linearize(model, coordinates, name);
           },
           py::arg("posture") = py::none(), py::arg("q") = py::none(),
           "The model linearised at a posture, or at q: an array of every coordinate (rad / m), "
           "or a dict {coordinate: degrees or metres} on top of the posture.")
      .def("__repr__", [](const Model& model) {
        return "<frfit.Model '" + model.name + "': " + std::to_string(model.num_dofs()) + " DOFs, " +
               std::to_string(model.num_parameters()) + " parameters, postures " +
               model.PostureNames() + ">";
      });

  py::class_<Posture>(m, "Posture", "A model linearised at one configuration (immutable).")
      .def_readonly("name", &Posture::name)
      .def_readonly("n", &Posture::n)
      .def_property_readonly("q", [](const Posture& p) { return ToNumpy(p.q); })
      .def_property_readonly("mass", [](const Posture& p) { return MatrixToNumpy(p.mass); },
                             "M0, n×n")
      .def_property_readonly("gravity_stiffness",
                             [](const Posture& p) { return MatrixToNumpy(p.gravity_stiffness); },
                             "K_gravity, n×n")
      .def_property_readonly("sensor_jacobian",
                             [](const Posture& p) { return MatrixToNumpy(p.sensor_jacobian); },
                             "J_S, 3×n")
      .def_property_readonly("sensor_rotation",
                             [](const Posture& p) { return MatrixToNumpy(p.sensor_rotation); },
                             "R_0,S, 3×3")
      .def_property_readonly("sensor_basis",
                             [](const Posture& p) { return MatrixToNumpy(p.sensor_basis); },
                             "B = J_Sᵀ R_0,S, n×3")
      .def("__repr__", [](const Posture& p) {
        return "<frfit.Posture '" + p.name + "', n = " + std::to_string(p.n) + ">";
      });

  m.def(
      "simulate",
      [](const Model& model, const py::object& posture, const py::object& q, const py::object& params,
         const py::object& frequency_hz, const py::object& band, const std::string& format,
         const std::string& response_frame, const std::string& excitation_frame) {
        WarningsToPython warnings;
        std::string name, source;
        const std::vector<double> coordinates = CoordinatesArg(model, posture, q, &name);
        const std::vector<double> values = ParametersArg(model, params, nullptr, &source);
        const std::vector<double> lines = LinesArg(frequency_hz, band);
        const FrfFormat fmt = FormatArg(format, "simulate");
        py::gil_scoped_release release;
        const Posture linearised = Linearize(model, coordinates, name);
        FrfSet set = Synthesize(linearised, Coefficients(model, values, coordinates), lines, fmt,
                                PointsAt(model, linearised, response_frame, excitation_frame,
                                         "simulate response_frame / excitation_frame"));
        std::string text;
        for (int i = 0; i < model.num_parameters(); ++i)
          text += (i ? ";" : "") + model.parameters[i].name + "=" + FormatDouble(values[i]);
        set.provenance = {{"generator", std::string("frfit ") + FRFIT_VERSION + " python simulate"},
                          {"model", model.name},
                          {"model_file", model.source},
                          {"parameters", text},
                          {"parameters_source", source}};
        return set;
      },
      py::arg("model"), py::arg("posture") = py::none(), py::kw_only(), py::arg("q") = py::none(),
      py::arg("params") = py::none(), py::arg("frequency_hz") = py::none(),
      py::arg("band") = py::none(), py::arg("format") = "inertance",
      py::arg("response_frame") = "", py::arg("excitation_frame") = "",
      "The model's 3×3 FRF matrix (an FrfSet, .H lines×3×3 complex) between response_frame and "
      "excitation_frame (model frames; \"\": the sensor) at a posture "
      "(or q) for parameters `params` (default: the model's initial values) on the lines "
      "`frequency_hz` or the band (f0, f1, df) in Hz; format receptance, mobility or inertance. "
      "As `frfit simulate` without noise.");

  m.def(
      "modal",
      [](const Model& model, const py::object& posture, const py::object& q, const py::object& params) {
        WarningsToPython warnings;
        std::string name;
        Identifiability id;
        const std::vector<double> coordinates = CoordinatesArg(model, posture, q, &name);
        const std::vector<double> values = ParametersArg(model, params, &id);
        const Posture linear = Linearize(model, coordinates, name);
        const ModalAnalysis analysis = AnalyseModes(linear, Coefficients(model, values, coordinates));
        const size_t k = analysis.modes.size();
        const bool has_sigma = !id.per_parameter.empty();
        const std::vector<ModeSigma> sigma =
            has_sigma ? PropagateModeSigmas(linear, model, values, id)
                      : std::vector<ModeSigma>(k, ModeSigma{NAN, NAN});
        std::vector<double> f, zeta, f_sigma, zeta_sigma;
        std::vector<std::complex<double>> eigenvalues, sensor, shapes;
        for (size_t i = 0; i < k; ++i) {
          const Mode& mode = analysis.modes[i];
          f.push_back(mode.frequency_hz);
          zeta.push_back(mode.damping_ratio);
          f_sigma.push_back(sigma[i].frequency_hz);
          zeta_sigma.push_back(sigma[i].damping_ratio);
          eigenvalues.push_back(mode.eigenvalue);
          for (int a = 0; a < 3; ++a) sensor.push_back(mode.sensor_shape(a));
          for (Eigen::Index j = 0; j < mode.shape.size(); ++j) shapes.push_back(mode.shape(j));
        }
        const py::ssize_t modes = static_cast<py::ssize_t>(k);
        py::dict out;
        out["posture"] = name;
        out["frequency_hz"] = ToNumpy(f);
        out["damping_ratio"] = ToNumpy(zeta);
        out["frequency_sigma_hz"] = ToNumpy(f_sigma);
        out["damping_ratio_sigma"] = ToNumpy(zeta_sigma);
        out["eigenvalue"] = ToNumpy(eigenvalues, {modes});
        out["sensor_shape"] = ToNumpy(sensor, {modes, 3});
        out["shape"] = ToNumpy(shapes, {modes, static_cast<py::ssize_t>(model.num_dofs())});
        // As `frfit modal --json`: a free coordinate's rigid-body motion is no DOF that fails to
        // oscillate, and a near-critical pair (no mode) is one.
        const int rigid = analysis.rigid_body_eigenvalues / 2;
        out["overdamped_dofs"] = model.num_dofs() - rigid - static_cast<int>(k);
        out["rigid_body_modes"] = rigid;
        out["real_eigenvalues_1_per_s"] = ToNumpy(analysis.real_eigenvalues);
        py::list pairs;
        for (const std::complex<double>& lambda : analysis.near_critical) {
          py::dict pair;
          pair["frequency_hz"] = lambda.imag() / (2.0 * M_PI);
          pair["damping_ratio"] = -lambda.real() / std::abs(lambda);
          pairs.append(pair);
        }
        out["near_critical_pairs"] = pairs;
        return out;
      },
      py::arg("model"), py::arg("posture") = py::none(), py::kw_only(), py::arg("q") = py::none(),
      py::arg("params") = py::none(),
      "Damped natural frequencies (Hz), damping ratios (fractions), eigenvalues, sensor and joint "
      "mode shapes at a posture, as `frfit modal`; with params a fit result .h5, each mode's 1σ "
      "(NaN otherwise).");
}

}  // namespace frfit::python
