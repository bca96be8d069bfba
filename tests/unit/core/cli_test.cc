// The command-line contract (DESIGN.md §5), exercised by running build/frfit: on bad input a
// non-zero exit, exactly one stderr line "error: …" naming the file and the field, nothing on
// stdout and no output file; on good input one JSON object on stdout.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "frfit/io/frf_hdf5.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kModel = kRoot + "/datasets/paper_3dof/model.yaml";
const std::string kParams = kRoot + "/datasets/paper_3dof/params_table1.yaml";
const std::string kKuka = kRoot + "/datasets/kuka_kr90/model.yaml";
const std::string kKukaParams = kRoot + "/datasets/kuka_kr90/params_from34.yaml";

using test::ReadText;
using Result = test::CliResult;

class CliTest : public test::TempDirTest {
 protected:
  // A copy of the paper model with one edit.
  std::string BadModel(const std::string& name, const std::string& from, const std::string& to) {
    std::string text = ReadText(kModel);
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    const std::string path = Path(name);
    std::ofstream(path) << text;
    return path;
  }

  // Bad input: exit status non-zero, stdout empty, stderr exactly one line "error: ..." that
  // contains every one of `needles`.
  void ExpectOneLineError(const Result& r, const std::vector<std::string>& needles) {
    EXPECT_NE(r.status, 0);
    EXPECT_TRUE(r.out.empty()) << "stdout: " << r.out;
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.back(), '\n') << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line: " << r.err;
    for (const auto& n : needles) EXPECT_NE(r.err.find(n), std::string::npos) << n << " not in: " << r.err;
  }

  // Runs `simulate` on the model file and checks the error and that no output file appeared.
  void ExpectSimulateError(const std::string& model, const std::vector<std::string>& needles,
                           const std::string& band = "0.2:30:0.2", const std::string& format = "inertance") {
    const std::string out = Path("out.h5");
    const Result r = Run({"simulate", "--model", model, "--posture", "milling", "--params", kParams,
                          "--band", band, "--format", format, "--out", out});
    ExpectOneLineError(r, needles);
    EXPECT_FALSE(fs::exists(out)) << "an output file was written";
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().find("out.h5"), std::string::npos)
          << "left behind: " << e.path();
  }
};

TEST_F(CliTest, InfoJson) {
  const Result r = Run({"info", "--model", kModel, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"], "paper_3dof");
  EXPECT_EQ(j["damping_model"], "viscous");
  ASSERT_EQ(j["dofs"].size(), 3u);
  EXPECT_EQ(j["dofs"][0]["name"], "z1");
  ASSERT_EQ(j["bodies"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["bodies"][0]["mass_kg"].get<double>(), 511.726);
  ASSERT_EQ(j["parameters"].size(), 6u);
  EXPECT_EQ(j["parameters"][0]["name"], "k_z1");
  EXPECT_EQ(j["sensor_frame"], "sensor");
  // Postures are reported in file units (degrees).
  EXPECT_NEAR(j["postures"]["milling"]["z2"].get<double>(), 70.0, 1e-12);
  EXPECT_NEAR(j["postures"]["milling"]["z3"].get<double>(), -100.0, 1e-12);
}

TEST_F(CliTest, ModalJsonMatchesThePaper) {
  const Result r = Run({"modal", "--model", kModel, "--posture", "milling", "--params", kParams, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["modes"].size(), 3u);
  const double f[3] = {10.17, 11.24, 22.6}, zeta[3] = {0.0189, 0.018, 0.0166};
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(j["modes"][k]["frequency_hz"].get<double>(), f[k], 0.005 * f[k]);
    // A fraction, not a percentage.
    EXPECT_NEAR(j["modes"][k]["damping_ratio"].get<double>(), zeta[k], 0.0005);
  }
}

TEST_F(CliTest, ModalJsonKuka) {
  const Result r = Run({"modal", "--model", kKuka, "--posture", "milling", "--params", kKukaParams, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_GE(j["modes"].size(), 4u);
  const double f[4] = {10.0, 11.1, 18.7, 23.8};
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(j["modes"][k]["frequency_hz"].get<double>(), f[k], 0.01 * f[k]);
}

TEST_F(CliTest, SimulateWritesReadableFile) {
  const std::string out = Path("x.h5");
  const Result r = Run({"simulate", "--model", kModel, "--posture", "milling", "--params", kParams,
                        "--band", "0.2:30:0.2", "--format", "inertance", "--out", out, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["lines"], 150);
  EXPECT_EQ(j["format"], "inertance");
  const FrfSet set = ReadFrfSet(out);
  EXPECT_EQ(set.num_lines(), 150);
  EXPECT_EQ(set.format, FrfFormat::kInertance);
  EXPECT_EQ(set.posture, "milling");
  EXPECT_NEAR(set.frequency_hz.front(), 0.2, 1e-12);
  EXPECT_NEAR(set.frequency_hz.back(), 30.0, 1e-9);
  for (bool p : set.present) EXPECT_TRUE(p);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
  for (const auto& n : names) EXPECT_EQ(n.find(".tmp"), std::string::npos) << "left behind: " << n;
}

TEST_F(CliTest, UnknownKey) {
  const std::string m = BadModel("unknown_key.yaml", "sensor: sensor\n", "sensor: sensor\ncolour: red\n");
  ExpectOneLineError(Run({"info", "--model", m}), {m, "colour", "unknown key"});
  ExpectSimulateError(m, {m, "colour"});
}

TEST_F(CliTest, MissingMass) {
  const std::string m = BadModel("missing_mass.yaml", "    mass: 511.726\n", "");
  ExpectOneLineError(Run({"info", "--model", m}), {m, "bodies[0].mass", "missing"});
  ExpectSimulateError(m, {m, "bodies[0].mass"});
}

TEST_F(CliTest, NegativeMass) {
  const std::string m = BadModel("negative_mass.yaml", "mass: 249.53", "mass: -249.53");
  ExpectOneLineError(Run({"info", "--model", m}), {m, "bodies[1].mass", "positive"});
  ExpectSimulateError(m, {m, "bodies[1].mass"});
}

TEST_F(CliTest, InertiaNotPositiveDefinite) {
  const std::string m = BadModel("inertia.yaml", "{xx: 19.45, yy: 33.893", "{xx: 0.01, yy: 33.893");
  ExpectOneLineError(Run({"info", "--model", m}), {m, "bodies[0].inertia", "positive definite"});
  ExpectSimulateError(m, {m, "bodies[0].inertia"});
}

TEST_F(CliTest, UnknownFrameName) {
  const std::string m = BadModel("frame.yaml", "frame: joint3\n", "frame: joint9\n");
  ExpectOneLineError(Run({"info", "--model", m}), {m, "bodies[2].frame", "joint9"});
  const std::string s = BadModel("sensor.yaml", "sensor: sensor\n", "sensor: tcp\n");
  ExpectOneLineError(Run({"info", "--model", s}), {s, "sensor", "unknown frame 'tcp'"});
}

TEST_F(CliTest, UnknownCoordinateInTransform) {
  const std::string m = BadModel("coord.yaml", "{rotz: z2}", "{rotz: z7}");
  ExpectOneLineError(Run({"info", "--model", m}), {m, "frames[1].transforms[2].rotz", "z7"});
  ExpectSimulateError(m, {m, "frames[1].transforms[2].rotz"});
}

TEST_F(CliTest, LowerBoundAboveUpperBound) {
  const std::string m = BadModel("bounds.yaml", "damping: {initial: 300, min: 10, max: 1.0e4}}\n  - {name: z2",
                                 "damping: {initial: 300, min: 1.0e5, max: 1.0e4}}\n  - {name: z2");
  ExpectOneLineError(Run({"info", "--model", m}), {m, "dofs[0].damping.min", "min <= max"});
}

TEST_F(CliTest, NonPositiveBound) {
  const std::string m = BadModel("bound0.yaml", "damping: {initial: 300, min: 10, max: 1.0e4}}\n  - {name: z2",
                                 "damping: {initial: 300, min: -10, max: 1.0e4}}\n  - {name: z2");
  ExpectOneLineError(Run({"info", "--model", m}), {m, "dofs[0].damping.min", "positive"});
}

TEST_F(CliTest, NanInNumber) {
  const std::string m = BadModel("nan.yaml", "mass: 222.659", "mass: .nan");
  ExpectOneLineError(Run({"info", "--model", m}), {m, "bodies[2].mass", "finite"});
  ExpectSimulateError(m, {m, "bodies[2].mass"});
}

TEST_F(CliTest, NanInParameterFile) {
  const std::string p = Path("params_nan.yaml");
  std::string text = ReadText(kParams);
  text.replace(text.find("d_z2: 1545"), 10, "d_z2: .nan");
  std::ofstream(p) << text;
  ExpectOneLineError(Run({"modal", "--model", kModel, "--posture", "milling", "--params", p}),
                     {p, "parameters.d_z2", "finite"});
}

TEST_F(CliTest, EmptyBand) {
  ExpectSimulateError(kModel, {"--band", "F0 <= F1"}, "10:5:0.2");
  ExpectSimulateError(kModel, {"--band", "DF > 0"}, "0:10:0");
}

TEST_F(CliTest, BadFormat) {
  ExpectSimulateError(kModel, {"--format", "accelerance", "receptance, mobility or inertance"},
                      "0.2:30:0.2", "accelerance");
}

TEST_F(CliTest, UnknownPosture) {
  const Result r = Run({"modal", "--model", kModel, "--posture", "drilling", "--json"});
  ExpectOneLineError(r, {"drilling"});
}

TEST_F(CliTest, MissingModelFile) {
  const std::string m = Path("nowhere.yaml");
  ExpectOneLineError(Run({"info", "--model", m, "--json"}), {m, "cannot open"});
}

TEST_F(CliTest, UnknownOption) {
  ExpectOneLineError(Run({"info", "--model", kModel, "--colour"}), {"--colour"});
}

TEST_F(CliTest, CommandHelpPrintsThatCommandsUsage) {
  const Result fit = Run({"fit", "--help"});
  EXPECT_EQ(fit.status, 0) << fit.err;
  EXPECT_EQ(fit.out.rfind("usage: frfit fit ", 0), 0u) << fit.out;
  EXPECT_NE(fit.out.find("--backend cpu|cuda|auto"), std::string::npos) << fit.out;  // continuation line
  EXPECT_EQ(fit.out.find("manifest"), std::string::npos) << "only fit's lines: " << fit.out;
  const Result fleet = Run({"fleet", "--manifest", "x.yaml", "-h"});
  EXPECT_EQ(fleet.status, 0) << fleet.err;
  EXPECT_NE(fleet.out.find("--checkpoint-every"), std::string::npos) << fleet.out;
  EXPECT_NE(fleet.out.find("--checkpoint-seconds S"), std::string::npos) << fleet.out;
  EXPECT_NE(fleet.out.find("--progress-every N] [--json]"), std::string::npos) << fleet.out;
  const Result unknown = Run({"fitt", "--help"});
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown command 'fitt'"), std::string::npos) << unknown.err;
}

// Every option a command accepts (the list its unknown-option error gives) is in its --help,
// with a description.
TEST_F(CliTest, CommandHelpListsEveryOptionWithWhatItDoes) {
  for (const std::string command :
       {"info", "modal", "simulate", "fit", "convert", "fleet", "report", "ema", "design", "export",
        "frf", "map", "lobes"}) {
    const Result bad = Run({command, "--no-such-option"});
    const size_t list = bad.err.find("expected one of:");
    ASSERT_NE(list, std::string::npos) << bad.err;
    std::istringstream accepted(bad.err.substr(list + 16, bad.err.find(')', list) - list - 16));
    const Result help = Run({command, "--help"});
    EXPECT_EQ(help.status, 0) << help.err;
    EXPECT_EQ(help.out.rfind("usage: frfit " + command + " ", 0), 0u) << help.out;
    int options = 0;
    for (std::string option; accepted >> option; ++options) {
      const size_t at = help.out.find("\n  " + option + " ");
      ASSERT_NE(at, std::string::npos) << command << " --help does not list " << option << ":\n"
                                       << help.out;
      const std::string line = help.out.substr(at + 1, help.out.find('\n', at + 1) - at - 1);
      EXPECT_GT(line.size(), 40u) << "no description: " << line;
    }
    EXPECT_GE(options, 2) << command;
  }
}

// A DOF damped past critical has no oscillating mode: modal says how many DOFs do not oscillate
// and gives their real eigenvalues, and its table says that the frequencies are damped ones.
TEST_F(CliTest, ModalReportsOverdampedDofsAndLabelsDampedFrequencies) {
  std::string params = ReadText(kParams);
  params.replace(params.find("d_z1: 1200"), 10, "d_z1: 1.0e8");
  std::ofstream(Path("overdamped.yaml")) << params;
  Result r = Run({"modal", "--model", kModel, "--posture", "milling", "--params",
                  Path("overdamped.yaml"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["dofs"], 3);
  EXPECT_EQ(j["modes"].size(), 2u);
  EXPECT_EQ(j["overdamped_dofs"], 1);
  ASSERT_EQ(j["real_eigenvalues_1_per_s"].size(), 2u);
  for (const auto& v : j["real_eigenvalues_1_per_s"]) EXPECT_LT(v.get<double>(), 0.0);
  r = Run(
      {"modal", "--model", kModel, "--posture", "milling", "--params", Path("overdamped.yaml")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("damped f [Hz]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 modes for 3 DOFs: 1 DOF is overdamped"), std::string::npos) << r.out;
  // With the paper's parameters every DOF oscillates: no such line.
  r = Run({"modal", "--model", kModel, "--posture", "milling", "--params", kParams});
  EXPECT_EQ(r.out.find("overdamped"), std::string::npos) << r.out;
}

// Fitting one model to FRFs whose provenance names another is allowed, with a warning.
TEST_F(CliTest, FitWarnsWhenTheFrfsWereSynthesisedFromAnotherModel) {
  const std::string law = kRoot + "/datasets/paper_3dof_law/frf_milling_inertance.h5";
  std::ofstream(Path("quick.yaml"))
      << "format: frfit-fit-1\ngenetic_algorithm: {population_size: 8, generations: 1}\n"
         "nelder_mead: {max_iterations: 5}\nfitter: {max_cycles: 1}\n";
  Result r =
      Run({"fit", "--model", kModel, "--frf", law, "--config", Path("quick.yaml"), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning: " + law +
                       ": /provenance@model: the FRFs were synthesised from model "
                       "'paper_3dof_law', this fit uses model 'paper_3dof'"),
            std::string::npos)
      << r.err;
  r = Run({"fit", "--model", kModel, "--frf",
           kRoot + "/datasets/paper_3dof/frf_milling_inertance.h5", "--config", Path("quick.yaml"),
           "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  // No provenance warning (the noise-free FRFs do get the noise-overestimated one).
  EXPECT_EQ(r.err.find("/provenance@model"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace frfit
