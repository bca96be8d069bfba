// datasets/flexible_arm fitted by `frfit fit` to FRFs frfit did not make: the tip inertance of the
// continuous beam (beam_closed_forms.h for bending, the clamped rod with its tip mass written here
// for the axial entry), on 1–400 Hz every 1 Hz (tools/flexible_arm_closed_form.py writes the same
// data every 0.25 Hz; benchmarks/RESULTS.md, "The flexible arm on its closed form"). The model's
// 20 elements and the reduction are then the only differences between model and data: noise-free,
// k_z1 and E_arm within 0.01 %; under impact-test noise (3 % + 0.1 % of each entry's peak), within
// 0.3 % and 3σ of the fit's own σ, the noise model holding (χ² within its limits), model check
// `consistent`.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "beam_closed_forms.h"
#include "frfit/io/frf_hdf5.h"
#include "test_support.h"

namespace frfit {
namespace {

using Cplx = std::complex<double>;
const std::string kArm = std::string(FRFIT_SOURCE_DIR) + "/datasets/flexible_arm/";

// The numbers and params_truth.yaml, not read from the model file.
constexpr double kL = 1.0, kRho = 7850, kY = 0.030, kZ = 0.050, kTipMass = 2.0;
constexpr double kArea = kY * kZ, kIz = kZ * kY * kY * kY / 12.0, kIy = kY * kZ * kZ * kZ / 12.0;
constexpr double kK = 2.5e4, kEtaZ1 = 0.03, kE = 2.1e11, kEtaArm = 0.002;

// u(L)/F of a rod clamped at 0 with a mass m at L: EA u'(L) = F + ω² m u(L), u = a sin(γx).
Cplx RodReceptance(Cplx e, double omega) {
  const Cplx g = omega * std::sqrt(kRho / e);
  return std::sin(g * kL) / (e * kArea * g * std::cos(g * kL) - omega * omega * kTipMass * std::sin(g * kL));
}

// The tip inertance, diagonal entries only; with `noise`, H(1 + 0.03 e₁) + 0.001·peak·e₂.
FrfSet ClosedFormSet(bool noise, unsigned seed) {
  FrfSet set;
  set.posture = "straight";
  set.format = FrfFormat::kInertance;
  for (double f = 1.0; f <= 400.0; f += 1.0) set.frequency_hz.push_back(f);
  const int lines = static_cast<int>(set.frequency_hz.size());
  set.H.assign(lines * 9, 0.0);
  set.present.fill(false);
  const Cplx e(kE, kE * kEtaArm), k(kK, kK * kEtaZ1);
  for (int l = 0; l < lines; ++l) {
    const double w = 2 * M_PI * set.frequency_hz[l];
    set.at(l, 0, 0) = -w * w * RodReceptance(e, w);
    set.at(l, 1, 1) = -w * w * test::SpringTipMassReceptance(e * kIz, kRho * kArea, kL, k, false, kTipMass, w);
    set.at(l, 2, 2) = -w * w * test::SpringTipMassReceptance(e * kIy, kRho * kArea, kL, 0.0, true, kTipMass, w);
  }
  for (int i = 0; i < 3; ++i) set.present[i * 4] = true;
  if (!noise) return set;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, std::sqrt(0.5));
  auto cn = [&] { return Cplx(normal(rng), normal(rng)); };
  set.noise_variance.assign(lines * 9, 0.0);
  for (int i = 0; i < 3; ++i) {
    double peak = 0.0;
    for (int l = 0; l < lines; ++l) peak = std::max(peak, std::abs(set.at(l, i, i)));
    for (int l = 0; l < lines; ++l) {
      Cplx& h = set.at(l, i, i);
      set.noise_variance[l * 9 + i * 4] = std::norm(0.03 * h) + std::pow(0.001 * peak, 2);
      h = h * (1.0 + 0.03 * cn()) + 0.001 * peak * cn();
    }
  }
  return set;
}

class FlexibleArmClosedForm : public test::TempDirTest {
 protected:
  nlohmann::json Fit(const FrfSet& set) {
    WriteFrfSet(Path("arm.h5"), set);
    const test::CliResult r = Run({"fit", "--model", kArm + "model.yaml", "--frf", Path("arm.h5"),
                                   "--config", kArm + "fit.yaml", "--backend", "cpu", "--seed", "1",
                                   "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out);
  }
  static double Error(const nlohmann::json& j, const char* name, double truth) {
    return j["parameters"][name].get<double>() / truth - 1.0;
  }
};

// The 20-element model's discretisation (its frequencies within 7.5e-6 of the beam's) is the
// floor: measured k_z1 −4.7e-5, E_arm −7.1e-6.
TEST_F(FlexibleArmClosedForm, NoiseFreeRecoversTheSpringAndModulus) {
  const nlohmann::json j = Fit(ClosedFormSet(false, 0));
  std::printf("closed form, noise-free: k_z1 %+.2e, E_arm %+.2e\n", Error(j, "k_z1", kK),
              Error(j, "E_arm", kE));
  EXPECT_LT(std::abs(Error(j, "k_z1", kK)), 1e-4);
  EXPECT_LT(std::abs(Error(j, "E_arm", kE)), 1e-4);
}

TEST_F(FlexibleArmClosedForm, ImpactNoiseWithinItsSigma) {
  const nlohmann::json j = Fit(ClosedFormSet(true, 4));
  EXPECT_EQ(j["model_check"]["verdict"], "consistent");
  EXPECT_EQ(j["identifiability"]["sigma_basis"], "noise_model");  // χ² within its limits
  for (const auto& [name, truth] : {std::pair{"k_z1", kK}, std::pair{"E_arm", kE}}) {
    const double error = Error(j, name, truth);
    const double sigma = j["identifiability"]["parameters"][name]["std_relative"].get<double>();
    std::printf("closed form, impact noise: %s %+.2e (1 sigma %.2e)\n", name, error, sigma);
    EXPECT_LT(std::abs(error), 3e-3) << name;
    EXPECT_LT(std::abs(error), 3 * sigma) << name;
    EXPECT_LT(sigma, 3e-3) << name;  // an error bar that says something
  }
}

}  // namespace
}  // namespace frfit
