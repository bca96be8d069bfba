// Malformed and ambiguous inputs, each refused by the command line with one "error:" line naming
// the file and the field, a non-zero exit, nothing on stdout and no output written; every input
// file stays byte-identical (an output path that is an input must not destroy it). The same cases
// are listed for users in docs/input-checks.md, which the last test keeps in step.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "frfit/files/hdf5_file.h"
#include "frfit/io/time_hdf5.h"
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

// The bundled impact records of hammer axis `axis` ("x", "y", "z"), edited by `edit` and written
// to `to` with frfit's own writer (docs/file-formats.md, "Time recordings").
void EditedHits(const std::string& axis, const std::string& to,
                const std::function<void(std::vector<TimeRecording>*)>& edit) {
  std::vector<TimeRecording> hits = ReadTimeRecordings(kData + "hits_" + axis + ".h5");
  edit(&hits);
  WriteTimeRecordings(to, hits);
}

// A time recording of one hit written dataset by dataset, with channel quantities the library's
// types cannot hold (an unknown word, two forces).
void RawTimeFile(const std::string& path, const std::vector<std::string>& quantities) {
  Hdf5File f(path, Hdf5File::Mode::kCreate);
  f.SetAttribute("/", "frfit_file", "time_recording");
  f.SetAttribute("/", "recording", "hits");
  const double rate = 1024.0;
  f.WriteDoubles("/sample_rate_hz", {1}, &rate);
  f.CreateGroup("/channels");
  std::vector<std::string> names;
  std::vector<std::int64_t> axes;
  for (size_t c = 0; c < quantities.size(); ++c) {
    names.push_back("ch" + std::to_string(c));
    axes.push_back(c == 0 ? 2 : static_cast<std::int64_t>(c - 1));
  }
  f.WriteStrings("/channels/name", names);
  f.WriteStrings("/channels/quantity", quantities);
  f.WriteInts("/channels/axis", {quantities.size()}, axes.data());
  std::vector<double> samples(quantities.size() * 64);
  for (size_t k = 0; k < samples.size(); ++k) samples[k] = std::sin(0.1 * static_cast<double>(k));
  f.WriteDoubles("/samples", {1, quantities.size(), 64}, samples.data());
  f.Save();
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
      {"BeamCoordinatesAbove600",
       [](const std::string& d) {
         Edited(kRoot + "/datasets/flexible_arm/model.yaml", d + "/model.yaml", "elements: 20",
                "elements: 200");
       },
       {"info", "--model", "{dir}/model.yaml"},
       "bodies[0].beam (line 21): expected at most 600 elastic coordinates in the model, beams "
       "included; this beam brings it to 1201"},
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
      // --- frfit frf: impact-test time recordings
      // ---------------------------------------------------------
      {"FrfOutIsARecording",
       [](const std::string& d) { Copy(kData + "hits_z.h5", d + "/hits_z.h5"); },
       {"frf", "{dir}/hits_z.h5", "--out", "{dir}/hits_z.h5"},
       "writing it would destroy it"},
      {"FrfContinuousWithoutRecordSeconds",
       [](const std::string& d) {
         EditedHits("z", d + "/rec.h5", [](std::vector<TimeRecording>* h) {
           h->resize(1);
           h->front().hit = -1;
         });
       },
       {"frf", "{dir}/rec.h5", "--out", "{dir}/frf.h5"},
       "/samples: expected --record-seconds S to split this continuous recording into hits"},
      {"FrfEveryHitRejected",
       [](const std::string& d) {
         EditedHits("x", d + "/hits_x.h5",
                    [](std::vector<TimeRecording>* h) { *h = {(*h)[2]}; });  // the double hit
       },
       {"frf", "{dir}/hits_x.h5", "--out", "{dir}/frf.h5"},
       "hits: expected at least one hit that passes the checks, got none (first reason: double "
       "hit: a second force peak of"},
      {"FrfBandWithoutLines",
       nothing,
       {"frf", kData + "hits_z.h5", "--band", "40.05:40.1", "--out", "{dir}/frf.h5"},
       "band: expected at least one line k·0.16 Hz inside the band, got none"},
      {"FrfHitsOfDifferentLengths",
       [](const std::string& d) {
         EditedHits("y", d + "/hits_y.h5", [](std::vector<TimeRecording>* h) {
           for (TimeRecording& r : *h)
             for (TimeChannel& c : r.channels) c.samples.resize(600);
         });
       },
       {"frf", kData + "hits_z.h5", "{dir}/hits_y.h5", "--out", "{dir}/frf.h5"},
       "samples: expected records of 640 samples at 102.4 Hz like the first hit, got 600 at "
       "102.4 Hz"},
      {"FrfMixedQuantitiesWithoutFormat",
       [](const std::string& d) {
         EditedHits("y", d + "/hits_y.h5", [](std::vector<TimeRecording>* h) {
           for (TimeRecording& r : *h)
             for (TimeChannel& c : r.channels)
               if (c.quantity == ChannelQuantity::kAcceleration) c.quantity = ChannelQuantity::kVelocity;
         });
       },
       {"frf", kData + "hits_z.h5", "{dir}/hits_y.h5", "--out", "{dir}/frf.h5"},
       "format: expected responses of one quantity when no format is asked for, got mobility "
       "and inertance FRFs"},
      {"FrfUnknownQuantity",
       [](const std::string& d) {
         RawTimeFile(d + "/t.h5", {"force", "acceleration", "pressure", "acceleration"});
       },
       {"frf", "{dir}/t.h5", "--out", "{dir}/frf.h5"},
       "/channels/quantity[2]: expected force, acceleration, velocity or displacement, got "
       "\"pressure\""},
      {"FrfTwoForceChannels",
       [](const std::string& d) {
         RawTimeFile(d + "/t.h5", {"force", "force", "acceleration", "acceleration"});
       },
       {"frf", "{dir}/t.h5", "--out", "{dir}/frf.h5"},
       "channels: expected exactly one force channel, got 2"},
      {"FrfEstimatorH3",
       nothing,
       {"frf", kData + "hits_z.h5", "--estimator", "h3", "--out", "{dir}/frf.h5"},
       "frfit frf: --estimator: expected h1, h2 or hv, got 'h3'"},
      {"FrfExponentialWindowEndOne",
       nothing,
       {"frf", kData + "hits_z.h5", "--exponential-window", "end=1", "--out", "{dir}/frf.h5"},
       "frfit frf: --exponential-window: expected none, tau=SECONDS or end=R (0 < R < 1), got "
       "'end=1'"},
      {"FrfDoubleHitFractionOne",
       nothing,
       {"frf", kData + "hits_z.h5", "--double-hit-fraction", "1", "--out", "{dir}/frf.h5"},
       "frfit frf: --double-hit-fraction: expected a fraction in (0, 1)"},
      {"FrfOutInAMissingDirectory",
       nothing,
       {"frf", kData + "hits_z.h5", "--out", "{dir}/no/frf.h5"},
       "frfit frf: --out: expected a path in an existing directory"},
      {"FrfReportNotHtml",
       nothing,
       {"frf", kData + "hits_z.h5", "--out", "{dir}/frf.h5", "--report", "{dir}/hits.pdf"},
       "frfit frf: --report: expected a .html path (the impact-test page is one HTML page; for a "
       "PDF, print it from a browser)"},
      {"FrfReportIsTheOut",
       nothing,
       {"frf", kData + "hits_z.h5", "--out", "{dir}/frf.html", "--report", "{dir}/frf.html"},
       "frfit frf: --report: expected a path other than"},
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
