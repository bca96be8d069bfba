// frfit ema on a campaign (campaign/campaign_ema.h) against a modal model written here: poles and
// real mode shapes chosen at 15 nodes × 3 directions, FRFs Σ R/(iω − λ) + conj with R = φ_a φ_b /
// (2iω_d) (unit modal mass), as inertance, with impact-test noise (3 % of |H| plus 0.1 % of each
// FRF's peak). Every mode within 0.1 % in frequency and 5 % in damping, shapes MAC ≥ 0.99 overall
// and at every node, from roving-hammer and roving-sensor layouts, poly- and single-reference,
// with a close pair 0.3 % apart.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <nlohmann/json.hpp>
#include <numbers>
#include <random>
#include <map>
#include <array>
#include <algorithm>
#include <sstream>
#include <cstdlib>
#include <functional>

#include "frfit/campaign/campaign_ema.h"
#include "frfit/campaign/campaign_ema_hdf5.h"
#include "frfit/campaign/campaign_hdf5.h"
#include "frfit/common/error.h"
#include "frfit/files/hdf5_file.h"
#include "test_support.h"

namespace frfit::test {
namespace {

using campaign::Campaign;
using campaign::Dof;
using cd = std::complex<double>;

constexpr int kNodes = 15;
struct TrueMode {
  double f, zeta;
};
// 110 and 110.33 Hz: 0.3 % apart (under three lines), each inside the other's half-power band.
const std::vector<TrueMode> kModes = {{23.0, 0.02},   {41.0, 0.01},     {67.0, 0.015},
                                      {110.0, 0.003}, {110.33, 0.0035}, {141.0, 0.008}};
// Without the pair's second mode: one reference shows the pair as one pole (its residues over the
// FRFs cannot tell two directions apart in the diagram), which is what poly-reference is for.
const std::vector<TrueMode> kSeparatedModes = {{23.0, 0.02},   {41.0, 0.01}, {67.0, 0.015},
                                               {110.0, 0.003}, {141.0, 0.008}};

// φ[mode][node][axis]: per node a random direction of length 0.4…1 (no node near a node line,
// so that a per-node MAC means something at every node).
std::vector<std::vector<std::array<double, 3>>> Shapes() {
  std::mt19937 rng(45);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> length(0.4, 1.0);
  std::vector<std::vector<std::array<double, 3>>> phi(kModes.size());
  for (auto& mode : phi)
    for (int n = 0; n < kNodes; ++n) {
      std::array<double, 3> v{g(rng), g(rng), g(rng)};
      const double s = length(rng) / std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      for (double& x : v) x *= s;
      mode.push_back(v);
    }
  return phi;
}

// φ at a DOF as measured: a negative direction reads the opposite sign.
double At(const std::vector<std::array<double, 3>>& phi, const Dof& d) {
  const int axis = std::abs(d.direction) - 1;
  return (d.direction < 0 ? -1.0 : 1.0) * phi[d.node - 1][axis];
}

std::vector<Dof> AllDofs() {
  std::vector<Dof> dofs;
  for (long n = 1; n <= kNodes; ++n)
    for (int a = 1; a <= 3; ++a) dofs.push_back({n, n == 4 && a == 3 ? -3 : a});  // 4-Z as some files have
  return dofs;
}

Campaign Synthesize(const std::vector<std::pair<Dof, Dof>>& pairs, unsigned seed,
                    const std::vector<TrueMode>& modes = kModes) {
  const auto phi = Shapes();
  Campaign c;
  for (int k = 1; k <= 1280; ++k) c.frequency_hz.push_back(0.125 * k);  // to 160 Hz
  std::mt19937 rng(seed);
  std::normal_distribution<double> g;
  for (const auto& [response, reference] : pairs) {
    campaign::Record r;
    r.response = response;
    r.reference = reference;
    r.format = FrfFormat::kInertance;
    double peak = 0.0;
    for (double f : c.frequency_hz) {
      const cd s(0.0, 2.0 * std::numbers::pi * f);
      cd h = 0.0;
      for (size_t p = 0; p < modes.size(); ++p) {
        const double wn = 2.0 * std::numbers::pi * modes[p].f / std::sqrt(1 - modes[p].zeta * modes[p].zeta);
        const cd lambda(-modes[p].zeta * wn, 2.0 * std::numbers::pi * modes[p].f);
        const cd R = At(phi[p], response) * At(phi[p], reference) / (2.0 * cd(0.0, lambda.imag()));
        h += R / (s - lambda) + std::conj(R) / (s - std::conj(lambda));
      }
      r.H.push_back(s * s * h);
      peak = std::max(peak, std::abs(r.H.back()));
    }
    for (cd& h : r.H)
      h += (0.03 * std::abs(h) + 0.001 * peak) * cd(g(rng), g(rng)) / std::sqrt(2.0);
    c.records.push_back(std::move(r));
  }
  return c;
}

// Three accelerometers fixed, the hammer at every DOF.
std::vector<std::pair<Dof, Dof>> RovingHammer() {
  std::vector<std::pair<Dof, Dof>> pairs;
  for (const Dof& sensor : {Dof{2, 1}, Dof{7, 2}, Dof{11, 3}})
    for (const Dof& hammer : AllDofs()) pairs.push_back({sensor, hammer});
  return pairs;
}

// The hammer at fixed DOFs, the sensor at every DOF.
std::vector<std::pair<Dof, Dof>> RovingSensor(const std::vector<Dof>& hammers) {
  std::vector<std::pair<Dof, Dof>> pairs;
  for (const Dof& hammer : hammers)
    for (const Dof& sensor : AllDofs()) pairs.push_back({sensor, hammer});
  return pairs;
}

double Mac(const std::vector<cd>& a, const std::vector<double>& b) {
  cd dot = 0.0;
  double na = 0.0, nb = 0.0;
  for (size_t i = 0; i < a.size(); ++i) dot += a[i] * b[i], na += std::norm(a[i]), nb += b[i] * b[i];
  return std::norm(dot) / (na * nb);
}

// Every true mode found once within the tolerances, its shape MAC ≥ 0.99 over all DOFs and at
// every node (the node's three directions), apart from `skip_node`.
void ExpectModes(const campaign::EmaResult& r, const std::vector<TrueMode>& modes = kModes,
                 long skip_node = 0) {
  const auto phi = Shapes();
  std::string found_modes;
  for (const auto& m : r.modes)
    found_modes += " " + std::to_string(m.frequency_hz) + " Hz/" + std::to_string(m.damping_ratio) +
                   " (" + std::to_string(m.stable_poles) + ")";
  for (const auto& d : r.dropped)
    found_modes += "; dropped " + std::to_string(d.frequency_hz) + " Hz " + ToString(d.reason);
  ASSERT_EQ(r.modes.size(), modes.size()) << campaign::DescribeMethod(r) << "\n" << found_modes;
  for (size_t p = 0; p < modes.size(); ++p) {
    const campaign::EmaMode& m = r.modes[p];
    EXPECT_NEAR(m.frequency_hz, modes[p].f, 1e-3 * modes[p].f) << "mode " << p;
    EXPECT_NEAR(m.damping_ratio, modes[p].zeta, 0.05 * modes[p].zeta) << "mode " << p;
    EXPECT_TRUE(std::isfinite(m.frequency_sigma_hz) && m.frequency_sigma_hz > 0.0);
    EXPECT_TRUE(std::isfinite(m.damping_sigma) && m.damping_sigma > 0.0);
    ASSERT_EQ(m.shape.size(), r.dofs.size());
    std::vector<cd> found;
    std::vector<double> truth;
    for (size_t d = 0; d < r.dofs.size(); ++d)
      if (r.dofs[d].node != skip_node) found.push_back(m.shape[d]), truth.push_back(At(phi[p], r.dofs[d]));
    EXPECT_GE(Mac(found, truth), 0.99) << "mode " << p;
    for (long node = 1; node <= kNodes; ++node) {
      if (node == skip_node) continue;
      std::vector<cd> a;
      std::vector<double> b;
      for (size_t d = 0; d < r.dofs.size(); ++d)
        if (r.dofs[d].node == node) a.push_back(m.shape[d]), b.push_back(At(phi[p], r.dofs[d]));
      ASSERT_EQ(a.size(), 3u);
      EXPECT_GE(Mac(a, b), 0.99) << "mode " << p << " node " << node;
    }
    EXPECT_GT(m.mpc, 0.95) << "a real mode";
  }
}

TEST(CampaignEma, RovingHammerPolyReferenceByReciprocity) {
  const Campaign c = Synthesize(RovingHammer(), 1);
  const campaign::EmaResult r = campaign::EstimateModes(c, {}, "roving hammer");
  EXPECT_EQ(r.method, "plscf");
  EXPECT_TRUE(r.reciprocity);
  EXPECT_EQ(r.references.size(), 3u);
  EXPECT_EQ(r.dofs.size(), 45u);
  ExpectModes(r);
  // The auto-MAC: ones on the diagonal, symmetric.
  const size_t M = r.modes.size();
  ASSERT_EQ(r.auto_mac.size(), M * M);
  for (size_t i = 0; i < M; ++i) EXPECT_NEAR(r.auto_mac[i * M + i], 1.0, 1e-12);
}

TEST(CampaignEma, RovingSensorPolyReference) {
  const Campaign c = Synthesize(RovingSensor({Dof{3, 1}, Dof{9, 3}}), 2);
  const campaign::EmaResult r = campaign::EstimateModes(c, {}, "roving sensor");
  EXPECT_EQ(r.method, "plscf");
  EXPECT_FALSE(r.reciprocity);
  EXPECT_EQ(r.references.size(), 2u);
  ExpectModes(r);
}

TEST(CampaignEma, SingleReferenceRovingSensor) {
  const Campaign c = Synthesize(RovingSensor({Dof{3, 1}}), 3, kSeparatedModes);
  campaign::EmaOptions options;
  options.ema.max_order = 40;
  const campaign::EmaResult r = campaign::EstimateModes(c, options, "one hammer point");
  EXPECT_EQ(r.method, "lscf");
  ExpectModes(r, kSeparatedModes);
}

TEST(CampaignEma, SingleReferenceOnRovingHammer) {
  const Campaign c = Synthesize(RovingHammer(), 4, kSeparatedModes);
  campaign::EmaOptions options;
  options.single_reference = true;
  options.ema.max_order = 40;
  const campaign::EmaResult r = campaign::EstimateModes(c, options, "roving hammer");
  EXPECT_EQ(r.method, "lscf");
  EXPECT_EQ(r.pole_records, 135);
  ExpectModes(r, kSeparatedModes);
}

// One FRF ten times too large (a wrong sensitivity, an overload) and as noisy as its signal, and
// one dead FRF (noise alone): the others' modes stand.
TEST(CampaignEma, OverloadedAndDeadFrfsDoNotVeto) {
  Campaign c = Synthesize(RovingHammer(), 5);
  std::mt19937 rng(7);
  std::normal_distribution<double> g;
  for (campaign::Record& rec : c.records) {
    if (rec.reference == Dof{6, 2} && rec.response == Dof{2, 1})
      for (cd& h : rec.H) h = 10.0 * h + 5.0 * std::abs(h) * cd(g(rng), g(rng));
    if (rec.reference == Dof{6, 1} && rec.response == Dof{7, 2})
      for (cd& h : rec.H) h = 1e-3 * cd(g(rng), g(rng));
  }
  const campaign::EmaResult r = campaign::EstimateModes(c, {}, "with bad FRFs");
  ExpectModes(r, kModes, 6);
}

}  // namespace
}  // namespace frfit::test

namespace frfit::test {
namespace {

bool HavePyuff() { return std::system("python3 -c 'import pyuff, numpy' >/dev/null 2>&1") == 0; }

class CampaignEmaCli : public TempDirTest {
 protected:
  // A roving-hammer campaign with node coordinates, stored as a campaign .h5.
  std::string WriteCampaign() {
    Campaign c = Synthesize(RovingHammer(), 11);
    for (long n = 1; n <= kNodes; ++n) c.coordinates[n] = {0.1 * n, 0.03 * (n % 4), 0.02 * n * n};
    c.trace_lines.push_back({1, "chord", {1, 2, 3, 4, 5, 6, 7, 0, 8, 9, 10, 11, 12, 13, 14, 15}});
    const std::string path = Path("campaign.h5");
    campaign::WriteHdf5(path, c);
    return path;
  }
};

// --json: every mode's frequency, damping, their σ and the shape per node and direction, as the
// result file holds them; the shape is the modal model's (checked against the model here).
TEST_F(CampaignEmaCli, JsonAndResultFile) {
  const std::string in = WriteCampaign();
  const CliResult run = Run({"ema", in, "--json", "--out", Path("ema.h5")});
  ASSERT_EQ(run.status, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["method"], "plscf");
  EXPECT_TRUE(j["reciprocity"].get<bool>());
  ASSERT_EQ(j["modes"].size(), kModes.size());
  const auto phi = Shapes();
  const campaign::EmaResult file = campaign::ReadEmaResult(Path("ema.h5"));
  ASSERT_EQ(file.modes.size(), kModes.size());
  for (size_t p = 0; p < kModes.size(); ++p) {
    const auto& m = j["modes"][p];
    EXPECT_NEAR(m["frequency_hz"].get<double>(), kModes[p].f, 1e-3 * kModes[p].f);
    EXPECT_NEAR(m["damping_ratio"].get<double>(), kModes[p].zeta, 0.05 * kModes[p].zeta);
    EXPECT_GT(m["frequency_sigma_hz"].get<double>(), 0.0);
    EXPECT_GT(m["damping_sigma"].get<double>(), 0.0);
    EXPECT_EQ(m["frequency_hz"].get<double>(), file.modes[p].frequency_hz);
    EXPECT_EQ(m["damping_sigma"].get<double>(), file.modes[p].damping_sigma);
    ASSERT_EQ(m["shape"].size(), 45u);
    std::vector<cd> found;
    std::vector<double> truth;
    for (const auto& e : m["shape"]) {
      const Dof d{e["node"].get<long>(), 0};
      const std::string dir = e["direction"];
      const int axis = dir[1] - 'X' + 1;
      const Dof dof{d.node, dir[0] == '-' ? -axis : axis};
      EXPECT_EQ(e["dof"], campaign::ToString(dof));
      found.emplace_back(e["value"][0].get<double>(), e["value"][1].get<double>());
      truth.push_back(At(phi[p], dof));
    }
    EXPECT_GE(Mac(found, truth), 0.99);
  }
  EXPECT_EQ(j["auto_mac"].size(), kModes.size());
}

// frfit export: the shapes as CSV, and as UFF 55 read back by pyuff (an independent reader).
TEST_F(CampaignEmaCli, ExportCsvAndUff55) {
  if (!HavePyuff()) GTEST_SKIP() << "python3 with pyuff not installed (pip install pyuff)";
  const std::string in = WriteCampaign();
  ASSERT_EQ(Run({"ema", in, "--out", Path("ema.h5")}).status, 0);
  const CliResult run = Run({"export", Path("ema.h5"), "--csv", Path("csv"), "--uff", Path("shapes.uff"), "--json"});
  ASSERT_EQ(run.status, 0) << run.err;
  const campaign::EmaResult r = campaign::ReadEmaResult(Path("ema.h5"));
  const std::string shapes = ReadText(Path("csv/campaign_shapes.csv"));
  EXPECT_EQ(std::count(shapes.begin(), shapes.end(), '\n'), static_cast<long>(1 + r.modes.size() * 45));
  EXPECT_NE(shapes.find("4,-Z,4-Z"), std::string::npos);
  const std::string tool = std::string(FRFIT_SOURCE_DIR) + "/tools/read_uff55.py";
  ASSERT_EQ(std::system(("python3 " + Quote(tool) + " " + Quote(Path("read.json")) + " " +
                         Quote(Path("shapes.uff"))).c_str()), 0);
  const auto read = nlohmann::json::parse(ReadText(Path("read.json")));
  ASSERT_EQ(read.size(), r.modes.size());
  for (size_t p = 0; p < r.modes.size(); ++p) {
    const auto& s = read[p];
    EXPECT_EQ(s["analysis_type"], 3);
    EXPECT_EQ(s["data_type"], 5);
    EXPECT_EQ(s["mode_n"], static_cast<int>(p + 1));
    EXPECT_NEAR(s["eig"][1].get<double>() / (2 * std::numbers::pi), r.modes[p].frequency_hz, 1e-4 * r.modes[p].frequency_hz);
    ASSERT_EQ(s["node_nums"].size(), static_cast<size_t>(kNodes));
    for (size_t d = 0; d < r.dofs.size(); ++d) {
      const Dof& dof = r.dofs[d];
      const auto& v = s["r" + std::to_string(std::abs(dof.direction))][dof.node - 1];
      const cd expected = (dof.direction < 0 ? -1.0 : 1.0) * r.modes[p].shape[d];
      EXPECT_NEAR(v[0].get<double>(), expected.real(), 1e-5) << campaign::ToString(dof);
      EXPECT_NEAR(v[1].get<double>(), expected.imag(), 1e-5) << campaign::ToString(dof);
    }
  }
}

// Bad input: a non-finite FRF value is refused naming its record, and the campaign options are
// refused for an FRF set, each on one line.
TEST_F(CampaignEmaCli, BadInputIsRefusedNamingTheRecord) {
  Campaign c = Synthesize(RovingSensor({Dof{3, 1}}), 12, kSeparatedModes);
  c.records[7].where = "dataset 58 record 8";
  c.records[7].H[100] = {NAN, 0.0};
  const std::string message = ErrorOf([&] { campaign::EstimateModes(c, {}, "bad.uff"); });
  EXPECT_NE(message.find("bad.uff"), std::string::npos) << message;
  EXPECT_NE(message.find("dataset 58 record 8"), std::string::npos) << message;
  EXPECT_NE(message.find("finite"), std::string::npos) << message;
  const CliResult run = Run({"ema", std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/frf_milling_inertance.h5",
                             "--single-reference"});
  EXPECT_NE(run.status, 0);
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_NE(run.err.find("--single-reference"), std::string::npos) << run.err;
}

// A campaign as its UFF files (FRFs, then the geometry in a file of its own): one analysis.
TEST_F(CampaignEmaCli, SeveralUffFilesAreOneCampaign) {
  if (!HavePyuff()) GTEST_SKIP() << "python3 with pyuff not installed (pip install pyuff)";
  const std::string tool = std::string(FRFIT_SOURCE_DIR) + "/tools/make_campaign_uff.py";
  ASSERT_EQ(std::system(("python3 " + Quote(tool) + " " + Quote(Path("uff"))).c_str()), 0);
  const CliResult run = Run({"ema", Path("uff/campaign.uff"), Path("uff/campaign_b.uff"),
                             Path("uff/geometry.uff"), "--averages", "20", "--json"});
  ASSERT_EQ(run.status, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["records"], 60);
  EXPECT_EQ(j["method"], "plscf");
  ASSERT_EQ(j["modes"].size(), 3u);  // the three modes the tool writes: 35, 92, 151 Hz
  const double f[3] = {35.0, 92.0, 151.0}, zeta[3] = {0.02, 0.015, 0.01};
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(j["modes"][k]["frequency_hz"].get<double>(), f[k], 1e-3 * f[k]);
    EXPECT_NEAR(j["modes"][k]["damping_ratio"].get<double>(), zeta[k], 0.05 * zeta[k]);
  }
}

// frfit report on the result: the diagram, the auto-MAC, and each mode drawn on the geometry in
// three views, sized, every node in every view, the deformed wireframe off the undeformed one by
// the scale the page states (0.12 × extent over the largest |Re φ| per node, computed here).
TEST_F(CampaignEmaCli, ReportDrawsShapesOnTheGeometry) {
  const std::string in = WriteCampaign();
  ASSERT_EQ(Run({"ema", in, "--out", Path("ema.h5")}).status, 0);
  const CliResult run = Run({"report", Path("ema.h5"), "--out", Path("page.html")});
  ASSERT_EQ(run.status, 0) << run.err;
  const std::string page = ReadText(Path("page.html"));
  const campaign::EmaResult r = campaign::ReadEmaResult(Path("ema.h5"));
  EXPECT_NE(page.find("id=\"stabilisation-diagram\""), std::string::npos);
  const size_t mac = page.find("class=\"auto-mac\"");
  ASSERT_NE(mac, std::string::npos);
  size_t cells = 0;
  for (size_t at = page.find("<rect", mac); at < page.find("</svg>", mac); at = page.find("<rect", at + 1))
    ++cells;
  EXPECT_EQ(cells, r.modes.size() * r.modes.size());
  for (size_t k = 0; k < r.modes.size(); ++k) {
    const size_t at = page.find("id=\"mode-shape-" + std::to_string(k + 1) + "\"");
    ASSERT_NE(at, std::string::npos) << "mode " << k + 1;
    const size_t open = page.rfind("<svg", at), close = page.find("</svg>", at);
    const std::string svg = page.substr(open, close - open);
    const std::string tag = svg.substr(0, svg.find('>'));
    EXPECT_GT(std::stod(Attribute(tag, "width")), 600.0);
    EXPECT_GT(std::stod(Attribute(tag, "height")), 200.0);
    size_t circles = 0;
    for (size_t c = svg.find("<circle"); c != std::string::npos; c = svg.find("<circle", c + 1)) ++circles;
    EXPECT_EQ(circles, 3u * kNodes);
    // Two pieces of trace line (the pen lifted at 0), undeformed and deformed, in each view.
    size_t lines = 0;
    for (size_t c = svg.find("class=\"deformed\""); c != std::string::npos; c = svg.find("class=\"deformed\"", c + 1)) ++lines;
    EXPECT_EQ(lines, 6u);
    // The deformed lines are animated through one cycle: extreme, rest (the undeformed line
    // drawn at the same place in the view), the opposite extreme (rest mirrored), rest, extreme.
    std::vector<std::string> rest_lines;
    for (size_t c = svg.find("class=\"undeformed\""); c != std::string::npos;
         c = svg.find("class=\"undeformed\"", c + 1))
      rest_lines.push_back(Attribute(svg.substr(c, svg.find('>', c) - c), "points"));
    auto numbers = [](const std::string& text) {
      std::vector<double> out;
      std::string t = text;
      std::replace(t.begin(), t.end(), ',', ' ');
      std::istringstream in(t);
      for (double v; in >> v;) out.push_back(v);
      return out;
    };
    size_t animated = 0;
    for (size_t c = svg.find("class=\"deformed\""); c != std::string::npos;
         c = svg.find("class=\"deformed\"", c + 1), ++animated) {
      const std::string line = svg.substr(c, svg.find("</polyline>", c) - c);
      const size_t anim = line.find("<animate attributeName=\"points\"");
      ASSERT_NE(anim, std::string::npos) << "deformed line " << animated;
      std::vector<std::string> keys;
      std::istringstream values(Attribute(line.substr(anim), "values"));
      for (std::string key; std::getline(values, key, ';');) keys.push_back(key);
      ASSERT_EQ(keys.size(), 5u);
      ASSERT_LT(animated, rest_lines.size());
      EXPECT_EQ(keys[0], Attribute(line.substr(0, line.find('>')), "points"));
      EXPECT_EQ(keys[1], rest_lines[animated]);
      EXPECT_EQ(keys[3], keys[1]);
      EXPECT_EQ(keys[4], keys[0]);
      const std::vector<double> a = numbers(keys[0]), o = numbers(keys[1]), m = numbers(keys[2]);
      ASSERT_EQ(a.size(), o.size());
      ASSERT_EQ(m.size(), o.size());
      for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i] + m[i], 2 * o[i], 0.21) << "coordinate " << i;
    }
    double largest = 0.0;
    std::map<long, std::array<double, 3>> motion;
    for (size_t d = 0; d < r.dofs.size(); ++d)
      motion[r.dofs[d].node][std::abs(r.dofs[d].direction) - 1] =
          (r.dofs[d].direction < 0 ? -1.0 : 1.0) * r.modes[k].shape[d].real();
    for (const auto& [node, v] : motion) largest = std::max(largest, std::hypot(v[0], v[1], v[2]));
    const double extent = 0.02 * kNodes * kNodes - 0.02;  // z spans most
    EXPECT_NEAR(std::stod(Attribute(tag, "data-scale")), 0.12 * extent / largest, 1e-9 * extent / largest);
  }
}

// The campaign's options are checked as the single-set EMA's, before the campaign is looked at
// (an empty one would be refused for its records otherwise).
TEST(CampaignEma, OptionsIsValidNamesTheBadFieldFirst) {
  std::string error;
  EXPECT_TRUE(campaign::EmaOptions{}.IsValid(&error)) << error;
  struct Case {
    std::function<void(campaign::EmaOptions&)> mutate;
    const char* field;
  };
  const Case cases[] = {
      {[](campaign::EmaOptions& o) { o.ema.band_min_hz = 10, o.ema.band_max_hz = 5; }, "band"},
      {[](campaign::EmaOptions& o) { o.ema.max_order = -1; }, "max_order"},
      {[](campaign::EmaOptions& o) { o.ema.criteria.min_mac = 1.5; }, "criteria.min_mac"},
      {[](campaign::EmaOptions& o) { o.ema.criteria.min_stable_poles = -1; },
       "criteria.min_stable_poles"},
  };
  for (const Case& c : cases) {
    campaign::EmaOptions o;
    o.single_reference = true;
    c.mutate(o);
    EXPECT_FALSE(o.IsValid(&error)) << c.field;
    EXPECT_EQ(error.rfind(std::string(c.field) + ": expected", 0), 0u) << error;
    const std::string message = ErrorOf([&] { campaign::EstimateModes(Campaign{}, o, "c.uff"); });
    EXPECT_EQ(message.rfind(std::string("c.uff: ") + c.field + ": expected", 0), 0u) << message;
  }
}

}  // namespace
}  // namespace frfit::test
