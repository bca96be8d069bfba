// `mpirun -np N frfit fleet …` (docs/fleet.md "MPI"): how a process learns that it is one rank
// of an MPI job, and the FleetPeers that connect it to the others over MPI. The MPI library is
// optional (FRFIT_WITH_MPI at build time); this header needs no MPI header either way.
#pragma once

#include <memory>

#include "frfit/fleet/fleet_shard.h"

namespace frfit {

// Whether this build has MPI (CMake found one).
bool IsMpiCompiled();

// How many processes the launcher started and which one this is, from its environment: Open
// MPI's mpirun sets OMPI_COMM_WORLD_SIZE and OMPI_COMM_WORLD_RANK, MPICH's and Intel MPI's
// PMI_SIZE and PMI_RANK. {1, 0} for a process started without one.
struct MpiLaunch {
  int size = 1;
  int rank = 0;
};
MpiLaunch MpiLaunchFromEnvironment();

// Null for a process started alone or as the only process of an MPI job: it runs the whole fleet
// without MPI. Otherwise initialises MPI and returns this rank's peers (MPI is finalised when
// they are destroyed). Throws Error when this build has no MPI, or when MPI does not see the job
// the launcher describes (an mpirun of another MPI library): each process would otherwise fit
// the whole fleet into the same run directory.
std::unique_ptr<FleetPeers> ConnectMpiPeers();

}  // namespace frfit
