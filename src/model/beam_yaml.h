// Reading a body's `beam:` block of a model file (docs/model-format.md, "Beam bodies"): the
// Beam, its elastic coordinates, its station frames and its lumped masses.
#pragma once

#include <string>
#include <vector>

#include "frfit/files/yaml_reader.h"
#include "frfit/model/model.h"

namespace frfit {

// What a beam puts on the model besides itself: named frames along it and lumped masses.
struct BeamAttachments {
  struct Station {
    std::string name;
    double x = 0.0;
  };
  struct LumpedMass {
    double x = 0.0;
    double mass_kg = 0.0;
    Eigen::Vector3d inertia_kg_m2 = Eigen::Vector3d::Zero();  // principal, beam axes
    int frame = -1;  // the frame it sits on, set by AddBeamFrames
  };
  std::vector<Station> stations;
  std::vector<LumpedMass> masses;
  YAML::Node node;   // the body, for messages
  std::string path;  // "bodies[i]"
};

// Reads body `node`'s beam block (the body has a `beam` key) into a Beam appended to
// model->beams, and appends its elastic coordinates (six per node after the root, spring-less)
// to model->dofs. Call before any rigid coordinate is added: the coordinates stay DOFs.
BeamAttachments ParseBeam(const YamlReader& r, const YAML::Node& node, const std::string& path,
                          Model* model);

// Once the beam's frame is model->frames.back(): appends its station frames and the frames of
// lumped masses not at a station, parented to it.
void AddBeamFrames(const YamlReader& r, Beam* beam, BeamAttachments* attachments, Model* model);

// Appends the beam's lumped masses as bodies "<beam>.mass<k>" on their frames.
void AddBeamMasses(const Beam& beam, const BeamAttachments& attachments, Model* model);

}  // namespace frfit
