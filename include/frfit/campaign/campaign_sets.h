// A campaign's FRFs as multi-point FRF sets (docs/campaign.md, "A campaign in a fit"): the records
// between one response node and one reference node form one 3×3 set between the model frames the
// node map gives them, each direction code on its frame's axis — what `frfit fit` takes as it
// takes every multi-point set (docs/multi-point.md).
#pragma once

#include <string>
#include <vector>

#include "frfit/campaign/campaign.h"
#include "frfit/frf/frf_set.h"
#include "frfit/io/uff.h"

namespace frfit::campaign {

// One set per (response node, reference node) pair, in the order the pairs first appear; posture
// `posture`, entries present where a record is. A record whose node the map does not name, whose
// direction has no axis in mapping.directions, or whose entry another record already gave, is
// refused: Error(record.file, record.where, ...). Coherence and averages go with a set when every
// record of it has them, the same averages.
std::vector<FrfSet> ToMultiPointSets(const Campaign& campaign, const uff::Mapping& mapping,
                                     const std::string& posture, const std::string& source);

}  // namespace frfit::campaign
