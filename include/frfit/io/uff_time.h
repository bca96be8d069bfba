// UFF dataset 58/58b time records (function type 1) of an impact test → TimeRecordings
// (docs/uff.md, "Time records"): the hammer's force and the responses, grouped into hits, scaled to
// SI and mapped onto the sensor axes. It reads only; turning recordings into FRFs lives under
// impact/, FRF records are read by io/uff.h.
#pragma once

#include <string>
#include <vector>

#include "frfit/impact/time_recording.h"
#include "frfit/io/uff.h"

namespace frfit::uff {

// The file's time records as recordings, one per hit in file order (hit 0, 1, ...), or one
// continuous recording (hit -1) when the records form a single group. Grouping: by the load case
// id of record 6 when the records carry more than one; otherwise each force record opens a hit
// that holds the response records following it. Uses the mapping's `directions` (direction code
// → sensor axis and sign), `records` (which records to read), `sensor_node` (responses of other
// nodes are skipped) and `excitation_node` (forces of other nodes are skipped).
// Refuses, with Error(file, "dataset 58 record N.field", ...): records that are not time
// responses, a file without a force channel, a channel that is neither force nor motion, units
// that disagree with the specific data type, ambiguous grouping (a response before any force, two
// forces or two responses on one axis in a hit, hits with different channels), and unequal sample
// spacing, lengths or start times within a hit or sample rates within the file.
std::vector<TimeRecording> ToTimeRecordings(const File& file, const Mapping& mapping = DefaultMapping());

// Read + ToTimeRecordings.
std::vector<TimeRecording> ReadTimeRecordings(const std::string& path,
                                              const Mapping& mapping = DefaultMapping());

}  // namespace frfit::uff
