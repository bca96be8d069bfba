// σ calibration of a beam model updated from modes (docs/fit-config.md, "A beam model updated
// from modes"): the L-frame of tests/unit/beam/l_frame_modes.h, E per link and both lumped masses
// fitted from its six in-plane modes at 20 stations, over DRAWS noise draws (0.5 % on the
// frequencies, SHAPE_NOISE per real and imaginary part of a unit shape). Prints per parameter the
// RMS of z = (fitted − truth)/σ (1 when the σ are calibrated), the share of |z| beyond 1, 2 and 3
// (a Gaussian's 31.7 %, 4.6 %, 0.27 %), the mean 1σ and the RMS error, both relative.
//
// With SHAPE_STD the fit's modes.shape_std is set (default 0.02, about 4× the shapes' noise here).
//
// usage: beam_modes_calibration [DRAWS] [SHAPE_NOISE] [ELEMENTS_PER_LINK] [SHAPE_STD]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "../tests/unit/beam/l_frame_modes.h"

int main(int argc, char** argv) {
  using namespace frfit;
  using namespace frfit::test::l_frame;
  const int draws = argc > 1 ? std::atoi(argv[1]) : 100;
  const double shape_noise = argc > 2 ? std::atof(argv[2]) : 0.005;
  const int per_link = argc > 3 ? std::atoi(argv[3]) : 5;
  const double shape_std = argc > 4 ? std::atof(argv[4]) : ModalCostOptions().shape_std;
  const Model model = ParseModelText(LFrameModel(per_link), "l_frame");
  const std::vector<double> truth = TruthVector(model);
  const ModalSet clean = DenseModes(model, kTruth, 6, per_link);
  const std::vector<std::string> names = Free().free;
  std::vector<double> z2(names.size()), e2(names.size()), sigma(names.size());
  std::vector<int> beyond1(names.size()), beyond2(names.size()), beyond3(names.size());
  const auto start = std::chrono::steady_clock::now();
  for (int draw = 0; draw < draws; ++draw) {
    std::mt19937_64 rng(1000 + draw);
    std::normal_distribution<double> normal;
    ModalData data;
    data.options.shape_std = shape_std;
    data.sets = {clean};
    for (MeasuredMode& m : data.sets[0].modes) {
      m.frequency_hz += m.frequency_sigma_hz * normal(rng);
      for (Eigen::Index a = 0; a < m.shape.size(); ++a)
        m.shape(a) += shape_noise * std::complex<double>(normal(rng), normal(rng));
      m.shape /= m.shape.norm();
    }
    const FitResult r = FitModes(model, data);
    for (const ParameterIdentifiability& q : r.identifiability.per_parameter) {
      const size_t i = std::find(names.begin(), names.end(), q.name) - names.begin();
      const int k = model.FindParameter(q.name);
      const double z = (r.parameters[k] - truth[k]) / q.std_absolute;
      z2[i] += z * z, e2[i] += std::pow(r.parameters[k] / truth[k] - 1.0, 2);
      sigma[i] += q.std_absolute / truth[k];
      beyond1[i] += std::abs(z) > 1, beyond2[i] += std::abs(z) > 2, beyond3[i] += std::abs(z) > 3;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%d points, %d draws, shape noise %g per part, shape_std %g, %.2f s per fit\n",
              2 * per_link, draws, shape_noise, shape_std, seconds / draws);
  std::printf("%-8s %8s %8s %8s %8s %10s %10s\n", "param", "rms z", ">1", ">2", ">3",
              "mean 1s %", "rms err %");
  for (size_t i = 0; i < names.size(); ++i)
    std::printf("%-8s %8.3f %7.1f%% %7.1f%% %7.1f%% %10.3f %10.3f\n", names[i].c_str(),
                std::sqrt(z2[i] / draws), 100.0 * beyond1[i] / draws, 100.0 * beyond2[i] / draws,
                100.0 * beyond3[i] / draws, 100.0 * sigma[i] / draws,
                100.0 * std::sqrt(e2[i] / draws));
  return 0;
}
