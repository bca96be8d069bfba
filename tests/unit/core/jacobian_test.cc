// Linearisation of a random kinematic chain checked against numerical derivatives computed here,
// independently of the library: the chain is generated in this test (kept as the test's own data
// structure and written out as YAML for ParseModelText), its forward kinematics is evaluated in
// long double by this file's code, and derivatives are central differences with Richardson
// extrapolation. Checked: the sensor Jacobian J_S, the gravity stiffness (Hessian of
// V(q) = −Σ m_i gᵀ e_i(q)), and M0 from the kinetic energy
//   M0 = Σ_i m_i J_S,iᵀ J_S,i + J_ω,iᵀ R_i Φ_i R_iᵀ J_ω,i.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "frfit/model/model_yaml.h"
#include "frfit/posture/kinematics.h"
#include "frfit/posture/posture.h"

namespace frfit {
namespace {

using LD = long double;
constexpr LD kPi = 3.14159265358979323846264338327950288L;

struct L4 {
  LD a[4][4];
  static L4 Identity() {
    L4 m{};
    for (int i = 0; i < 4; ++i) m.a[i][i] = 1;
    return m;
  }
  L4 operator*(const L4& o) const {
    L4 r{};
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        LD s = 0;
        for (int k = 0; k < 4; ++k) s += a[i][k] * o.a[k][j];
        r.a[i][j] = s;
      }
    return r;
  }
};

// The test's own description of a chain.
struct StepSpec {
  std::string kind;          // rotx roty rotz transx transy transz disp
  double value = 0;          // constant or offset: degrees (rotations) or metres
  int coordinate = -1;       // -1 constant; 0..n-1 a DOF; n.. a rigid coordinate
  bool map_form = false;     // {coordinate: c, offset: v}
  std::array<double, 3> disp{};
};
struct FrameSpec {
  std::string name;
  int parent = -1;
  std::vector<StepSpec> steps;
};
struct BodySpec {
  int frame;
  double mass;
  std::array<double, 3> com;
  double I[3][3];  // tensor entries
  bool products;   // write off-diagonals as products of inertia (negated)
};
struct ChainSpec {
  std::vector<std::string> dof_names;
  std::vector<bool> dof_rotational;
  std::vector<std::string> rigid_names;
  std::vector<FrameSpec> frames;
  std::vector<BodySpec> bodies;
  int sensor = -1;
  std::array<double, 3> gravity{};
  std::vector<double> q_file;  // posture in file units, DOFs then rigid
};

std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

ChainSpec RandomChain(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  ChainSpec c;
  const char* dof_kinds[] = {"rotz", "rotx", "roty", "transx", "rotz", "roty", "rotx", "transx"};
  const int n = 8;
  for (int j = 0; j < n; ++j) {
    c.dof_names.push_back("q" + std::to_string(j));
    c.dof_rotational.push_back(std::string(dof_kinds[j]).rfind("rot", 0) == 0);
  }
  c.rigid_names = {"axis"};
  const char* const_rot[] = {"rotx", "roty", "rotz"};
  for (int j = 0; j < n; ++j) {
    FrameSpec f;
    f.name = "link" + std::to_string(j);
    f.parent = j - 1;
    StepSpec d;
    d.kind = "disp";
    d.disp = {0.6 * u(rng), 0.6 * u(rng), 0.6 * u(rng)};
    f.steps.push_back(d);
    StepSpec r;
    r.kind = const_rot[rng() % 3];
    r.value = 90.0 * u(rng);
    f.steps.push_back(r);
    if (j == 3) {  // a rigid coordinate in the middle of the chain
      StepSpec rigid;
      rigid.kind = "roty";
      rigid.coordinate = n;
      f.steps.push_back(rigid);
    }
    StepSpec q;
    q.kind = dof_kinds[j];
    q.coordinate = j;
    q.map_form = (j % 3 == 1);
    if (q.map_form) q.value = c.dof_rotational[j] ? 30.0 * u(rng) : 0.2 * u(rng);
    f.steps.push_back(q);
    if (j == 5) {  // a constant translation along one axis after the DOF
      StepSpec t;
      t.kind = "transz";
      t.value = 0.3 * u(rng);
      f.steps.push_back(t);
    }
    c.frames.push_back(f);
  }
  FrameSpec sensor;
  sensor.name = "tcp";
  sensor.parent = n - 1;
  StepSpec d;
  d.kind = "disp";
  d.disp = {0.5 * u(rng), 0.5 * u(rng), 0.5 * u(rng)};
  sensor.steps.push_back(d);
  StepSpec r;
  r.kind = "rotx";
  r.value = -90.0;
  sensor.steps.push_back(r);
  StepSpec r2;
  r2.kind = "rotz";
  r2.value = 180.0 * u(rng);
  sensor.steps.push_back(r2);
  c.frames.push_back(sensor);
  c.sensor = n;
  // Bodies on most links and one on the sensor frame (a tool).
  for (int f : {0, 1, 2, 4, 5, 7, 8}) {
    BodySpec b;
    b.frame = f;
    b.mass = 5.0 + 100.0 * (0.5 + 0.5 * u(rng));
    b.com = {0.4 * u(rng), 0.4 * u(rng), 0.4 * u(rng)};
    double A[3][3];
    for (auto& row : A)
      for (double& x : row) x = u(rng);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        double s = i == j ? 0.2 : 0.0;
        for (int k = 0; k < 3; ++k) s += A[i][k] * A[j][k];
        b.I[i][j] = 10.0 * s;
      }
    b.products = (f % 2 == 0);
    c.bodies.push_back(b);
  }
  c.gravity = {0.7, -0.4, -9.81};
  for (int j = 0; j < n; ++j) c.q_file.push_back(c.dof_rotational[j] ? 120.0 * u(rng) : 0.3 * u(rng));
  c.q_file.push_back(45.0 * u(rng));
  return c;
}

std::string ToYaml(const ChainSpec& c) {
  std::ostringstream y;
  y << "format: frfit-model-1\nname: random_chain\n";
  y << "gravity: [" << Num(c.gravity[0]) << ", " << Num(c.gravity[1]) << ", " << Num(c.gravity[2])
    << "]\ndamping_model: viscous\ndofs:\n";
  for (size_t j = 0; j < c.dof_names.size(); ++j)
    y << "  - {name: " << c.dof_names[j]
      << ", type: " << (c.dof_rotational[j] ? "rotational" : "translational")
      << ", stiffness: {initial: 1.0e6, min: 1.0e5, max: 1.0e7}, damping: {initial: 100, min: 1, "
         "max: 1.0e4}}\n";
  y << "rigid_coordinates: [";
  for (size_t j = 0; j < c.rigid_names.size(); ++j) y << (j ? ", " : "") << c.rigid_names[j];
  y << "]\nframes:\n";
  const auto coord_name = [&](int k) {
    const int n = static_cast<int>(c.dof_names.size());
    return k < n ? c.dof_names[k] : c.rigid_names[k - n];
  };
  for (const FrameSpec& f : c.frames) {
    y << "  - name: " << f.name << "\n    parent: "
      << (f.parent < 0 ? std::string("ground") : c.frames[f.parent].name) << "\n    transforms:\n";
    for (const StepSpec& s : f.steps) {
      y << "      - {" << s.kind << ": ";
      if (s.kind == "disp")
        y << "[" << Num(s.disp[0]) << ", " << Num(s.disp[1]) << ", " << Num(s.disp[2]) << "]";
      else if (s.coordinate < 0)
        y << Num(s.value);
      else if (s.map_form)
        y << "{coordinate: " << coord_name(s.coordinate) << ", offset: " << Num(s.value) << "}";
      else
        y << coord_name(s.coordinate);
      y << "}\n";
    }
  }
  y << "bodies:\n";
  int index = 0;
  for (const BodySpec& b : c.bodies) {
    const double s = b.products ? -1.0 : 1.0;
    y << "  - name: body" << index++ << "\n    frame: " << c.frames[b.frame].name
      << "\n    mass: " << Num(b.mass) << "\n    com: [" << Num(b.com[0]) << ", " << Num(b.com[1])
      << ", " << Num(b.com[2]) << "]\n    inertia: {xx: " << Num(b.I[0][0])
      << ", yy: " << Num(b.I[1][1]) << ", zz: " << Num(b.I[2][2]) << ", xy: " << Num(s * b.I[0][1])
      << ", xz: " << Num(s * b.I[0][2]) << ", yz: " << Num(s * b.I[1][2]) << ", off_diagonal: "
      << (b.products ? "products_of_inertia" : "tensor_entries") << "}\n";
  }
  y << "sensor: " << c.frames[c.sensor].name << "\npostures:\n  test: {";
  for (size_t k = 0; k < c.q_file.size(); ++k)
    y << (k ? ", " : "") << coord_name(static_cast<int>(k)) << ": " << Num(c.q_file[k]);
  y << "}\n";
  return y.str();
}

// Long-double forward kinematics of the test's own chain. q in SI (rad / m).
std::vector<L4> Fk(const ChainSpec& c, const std::vector<LD>& q) {
  std::vector<L4> poses;
  for (const FrameSpec& f : c.frames) {
    L4 T = f.parent < 0 ? L4::Identity() : poses[f.parent];
    for (const StepSpec& s : f.steps) {
      L4 S = L4::Identity();
      if (s.kind == "disp") {
        for (int i = 0; i < 3; ++i) S.a[i][3] = s.disp[i];
      } else {
        const bool rot = s.kind.rfind("rot", 0) == 0;
        LD amount = rot ? static_cast<LD>(s.value) * kPi / 180 : static_cast<LD>(s.value);
        if (s.coordinate >= 0) amount += q[s.coordinate];
        const int axis = s.kind.back() - 'x';
        if (rot) {
          const int i = (axis + 1) % 3, j = (axis + 2) % 3;  // rotation in the (i, j) plane
          const LD cs = std::cos(amount), sn = std::sin(amount);
          S.a[i][i] = cs;
          S.a[i][j] = -sn;
          S.a[j][i] = sn;
          S.a[j][j] = cs;
        } else {
          S.a[axis][3] = amount;
        }
      }
      T = T * S;
    }
    poses.push_back(T);
  }
  return poses;
}

std::array<LD, 3> Point(const L4& T, const std::array<double, 3>& p) {
  std::array<LD, 3> r;
  for (int i = 0; i < 3; ++i) r[i] = T.a[i][0] * p[0] + T.a[i][1] * p[1] + T.a[i][2] * p[2] + T.a[i][3];
  return r;
}

using VecFn = std::function<std::vector<LD>(const std::vector<LD>&)>;

// ∂f/∂q_p by central differences with one Richardson step (error O(h⁴)).
std::vector<LD> Derivative(const VecFn& f, std::vector<LD> q, int p, LD h) {
  auto central = [&](LD step) {
    std::vector<LD> qp = q, qm = q;
    qp[p] += step;
    qm[p] -= step;
    const std::vector<LD> a = f(qp), b = f(qm);
    std::vector<LD> d(a.size());
    for (size_t i = 0; i < a.size(); ++i) d[i] = (a[i] - b[i]) / (2 * step);
    return d;
  };
  const std::vector<LD> d1 = central(h), d2 = central(h / 2);
  std::vector<LD> r(d1.size());
  for (size_t i = 0; i < d1.size(); ++i) r[i] = (4 * d2[i] - d1[i]) / 3;
  return r;
}

// ∂²V/∂q_p∂q_r by the four-point mixed difference with one Richardson step.
LD SecondDerivative(const std::function<LD(const std::vector<LD>&)>& V, const std::vector<LD>& q,
                    int p, int r, LD h) {
  auto mixed = [&](LD s) {
    auto at = [&](LD a, LD b) {
      std::vector<LD> x = q;
      x[p] += a;
      x[r] += b;
      return V(x);
    };
    return (at(s, s) - at(s, -s) - at(-s, s) + at(-s, -s)) / (4 * s * s);
  };
  return (4 * mixed(h / 2) - mixed(h)) / 3;
}

void ExpectMatrixNear(const Eigen::MatrixXd& got, const std::vector<std::vector<LD>>& want,
                      double rel, const std::string& what) {
  LD scale = 0;
  for (const auto& row : want)
    for (LD x : row) scale = std::max(scale, std::fabs(x));
  ASSERT_GT(scale, 0) << what;
  for (int i = 0; i < got.rows(); ++i)
    for (int j = 0; j < got.cols(); ++j)
      EXPECT_NEAR(got(i, j), static_cast<double>(want[i][j]), rel * static_cast<double>(scale))
          << what << "(" << i << "," << j << ")";
}

class CoreJacobian : public ::testing::TestWithParam<unsigned> {
 protected:
  void SetUp() override {
    chain_ = RandomChain(GetParam());
    yaml_ = ToYaml(chain_);
    model_ = ParseModelText(yaml_, "random_chain.yaml");
    n_ = static_cast<int>(chain_.dof_names.size());
    q_.resize(chain_.q_file.size());
    for (size_t k = 0; k < q_.size(); ++k) {
      const bool rot = static_cast<int>(k) < n_ ? chain_.dof_rotational[k] : true;
      q_[k] = rot ? static_cast<LD>(chain_.q_file[k]) * kPi / 180 : chain_.q_file[k];
    }
    posture_ = Linearize(model_, "test");
  }
  ChainSpec chain_;
  std::string yaml_;
  Model model_;
  int n_ = 0;
  std::vector<LD> q_;
  Posture posture_;
};

TEST_P(CoreJacobian, ParsedModelMatchesTheGeneratedChain) {
  ASSERT_EQ(model_.num_dofs(), n_) << yaml_;
  ASSERT_EQ(model_.num_coordinates(), n_ + 1);
  ASSERT_EQ(model_.frames.size(), chain_.frames.size());
  ASSERT_EQ(model_.bodies.size(), chain_.bodies.size());
  ASSERT_EQ(posture_.n, n_);
  for (size_t b = 0; b < chain_.bodies.size(); ++b)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_NEAR(model_.bodies[b].inertia_kg_m2(i, j), chain_.bodies[b].I[i][j], 1e-12)
            << "body " << b << " inertia tensor (" << i << "," << j << ")";
  // Postures in file units (degrees) become radians.
  for (size_t k = 0; k < q_.size(); ++k)
    EXPECT_NEAR(model_.posture("test").q[k], static_cast<double>(q_[k]), 1e-14) << "q" << k;
  // The library's double forward kinematics equals the long-double one here.
  std::vector<double> qd(q_.begin(), q_.end());
  const std::vector<Mat4> poses = FramePoses(model_, qd);
  const std::vector<L4> ref = Fk(chain_, q_);
  for (size_t f = 0; f < ref.size(); ++f)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        EXPECT_NEAR(poses[f](i, j), static_cast<double>(ref[f].a[i][j]), 1e-12)
            << "frame " << chain_.frames[f].name << " T(" << i << "," << j << ")";
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(posture_.sensor_position_m(i), static_cast<double>(ref[chain_.sensor].a[i][3]), 1e-12);
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(posture_.sensor_rotation(i, j), static_cast<double>(ref[chain_.sensor].a[i][j]),
                  1e-12);
  }
}

TEST_P(CoreJacobian, SensorJacobianMatchesNumericalDerivative) {
  const VecFn sensor = [&](const std::vector<LD>& q) {
    const L4 T = Fk(chain_, q)[chain_.sensor];
    return std::vector<LD>{T.a[0][3], T.a[1][3], T.a[2][3]};
  };
  std::vector<std::vector<LD>> J(3, std::vector<LD>(n_));
  for (int p = 0; p < n_; ++p) {
    const std::vector<LD> d = Derivative(sensor, q_, p, 1e-3L);
    for (int i = 0; i < 3; ++i) J[i][p] = d[i];
  }
  ASSERT_EQ(posture_.sensor_jacobian.cols(), n_);
  ExpectMatrixNear(posture_.sensor_jacobian, J, 1e-7, "J_S");
  // B = J_Sᵀ R_0,S.
  const Eigen::MatrixXd B = posture_.sensor_jacobian.transpose() * posture_.sensor_rotation;
  EXPECT_LT((posture_.sensor_basis - B).norm(), 1e-12 * B.norm());
}

TEST_P(CoreJacobian, GravityStiffnessIsHessianOfPotential) {
  const auto V = [&](const std::vector<LD>& q) {
    const std::vector<L4> poses = Fk(chain_, q);
    LD v = 0;
    for (const BodySpec& b : chain_.bodies) {
      const std::array<LD, 3> e = Point(poses[b.frame], b.com);
      for (int i = 0; i < 3; ++i) v -= b.mass * chain_.gravity[i] * e[i];
    }
    return v;
  };
  std::vector<std::vector<LD>> H(n_, std::vector<LD>(n_));
  for (int p = 0; p < n_; ++p)
    for (int r = 0; r < n_; ++r) H[p][r] = SecondDerivative(V, q_, p, r, 2e-3L);
  ExpectMatrixNear(posture_.gravity_stiffness, H, 1e-7, "K_gravity");
  EXPECT_EQ((posture_.gravity_stiffness - posture_.gravity_stiffness.transpose()).norm(), 0.0);
}

TEST_P(CoreJacobian, MassMatrixMatchesKineticEnergy) {
  std::vector<std::vector<LD>> M(n_, std::vector<LD>(n_, 0));
  for (const BodySpec& b : chain_.bodies) {
    const VecFn pose = [&](const std::vector<LD>& q) {
      const L4 T = Fk(chain_, q)[b.frame];
      const std::array<LD, 3> e = Point(T, b.com);
      std::vector<LD> out(e.begin(), e.end());
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out.push_back(T.a[i][j]);
      return out;
    };
    const std::vector<L4> poses = Fk(chain_, q_);
    LD R[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) R[i][j] = poses[b.frame].a[i][j];
    // Inertia in ground axes: R Φ Rᵀ.
    LD Ig[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        LD s = 0;
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 3; ++l) s += R[i][k] * b.I[k][l] * R[j][l];
        Ig[i][j] = s;
      }
    std::vector<std::array<LD, 3>> Js(n_), Jw(n_);
    for (int p = 0; p < n_; ++p) {
      const std::vector<LD> d = Derivative(pose, q_, p, 1e-3L);
      for (int i = 0; i < 3; ++i) Js[p][i] = d[i];
      LD W[3][3];  // Ṙ Rᵀ per unit q̇_p: the skew matrix of the angular velocity
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          LD s = 0;
          for (int k = 0; k < 3; ++k) s += d[3 + 3 * i + k] * R[j][k];
          W[i][j] = s;
        }
      Jw[p] = {(W[2][1] - W[1][2]) / 2, (W[0][2] - W[2][0]) / 2, (W[1][0] - W[0][1]) / 2};
    }
    for (int p = 0; p < n_; ++p)
      for (int r = 0; r < n_; ++r) {
        LD s = 0;
        for (int i = 0; i < 3; ++i) s += b.mass * Js[p][i] * Js[r][i];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) s += Jw[p][i] * Ig[i][j] * Jw[r][j];
        M[p][r] += s;
      }
  }
  ExpectMatrixNear(posture_.mass, M, 1e-7, "M0");
}

INSTANTIATE_TEST_SUITE_P(Seeds, CoreJacobian, ::testing::Values(1u, 7u, 2024u));

}  // namespace
}  // namespace frfit
