// Damaged HDF5 files that hdf5_fuzz (docs/fuzzing.md) found the readers mishandling: each must be
// refused with frfit::Error naming the file and the dataset, quickly, without allocating what
// the damage claims. Before the fixes they threw std::bad_alloc or std::length_error, spent
// seconds allocating, cast out-of-range doubles to integers (undefined) or threw a bare
// std::invalid_argument / std::out_of_range.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/results/fit_result.h"
#include "frfit/results/model_check_io.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/hdf5_file.h"
#include "test_support.h"

namespace frfit {
namespace {

const std::string kRoot = FRFIT_SOURCE_DIR;

// Expects `read` to throw frfit::Error whose message holds `expected`, within a second.
template <typename Read>
void ExpectRefused(Read read, const std::string& expected) {
  const auto start = std::chrono::steady_clock::now();
  try {
    read();
    ADD_FAILURE() << "read, expected an Error with '" << expected << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

class Hdf5Damaged : public test::TempDirTest {
 protected:
  // A file with one dataset `/x` of doubles of shape `dims`, chunked (so HDF5 accepts any shape)
  // and never written: the file stores none of its values.
  std::string Unwritten(const std::vector<hsize_t>& dims) {
    const std::string path = Path("x.h5");
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t plist = H5Pcreate(H5P_DATASET_CREATE);
    const std::vector<hsize_t> chunk(dims.size(), 4);
    H5Pset_chunk(plist, static_cast<int>(chunk.size()), chunk.data());
    const hid_t set =
        H5Dcreate2(file, "/x", H5T_IEEE_F64LE, space, H5P_DEFAULT, plist, H5P_DEFAULT);
    EXPECT_GE(set, 0) << "HDF5 refused to create the dataset";
    H5Dclose(set);
    H5Pclose(plist);
    H5Sclose(space);
    H5Fclose(file);
    return path;
  }
};

TEST_F(Hdf5Damaged, ShapeClaimingMoreThanTheFileStoresIsRefused) {
  const std::string path = Unwritten({hsize_t(1) << 40});  // 8 TB of doubles in a 2 KB file
  const Hdf5File f(path, Hdf5File::Mode::kRead);
  std::vector<hsize_t> dims;
  ExpectRefused([&] { f.ReadDoubles("/x", 1, &dims); },
                "x.h5: /x: shape [1099511627776] of 8-byte values is more than the file stores");
}

// 4 × (2^62 + 1) values: the product wraps around 2^64 to 4, so a buffer of 4 values was read
// into (HDF5 fills an unwritten dataset with its fill value, every one of 2^64 + 4).
TEST_F(Hdf5Damaged, ShapeWhoseSizeWrapsAroundIsRefused) {
  const std::string path = Unwritten({(hsize_t(1) << 62) + 1, 4});
  const Hdf5File f(path, Hdf5File::Mode::kRead);
  std::vector<hsize_t> dims;
  ExpectRefused([&] { f.ReadDoubles("/x", 2, &dims); }, "is more than the file stores");
}

// The bundled FRF set with its /frequency_hz datatype claiming 0xFF000008 bytes per value (the
// byte hdf5_fuzz flipped): HDF5 spent seconds allocating a conversion buffer before failing.
TEST_F(Hdf5Damaged, NumberOfFourGigabytesIsRefused) {
  std::string bytes = test::ReadText(kRoot + "/datasets/paper_3dof/frf_milling_inertance.h5");
  // Datatype message of an IEEE little-endian double: version 1, class float, bit fields, size 8.
  const std::string f64("\x11\x20\x3f\x00\x08\x00\x00\x00", 8);
  const size_t at = bytes.find(f64);
  ASSERT_NE(at, std::string::npos);
  bytes[at + 7] = '\xFF';
  const std::string path = Path("frf.h5");
  std::ofstream(path, std::ios::binary) << bytes;
  ExpectRefused([&] { ReadFrfSet(path); }, "frf.h5: /frequency_hz: expected numbers");
}

TEST_F(Hdf5Damaged, IntegersOutOfRangeAreRefused) {
  const std::string path = Path("ints.h5");
  {
    Hdf5File f(path, Hdf5File::Mode::kCreate);
    const std::vector<double> values = {1.0, 1e300};
    f.WriteDoubles("/ints", {2}, values.data());
    f.Save();
  }
  const Hdf5File f(path, Hdf5File::Mode::kRead);
  std::vector<hsize_t> dims;
  ExpectRefused([&] { f.ReadInts("/ints", 1, &dims); }, "ints.h5: /ints: expected integers, got 1e+300");
  ExpectRefused([&] { f.ToInt(1.15294e18, "/history/cycle"); },
                "ints.h5: /history/cycle: expected an integer from -2147483648 to 2147483647");
  ExpectRefused([&] { f.ToInt(std::nan(""), "/x"); }, "expected an integer");
  ExpectRefused([&] { f.ToInt64(9223372036854775808.0, "/x"); }, "expected integers");
  EXPECT_EQ(f.ToInt(-2147483648.0, "/x"), -2147483647 - 1);
  EXPECT_EQ(f.ToInt64(-9223372036854775808.0, "/x"), INT64_MIN);
}

// A fit result whose seed is not an unsigned integer: std::stoull threw std::invalid_argument
// ("stoull", naming nothing) or read "-1" as 2^64 - 1.
TEST_F(Hdf5Damaged, ResultSeedThatIsNoNumberIsRefused) {
  for (const char* seed : {"abc", "-1", "18446744073709551616", "", " 1"}) {
    const std::string path = Path("result.h5");
    {
      Hdf5File f(path, Hdf5File::Mode::kCreate);
      f.SetAttribute("/", "frfit_file", "fit_result");
      for (const char* name : {"frfit_version", "model", "model_file"}) f.SetAttribute("/", name, "x");
      f.SetAttribute("/", "seed", seed);
      f.Save();
    }
    ExpectRefused([&] { ReadFitResult(path); },
                  "result.h5: /@seed: expected an unsigned 64-bit integer, got '" + std::string(seed) + "'");
  }
}

// /model_check/reduced_chi2 holding no value: .at(0) threw a bare std::out_of_range.
TEST_F(Hdf5Damaged, ModelCheckWithoutItsValueIsRefused) {
  const std::string path = Path("check.h5");
  {
    Hdf5File f(path, Hdf5File::Mode::kCreate);
    f.CreateGroup("/model_check");
    f.SetAttribute("/model_check", "verdict", "consistent");
    f.SetAttribute("/model_check", "noise_source", "variance");
    f.WriteDoubles("/model_check/reduced_chi2", {0}, nullptr);
    f.Save();
  }
  const Hdf5File f(path, Hdf5File::Mode::kRead);
  ExpectRefused([&] { ReadModelCheck(f, "/model_check"); },
                "check.h5: /model_check/reduced_chi2: expected one value");
}

}  // namespace
}  // namespace frfit
