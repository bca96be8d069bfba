// Stability lobes at one posture (frfit lobes --out) as HDF5; layout in docs/file-formats.md,
// "Stability lobes". The report and export read it back without the model.
#pragma once

#include <string>
#include <vector>

#include "frfit/predict/lobes_model.h"
#include "frfit/predict/stability_lobes.h"

namespace frfit {

struct LobesFile {
  std::string model_name, model_file, posture, parameters_source, cut, milling;
  int teeth = 0;
  double kt_n_per_m2 = 0.0, kr_ratio = 0.0;
  StabilityLobes lobes;
  LobeBand band;           // band.samples == 0: none (band.critical_depth_m is not stored)
  std::string sigma_note;  // identifiability.h SigmaNote of the σ the band was drawn with
};

// Written atomically; Error naming the file on failure.
void WriteLobesFile(const std::string& path, const LobesFile& lobes);

// Error naming the file and dataset on anything that is not a lobes file of consistent shapes.
LobesFile ReadLobesFile(const std::string& path);

}  // namespace frfit
