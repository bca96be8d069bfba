// Malformed and ambiguous inputs, each refused by the command line with one "error:" line naming
// the file and the field, a non-zero exit, nothing on stdout and no output written; every input
// file stays byte-identical (an output path that is an input must not destroy it). The same cases
// are listed for users in docs/input-checks.md, which the last test keeps in step.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frfit/io/hdf5_file.h"
#include "test_support.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

const std::string kRoot = FRFIT_SOURCE_DIR;
const std::string kData = kRoot + "/datasets/paper_3dof/";

struct BadInput {
  std::string name;
  // Writes the case's files into `dir` (copies of the bundled dataset, edited).
  std::function<void(const std::string& dir)> prepare;
  std::vector<std::string> args;  // "{dir}" stands for the case's directory
  std::string expect;             // part of the error line; also listed in docs/input-checks.md
};

void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

void Copy(const std::string& from, const std::string& to) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

// `from` with its first `find` replaced by `replace`, written to `to`.
void Edited(const std::string& from, const std::string& to, const std::string& find,
            const std::string& replace) {
  std::string text = test::ReadText(from);
  const size_t at = text.find(find);
  ASSERT_NE(at, std::string::npos) << find;
  text.replace(at, find.size(), replace);
  std::ofstream(to, std::ios::binary) << text;
}

// The bundled URDF with link1's mass written as `mass`, and its overlay next to it.
std::function<void(const std::string&)> UrdfMass(const std::string& mass) {
  return [mass](const std::string& dir) {
    Edited(kData + "robot.urdf", dir + "/robot.urdf", "<mass value=\"511.726\"/>",
           "<mass value=\"" + mass + "\"/>");
    Copy(kData + "model_urdf.yaml", dir + "/model_urdf.yaml");
  };
}

std::vector<BadInput> Cases() {
  const std::vector<std::string> fit = {"fit", "--model", kData + "model.yaml", "--config",
                                        kData + "fit.yaml"};
  auto with = [](std::vector<std::string> a, std::vector<std::string> b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const auto nothing = [](const std::string&) {};
  return {
      // --- an output path that is an input
      // --------------------------------------------------------
      {"FitOutIsTheMeasuredFrfFile",
       [](const std::string& d) { Copy(kData + "frf_milling_inertance.h5", d + "/frf.h5"); },
       with(fit, {"--frf", "{dir}/frf.h5", "--out", "{dir}/frf.h5"}),
       "writing it would destroy it"},
      {"FitOutIsASymbolicLinkToTheFrfFile",
       [](const std::string& d) {
         Copy(kData + "frf_milling_inertance.h5", d + "/frf.h5");
         fs::create_symlink(d + "/frf.h5", d + "/result.h5");
       },
       with(fit, {"--frf", "{dir}/frf.h5", "--out", "{dir}/result.h5"}),
       "writing it would destroy it"},
      {"FitOutIsAHardLinkOfTheFrfFile",
       [](const std::string& d) {
         Copy(kData + "frf_milling_inertance.h5", d + "/frf.h5");
         fs::create_hard_link(d + "/frf.h5", d + "/result.h5");
       },
       with(fit, {"--frf", "{dir}/frf.h5", "--out", "{dir}/result.h5"}),
       "writing it would destroy it"},
      {"FitCheckpointIsTheConfig",
       [](const std::string& d) { Copy(kData + "fit.yaml", d + "/fit.yaml"); },
       {"fit", "--model", kData + "model.yaml", "--frf", kData + "frf_milling_inertance.h5",
        "--config", "{dir}/fit.yaml", "--checkpoint", "{dir}/fit.yaml"},
       "writing it would destroy it"},
      {"SimulateOutIsTheModel",
       [](const std::string& d) { Copy(kData + "model.yaml", d + "/model.yaml"); },
       {"simulate", "--model", "{dir}/model.yaml", "--posture", "milling", "--band", "1:2:1",
        "--out", "{dir}/./model.yaml"},
       "writing it would destroy it"},
      {"SimulateOutIsTheOverlaysUrdf",
       [](const std::string& d) {
         Copy(kData + "robot.urdf", d + "/robot.urdf");
         Copy(kData + "model_urdf.yaml", d + "/model_urdf.yaml");
       },
       {"simulate", "--model", "{dir}/model_urdf.yaml", "--posture", "milling", "--band", "1:2:1",
        "--out", "{dir}/robot.urdf"},
       "writing it would destroy it"},
      {"ReportOutIsTheResult",
       [](const std::string& d) { Copy(kData + "frf_milling_inertance.h5", d + "/result.h5"); },
       {"report", "{dir}/result.h5", "-o", "{dir}/result.h5"},
       "writing it would destroy it"},
      // --- URDF
      // -------------------------------------------------------------------------------------
      {"UrdfMassNan",
       UrdfMass("nan"),
       {"info", "--model", "{dir}/model_urdf.yaml"},
       "link[link1].inertial.mass"},
      {"UrdfMassText", UrdfMass("abc"), {"info", "--model", "{dir}/model_urdf.yaml"}, "got 'abc'"},
      {"UrdfMassInf", UrdfMass("inf"), {"info", "--model", "{dir}/model_urdf.yaml"}, "got 'inf'"},
      {"UrdfMassOverflows",
       UrdfMass("1e999"),
       {"info", "--model", "{dir}/model_urdf.yaml"},
       "got '1e999'"},
      {"UrdfMassEmpty", UrdfMass(""), {"info", "--model", "{dir}/model_urdf.yaml"}, "got ''"},
      {"UrdfInertiaText",
       [](const std::string& d) {
         Edited(kData + "robot.urdf", d + "/robot.urdf", "ixx=\"19.45\"", "ixx=\"x19\"");
         Copy(kData + "model_urdf.yaml", d + "/model_urdf.yaml");
       },
       {"info", "--model", "{dir}/model_urdf.yaml"},
       "link[link1].inertial.inertia.ixx"},
      {"UrdfNested200000Deep",
       [](const std::string& d) {
         std::string deep;
         for (int k = 0; k < 200000; ++k) deep += "<a>";
         Edited(kData + "robot.urdf", d + "/robot.urdf", "<link name=\"base_link\"/>",
                "<link name=\"base_link\"/>" + deep);
         Copy(kData + "model_urdf.yaml", d + "/model_urdf.yaml");
       },
       {"info", "--model", "{dir}/model_urdf.yaml"},
       "expected XML elements nested at most 256 deep"},
      {"UrdfPercentInAttribute",
       [](const std::string& d) {
         // liburdfdom would hand this origin (it does not parse) to printf as its format.
         Edited(kData + "robot.urdf", d + "/robot.urdf", "<origin xyz=\"0 0 0\" rpy=\"0 0 0\"/>",
                "<origin xyz=\"0 0 %s%n\" rpy=\"0 0 0\"/>");
         Copy(kData + "model_urdf.yaml", d + "/model_urdf.yaml");
       },
       {"info", "--model", "{dir}/model_urdf.yaml"},
       "robot.urdf: line 14: expected no '%' in attribute values (file names aside)"},
      {"UrdfGivenAsModel", nothing, {"info", "--model", kData + "robot.urdf"}, "write an overlay"},
      {"XacroGivenAsModel",
       [](const std::string& d) { Copy(kData + "robot.urdf", d + "/robot.urdf.xacro"); },
       {"info", "--model", "{dir}/robot.urdf.xacro"},
       "is a xacro file"},
      {"UrdfMimicJointMadeFlexible",
       [](const std::string& d) {
         Edited(kData + "robot.urdf", d + "/robot.urdf",
                "<joint name=\"joint3\" type=\"revolute\">",
                "<joint name=\"joint3\" type=\"revolute\"><mimic joint=\"joint2\" "
                "multiplier=\"-1\"/>");
         Copy(kData + "model_urdf.yaml", d + "/model_urdf.yaml");
       },
       {"info", "--model", "{dir}/model_urdf.yaml"},
       "expected a joint that moves on its own"},
      // --- documents that expand or nest without bound
      // ---------------------------------------------
      {"BillionLaughsModel",
       [](const std::string& d) {
         // Nine levels of nine aliases: 540 bytes that expand to 9^10 (3.5 billion) nodes.
         std::string bomb = "lol0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
         for (int k = 1; k < 10; ++k) {
           const std::string alias = "*a" + std::to_string(k - 1);
           bomb += "lol" + std::to_string(k) + ": &a" + std::to_string(k) + " [" + alias;
           for (int i = 1; i < 9; ++i) bomb += ", " + alias;
           bomb += "]\n";
         }
         Edited(kData + "model.yaml", d + "/model.yaml", "name: paper_3dof\n",
                "name: paper_3dof\n" + bomb);
       },
       {"simulate", "--model", "{dir}/model.yaml", "--posture", "milling", "--params",
        kData + "params_table1.yaml", "--band", "1:2:1", "--out", "{dir}/frf.h5"},
       "expected a document whose aliases expand to at most 1000000 nodes"},
      {"FlowNested100000Deep",
       [](const std::string& d) {
         Edited(kData + "fit.yaml", d + "/fit.yaml", "parameters:\n",
                "description: " + std::string(100000, '[') + std::string(100000, ']') +
                    "\nparameters:\n");
       },
       {"fit", "--model", kData + "model.yaml", "--frf", kData + "frf_milling_inertance.h5",
        "--config", "{dir}/fit.yaml"},
       "expected YAML nested at most 256 deep (aliases followed)"},
      {"AliasesNested300Deep",
       [](const std::string& d) {
         // Each anchor nests the previous one 100 deep: 300 levels from 800 bytes of text
         // (yaml-cpp's parser stops near 500 levels of text, not of aliases).
         std::string chain = "n0: &n0 x\n";
         for (int k = 1; k <= 3; ++k)
           chain += "n" + std::to_string(k) + ": &n" + std::to_string(k) + " " +
                    std::string(100, '[') + "*n" + std::to_string(k - 1) + std::string(100, ']') +
                    "\n";
         Edited(kData + "params_table1.yaml", d + "/p.yaml", "parameters:\n", chain + "parameters:\n");
       },
       {"modal", "--model", kData + "model.yaml", "--posture", "milling", "--params",
        "{dir}/p.yaml"},
       "this document nests deeper (not read)"},
      // --- ambiguity
      // ----------------------------------------------------------------------------------
      {"DuplicateKeyInModel",
       [](const std::string& d) {
         Edited(kData + "model.yaml", d + "/model.yaml", "name: paper_3dof\n",
                "name: paper_3dof\nname: other\n");
       },
       {"info", "--model", "{dir}/model.yaml"},
       "given twice"},
      {"DuplicateKeyInParameters",
       [](const std::string& d) {
         Edited(kData + "params_table1.yaml", d + "/p.yaml", "k_z1:", "k_z1: 1.0e6\n  k_z1:");
       },
       {"modal", "--model", kData + "model.yaml", "--posture", "milling", "--params",
        "{dir}/p.yaml"},
       "parameters.k_z1 (line"},
      {"DuplicateKeyInFitConfig",
       [](const std::string& d) {
         Edited(kData + "fit.yaml", d + "/fit.yaml", "  population_size: 32\n",
                "  population_size: 32\n  population_size: 8\n");
       },
       {"fit", "--model", kData + "model.yaml", "--frf", kData + "frf_milling_inertance.h5",
        "--config", "{dir}/fit.yaml"},
       "genetic_algorithm.population_size (line"},
      {"SeedOverflows", nothing,
       with(fit,
            {"--frf", kData + "frf_milling_inertance.h5", "--seed", "99999999999999999999999"}),
       "--seed: expected an integer from"},
      {"EmptyItemInFrfList", nothing, with(fit, {"--frf", kData + "frf_milling_inertance.h5,"}),
       "item 2 is empty"},
      {"EmptyItemInQ",
       nothing,
       {"modal", "--model", kData + "model.yaml", "--posture", "milling", "--q", "z2=60,"},
       "expected name=value"},
      {"DirectoryAsModel",
       nothing,
       {"info", "--model", "{dir}"},
       "expected a file, got a directory"},
      {"DirectoryAsFrf", nothing, with(fit, {"--frf", "{dir}"}),
       "expected a file, got a directory"},
      {"DirectoryAsConfig",
       nothing,
       {"fit", "--model", kData + "model.yaml", "--frf", kData + "frf_milling_inertance.h5",
        "--config", "{dir}"},
       "expected a file, got a directory"},
      {"DirectoryAsUff",
       [](const std::string& d) { fs::create_directory(d + "/in.uff"); },
       {"convert", "{dir}/in.uff", "{dir}/out.h5", "--posture", "milling"},
       "expected a file, got a directory"},
      {"StrayWordInInfo",
       nothing,
       {"info", "--model", kData + "model.yaml", "[--json]"},
       "unexpected argument"},
      {"StrayWordsInModal",
       nothing,
       {"modal", "--model", kData + "model.yaml", "--posture", "milling", "[--q", "z2=60]"},
       "'[--q': unexpected argument"},
      {"StrayWordInSimulate",
       nothing,
       {"simulate", "--model", kData + "model.yaml", "--posture", "milling", "--band", "1:2:1",
        "--out", "{dir}/o.h5", "o.h5"},
       "unexpected argument"},
      {"StrayWordInFit", nothing,
       with(fit, {"--frf", kData + "frf_milling_inertance.h5", "--seed", "1", "2"}),
       "'2': unexpected argument"},
      {"PresentHoldsTwo",
       [](const std::string& d) {
         Hdf5File f(d + "/frf.h5", Hdf5File::Mode::kCreate);
         f.SetAttribute("/", "frfit_file", "frf_set");
         f.SetAttribute("/", "format", "inertance");
         f.SetAttribute("/", "posture", "milling");
         const std::vector<double> hz = {1.0, 2.0}, h(2 * 18, 0.5);
         std::vector<std::int64_t> present(9, 1);
         present[4] = 2;
         f.WriteDoubles("/frequency_hz", {2}, hz.data());
         f.WriteDoubles("/H", {2, 3, 3, 2}, h.data());
         f.WriteInts("/present", {3, 3}, present.data());
         f.Save();
       },
       with(fit, {"--frf", "{dir}/frf.h5"}),
       "/present[1][1]: expected 0 (not measured) or 1 (measured), got 2"},
  };
}

std::string Substitute(std::string text, const std::string& dir) {
  for (size_t at; (at = text.find("{dir}")) != std::string::npos;) text.replace(at, 5, dir);
  return text;
}

class InputChecks : public test::TempDirTest, public ::testing::WithParamInterface<BadInput> {
 protected:
  // Far above what any case takes (well under a second), even on a busy machine.
  static constexpr int kSecondsPerCase = 60;
};

TEST_P(InputChecks, RefusedOnOneLineWithNothingWritten) {
  const BadInput& c = GetParam();
  const std::string dir = Path("case");
  fs::create_directories(dir);
  c.prepare(dir);
  if (HasFatalFailure()) return;
  std::map<std::string, std::string> before;
  for (const auto& e : fs::directory_iterator(dir))
    before[e.path().filename()] = test::ReadText(e.path());
  std::vector<std::string> args;
  for (const std::string& a : c.args) args.push_back(Substitute(a, dir));
  // Refused at once: a bad input is small, and one that expands without bound (nested YAML
  // aliases) must not be worked through. timeout(1) kills a command that hangs: status 137.
  const test::CliResult r = test::RunShell("timeout -s KILL " + std::to_string(kSecondsPerCase) +
                                               " " + test::CliCommand(args),
                                           Path("stdout.txt"), Path("stderr.txt"));
  EXPECT_NE(r.status, 137) << "not refused within " << kSecondsPerCase << " s";
  EXPECT_NE(r.status, 0);
  EXPECT_GT(r.status, 0) << "killed by a signal";
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(Substitute(c.expect, dir)), std::string::npos)
      << "expected '" << c.expect << "' in: " << r.err;
  std::map<std::string, std::string> after;
  for (const auto& e : fs::directory_iterator(dir))
    after[e.path().filename()] = test::ReadText(e.path());
  EXPECT_EQ(after, before) << "a file was written, changed or removed";
}

INSTANTIATE_TEST_SUITE_P(Cases, InputChecks, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return info.param.name; });

// docs/input-checks.md lists every case above for users: its message and its name.
TEST(InputChecksDocs, EveryCaseIsListed) {
  const std::string doc = test::ReadText(kRoot + "/docs/input-checks.md");
  ASSERT_FALSE(doc.empty());
  for (const BadInput& c : Cases()) {
    std::string message = c.expect;
    for (size_t at; (at = message.find('|')) != std::string::npos;) message.replace(at, 1, "\\|");
    EXPECT_NE(doc.find(message), std::string::npos)
        << c.name << ": '" << c.expect << "' is not in docs/input-checks.md";
  }
}

}  // namespace
}  // namespace frfit
