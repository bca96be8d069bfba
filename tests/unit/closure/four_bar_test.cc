// A planar four-bar closed by a revolute loop joint (docs/model-format.md, "Closed chains"): its
// one mode against the one-DOF Lagrangian in the crank angle of four_bar_reference.h — the
// rocker's angle from the loop's closure by its own Newton, gravity's stiffness and the mass from
// numerical derivatives of the links' positions along the mechanism's motion.
#include <gtest/gtest.h>

#include <string>

#include "frfit/model/model_yaml.h"
#include "four_bar_model.h"

namespace frfit {
namespace {

using namespace four_bar_model;

const std::string kModel = kHeader + R"(gravity: [0, -9.81, 0]
rigid_coordinates: [th, p1, p2]
frames:
  - {name: crank, parent: ground, transforms: [{rotz: th}, {rotz: a}]}
  - {name: crank_end, parent: crank, transforms: [{disp: [0.1, 0, 0]}]}
  - {name: coupler, parent: crank_end, transforms: [{rotz: p1}]}
  - {name: rocker, parent: ground, transforms: [{disp: [0.4, 0, 0]}, {rotz: p2}]}
bodies:
)" + Rod("crank", "crank", m1, kCrank) + Rod("coupler", "coupler", m2, kCoupler) +
                           Rod("rocker", "rocker", m3, kRocker) + R"(sensor: crank_end
closure:
  passive: [p1, p2]
  start: {p1: -40, p2: 100}
  joints:
    - {name: pin, type: revolute, parent: {frame: coupler, at: [0.35, 0, 0], axis: [0, 0, 1]},
       child: {frame: rocker, at: [0.25, 0, 0], axis: [0, 0, 1]}}
postures:
  p60: {th: 60}
)";

TEST(FourBar, RevoluteLoopEqualsTheOneDofLagrangian) {
  const Model model = ParseModelText(kModel, "four_bar.yaml");
  EXPECT_LT(CouplerRockerGap(model, model.posture("p60").q), 1e-12);  // the loop is closed
  ExpectLagrangian(model, "p60");
}

}  // namespace
}  // namespace frfit
