// Measured modes of a whole campaign as one set of a fit (`frfit fit --modes CAMPAIGN_EMA.h5
// --mapping NODES.yaml --posture NAME`, docs/fit-config.md, "Modes of a campaign"): a campaign's
// EMA (`frfit ema CAMPAIGN --out`) has its shapes at roving DOFs — node ids and direction codes —
// and no posture; the node map of `frfit modal --ema` (the mapping file's `nodes`, `directions`)
// says which model frame each node is and which of its axes each code reads. The set then sees
// its shapes at every mapped node at once, one scale per mode (cost/modal_sets.h).
#pragma once

#include <string>

#include "frfit/campaign/campaign_ema.h"
#include "frfit/cost/modal_sets.h"
#include "frfit/io/uff.h"

namespace frfit {

// One ModalSet from `ema` (read from `source`) at `posture` of `model`: one point per node of the
// EMA's DOFs (in node order) at the frame mapping.node_frames gives it; a DOF's value goes to the
// axis mapping.directions gives its code, negated for a negative sign (the EMA's values are "as
// measured" along the code's direction); axes no DOF measured are unknown (NaN). Errors, naming
// the file and DOF: a node the map does not name, a code without an axis, two DOFs on one axis of
// a point, a mode without a known shape entry; a frame the model lacks names the mapping file.
ModalSet MakeCampaignModalSet(const Model& model, const std::string& posture,
                              const campaign::EmaResult& ema, const uff::Mapping& mapping,
                              const std::string& source);

}  // namespace frfit
