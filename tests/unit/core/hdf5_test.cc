// FRF sets in HDF5 (io/frf_hdf5.h, docs/file-formats.md): exact round trip, atomic writes, and
// one clear frfit::Error naming the file (and the dataset) for every kind of bad input file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "frfit/common/error.h"
#include "frfit/frf/frf_set.h"
#include "frfit/io/frf_hdf5.h"
#include "frfit/files/hdf5_file.h"

namespace frfit {
namespace {

namespace fs = std::filesystem;

class CoreHdf5 : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("frfit_hdf5_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  static FrfSet Sample(int lines, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    FrfSet set;
    set.posture = "milling";
    set.format = FrfFormat::kMobility;
    for (int k = 0; k < lines; ++k) set.frequency_hz.push_back(0.2 * (k + 1) + 1e-7 * u(rng));
    for (int i = 0; i < lines * 9; ++i)
      set.H.emplace_back(u(rng) * std::pow(10.0, 6 * u(rng)), u(rng) * 1e-9);
    set.H[0] = {-0.0, 1e-310};  // signed zero and a subnormal survive too
    set.present = {true, false, true, false, true, true, true, false, true};
    set.provenance = {{"model", "paper_3dof"},
                      {"parameters", "k_z1=2000000;d_z1=1200"},
                      {"source_file", "/some/where/measured.uff"}};
    return set;
  }

  // Files the writer must not leave behind (temporary names next to the target).
  std::vector<std::string> Listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path dir_;
};

// Reading `path` must throw frfit::Error whose message names the file and contains `also`.
void ExpectReadError(const std::string& path, const std::string& also) {
  try {
    ReadFrfSet(path);
    ADD_FAILURE() << "ReadFrfSet(" << path << ") did not throw";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << "message does not name the file: " << what;
    EXPECT_NE(what.find(also), std::string::npos) << "message lacks '" << also << "': " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "message is not one line: " << what;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "ReadFrfSet threw something other than frfit::Error: " << e.what();
  }
}

TEST_F(CoreHdf5, RoundTripIsExact) {
  const FrfSet set = Sample(150, 42);
  const std::string path = Path("set.h5");
  WriteFrfSet(path, set);
  const FrfSet back = ReadFrfSet(path);
  EXPECT_EQ(back.posture, set.posture);
  EXPECT_EQ(back.format, set.format);
  ASSERT_EQ(back.frequency_hz.size(), set.frequency_hz.size());
  for (size_t k = 0; k < set.frequency_hz.size(); ++k)
    EXPECT_EQ(std::memcmp(&back.frequency_hz[k], &set.frequency_hz[k], sizeof(double)), 0) << k;
  ASSERT_EQ(back.H.size(), set.H.size());
  for (size_t i = 0; i < set.H.size(); ++i)
    ASSERT_EQ(std::memcmp(&back.H[i], &set.H[i], sizeof(std::complex<double>)), 0) << "H value " << i;
  EXPECT_EQ(back.present, set.present);
  // Provenance: the same key/value pairs (HDF5 lists attributes by name, so order is by key).
  auto sorted = [](std::vector<std::pair<std::string, std::string>> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(back.provenance), sorted(set.provenance));
  EXPECT_EQ(Listing(), std::vector<std::string>{"set.h5"}) << "a temporary file was left behind";
}

TEST_F(CoreHdf5, EveryFormatRoundTrips) {
  for (FrfFormat f : {FrfFormat::kReceptance, FrfFormat::kMobility, FrfFormat::kInertance}) {
    FrfSet set = Sample(3, 1);
    set.format = f;
    WriteFrfSet(Path("f.h5"), set);
    EXPECT_EQ(ReadFrfSet(Path("f.h5")).format, f);
  }
}

TEST_F(CoreHdf5, LayoutIsTheDocumentedOne) {
  const FrfSet set = Sample(5, 3);
  WriteFrfSet(Path("set.h5"), set);
  Hdf5File file(Path("set.h5"), Hdf5File::Mode::kRead);
  std::vector<hsize_t> dims;
  const std::vector<double> f = file.ReadDoubles("/frequency_hz", 1, &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{5}));
  const std::vector<double> h = file.ReadDoubles("/H", 4, &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{5, 3, 3, 2}));
  // H[line][i][j][0 re | 1 im], i the response axis, j the excitation axis.
  EXPECT_EQ(h[((2 * 3 + 1) * 3 + 2) * 2 + 0], set.at(2, 1, 2).real());
  EXPECT_EQ(h[((2 * 3 + 1) * 3 + 2) * 2 + 1], set.at(2, 1, 2).imag());
  const std::vector<std::int64_t> present = file.ReadInts("/present", 2, &dims);
  EXPECT_EQ(dims, (std::vector<hsize_t>{3, 3}));
  EXPECT_EQ(present[1], 0);
  EXPECT_EQ(present[2], 1);
  EXPECT_EQ(file.GetAttribute("/", "frfit_file"), "frf_set");
  EXPECT_EQ(file.GetAttribute("/", "format"), "mobility");
  EXPECT_EQ(file.GetAttribute("/", "units"), "m/s/N");
  EXPECT_EQ(file.GetAttribute("/", "posture"), "milling");
  EXPECT_EQ(file.GetAttribute("/provenance", "model"), "paper_3dof");
}

TEST_F(CoreHdf5, FailedWriteIntoMissingDirectoryLeavesNothing) {
  const std::string path = Path("no_such_dir/set.h5");
  EXPECT_THROW(WriteFrfSet(path, Sample(4, 5)), Error);
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(Path("no_such_dir")));
  EXPECT_TRUE(Listing().empty());
}

TEST_F(CoreHdf5, FailedRenameLeavesNoTemporaryFile) {
  // The final name is an existing non-empty directory: the data are written under a temporary
  // name, the rename fails, and the temporary file must be gone.
  const std::string path = Path("target");
  fs::create_directories(path);
  std::ofstream(path + "/keep") << "x";
  EXPECT_THROW(WriteFrfSet(path, Sample(4, 5)), Error);
  EXPECT_TRUE(fs::is_directory(path));
  EXPECT_EQ(Listing(), std::vector<std::string>{"target"});
}

TEST_F(CoreHdf5, InvalidSetIsRejectedBeforeTouchingTheTarget) {
  const std::string path = Path("set.h5");
  const FrfSet good = Sample(4, 6);
  WriteFrfSet(path, good);
  FrfSet bad = Sample(4, 7);
  bad.frequency_hz[2] = bad.frequency_hz[1];  // not strictly increasing
  EXPECT_THROW(WriteFrfSet(path, bad), Error);
  const FrfSet back = ReadFrfSet(path);  // the old file is intact
  EXPECT_EQ(back.H, good.H);
  EXPECT_EQ(Listing(), std::vector<std::string>{"set.h5"});
}

TEST_F(CoreHdf5, OverwriteReplacesTheFile) {
  const std::string path = Path("set.h5");
  WriteFrfSet(path, Sample(10, 8));
  const FrfSet second = Sample(3, 9);
  WriteFrfSet(path, second);
  EXPECT_EQ(ReadFrfSet(path).H, second.H);
  EXPECT_EQ(Listing(), std::vector<std::string>{"set.h5"});
}

TEST_F(CoreHdf5, MissingFileIsAnError) { ExpectReadError(Path("missing.h5"), "missing.h5"); }

TEST_F(CoreHdf5, NonHdf5FileIsAnError) {
  const std::string path = Path("text.h5");
  std::ofstream(path) << "frequency,re,im\n1,2,3\n";
  ExpectReadError(path, "HDF5");
}

TEST_F(CoreHdf5, EmptyFileIsAnError) {
  const std::string path = Path("empty.h5");
  std::ofstream{path};
  ExpectReadError(path, "HDF5");
}

TEST_F(CoreHdf5, TruncatedFileIsAnError) {
  const std::string good = Path("good.h5");
  WriteFrfSet(good, Sample(200, 10));
  const auto size = fs::file_size(good);
  ASSERT_GT(size, 1000u);
  std::ifstream in(good, std::ios::binary);
  std::vector<char> bytes(size / 2);
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  const std::string path = Path("truncated.h5");
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ExpectReadError(path, "truncated.h5");
}

// Writes a file with the FRF-set attributes and the datasets the callback adds.
template <typename Fill>
std::string Craft(const std::string& path, Fill fill, bool attributes = true) {
  {
    Hdf5File file(path, Hdf5File::Mode::kCreate);
    if (attributes) {
      file.SetAttribute("/", "frfit_file", "frf_set");
      file.SetAttribute("/", "format", "inertance");
      file.SetAttribute("/", "units", "m/s^2/N");
      file.SetAttribute("/", "posture", "milling");
    }
    fill(file);
    file.Save();
  }
  return path;
}

const std::vector<double> kFreq = {1.0, 2.0, 3.0};
const std::vector<double> kH(3 * 18, 0.5);
const std::vector<std::int64_t> kPresent(9, 1);

TEST_F(CoreHdf5, CraftedValidFileReads) {
  // Guards the crafted-file tests below: with every dataset right, the file reads.
  const std::string path = Craft(Path("ok.h5"), [](Hdf5File& f) {
    f.WriteDoubles("/frequency_hz", {3}, kFreq.data());
    f.WriteDoubles("/H", {3, 3, 3, 2}, kH.data());
    f.WriteInts("/present", {3, 3}, kPresent.data());
  });
  const FrfSet set = ReadFrfSet(path);
  EXPECT_EQ(set.num_lines(), 3);
  EXPECT_EQ(set.format, FrfFormat::kInertance);
  EXPECT_EQ(set.at(2, 2, 2), std::complex<double>(0.5, 0.5));
}

TEST_F(CoreHdf5, MissingHIsAnError) {
  const std::string path = Craft(Path("noH.h5"), [](Hdf5File& f) {
    f.WriteDoubles("/frequency_hz", {3}, kFreq.data());
    f.WriteInts("/present", {3, 3}, kPresent.data());
  });
  ExpectReadError(path, "/H");
}

TEST_F(CoreHdf5, MissingFrequenciesIsAnError) {
  const std::string path = Craft(Path("noF.h5"), [](Hdf5File& f) {
    f.WriteDoubles("/H", {3, 3, 3, 2}, kH.data());
    f.WriteInts("/present", {3, 3}, kPresent.data());
  });
  ExpectReadError(path, "/frequency_hz");
}

TEST_F(CoreHdf5, MissingPresentIsAnError) {
  const std::string path = Craft(Path("noP.h5"), [](Hdf5File& f) {
    f.WriteDoubles("/frequency_hz", {3}, kFreq.data());
    f.WriteDoubles("/H", {3, 3, 3, 2}, kH.data());
  });
  ExpectReadError(path, "/present");
}

TEST_F(CoreHdf5, WrongShapesAreErrors) {
  // H without the trailing (re, im) dimension.
  ExpectReadError(Craft(Path("h3.h5"), [](Hdf5File& f) {
                    f.WriteDoubles("/frequency_hz", {3}, kFreq.data());
                    f.WriteDoubles("/H", {3, 3, 6}, kH.data());
                    f.WriteInts("/present", {3, 3}, kPresent.data());
                  }),
                  "/H");
  // H with a line count that disagrees with frequency_hz.
  const std::vector<double> big(4 * 18, 0.5);
  ExpectReadError(Craft(Path("h4.h5"), [&](Hdf5File& f) {
                    f.WriteDoubles("/frequency_hz", {3}, kFreq.data());
                    f.WriteDoubles("/H", {4, 3, 3, 2}, big.data());
                    f.WriteInts("/present", {3, 3}, kPresent.data());
                  }),
                  "/H");
  // H as 3×9×2: right rank, wrong inner dimensions.
  ExpectReadError(Craft(Path("h5.h5"), [](Hdf5File& f) {
                    f.WriteDoubles("/frequency_hz", {3}, kFreq.data());
                    f.WriteDoubles("/H", {3, 9, 1, 2}, kH.data());
                    f.WriteInts("/present", {3, 3}, kPresent.data());
                  }),
                  "/H");
  // Trailing dimension 3 instead of 2.
  const std::vector<double> three(3 * 27, 0.5);
  ExpectReadError(Craft(Path("h6.h5"), [&](Hdf5File& f) {
                    f.WriteDoubles("/frequency_hz", {3}, kFreq.data());
                    f.WriteDoubles("/H", {3, 3, 3, 3}, three.data());
                    f.WriteInts("/present", {3, 3}, kPresent.data());
                  }),
                  "/H");
  // frequency_hz as a 2-D dataset.
  ExpectReadError(Craft(Path("f2.h5"), [](Hdf5File& f) {
                    f.WriteDoubles("/frequency_hz", {3, 1}, kFreq.data());
                    f.WriteDoubles("/H", {3, 3, 3, 2}, kH.data());
                    f.WriteInts("/present", {3, 3}, kPresent.data());
                  }),
                  "/frequency_hz");
  // present as 9 values in a row.
  ExpectReadError(Craft(Path("p9.h5"), [](Hdf5File& f) {
                    f.WriteDoubles("/frequency_hz", {3}, kFreq.data());
                    f.WriteDoubles("/H", {3, 3, 3, 2}, kH.data());
                    f.WriteInts("/present", {9}, kPresent.data());
                  }),
                  "/present");
  // present as 3×2.
  ExpectReadError(Craft(Path("p6.h5"), [](Hdf5File& f) {
                    f.WriteDoubles("/frequency_hz", {3}, kFreq.data());
                    f.WriteDoubles("/H", {3, 3, 3, 2}, kH.data());
                    f.WriteInts("/present", {3, 2}, kPresent.data());
                  }),
                  "/present");
}

TEST_F(CoreHdf5, BadAttributesAndValuesAreErrors) {
  auto datasets = [](Hdf5File& f) {
    f.WriteDoubles("/frequency_hz", {3}, kFreq.data());
    f.WriteDoubles("/H", {3, 3, 3, 2}, kH.data());
    f.WriteInts("/present", {3, 3}, kPresent.data());
  };
  // Not marked as an FRF set.
  ExpectReadError(Craft(Path("nomark.h5"), datasets, /*attributes=*/false), "frfit_file");
  // Unknown format.
  ExpectReadError(Craft(Path("fmt.h5"), [&](Hdf5File& f) {
                    datasets(f);
                    f.SetAttribute("/", "format", "accelerance");
                  }),
                  "format");
  // Frequencies not increasing.
  const std::vector<double> down = {1.0, 3.0, 2.0};
  ExpectReadError(Craft(Path("order.h5"), [&](Hdf5File& f) {
                    f.WriteDoubles("/frequency_hz", {3}, down.data());
                    f.WriteDoubles("/H", {3, 3, 3, 2}, kH.data());
                    f.WriteInts("/present", {3, 3}, kPresent.data());
                  }),
                  "frequency_hz");
  // No entry present.
  const std::vector<std::int64_t> none(9, 0);
  ExpectReadError(Craft(Path("none.h5"), [&](Hdf5File& f) {
                    f.WriteDoubles("/frequency_hz", {3}, kFreq.data());
                    f.WriteDoubles("/H", {3, 3, 3, 2}, kH.data());
                    f.WriteInts("/present", {3, 3}, none.data());
                  }),
                  "present");
  // Zero lines.
  ExpectReadError(Craft(Path("zero.h5"), [&](Hdf5File& f) {
                    f.WriteDoubles("/frequency_hz", {0}, kFreq.data());
                    f.WriteDoubles("/H", {0, 3, 3, 2}, kH.data());
                    f.WriteInts("/present", {3, 3}, kPresent.data());
                  }),
                  "frequency_hz");
}

// A number kept as a string attribute (the EMA groups' criteria and settings) reads back to the
// bits FormatDouble wrote; anything else is refused naming the file and object/@name.
TEST_F(CoreHdf5, NumberAttributeReadsBackAndRefusesText) {
  Hdf5File file(Path("numbers.h5"), Hdf5File::Mode::kCreate);
  file.CreateGroup("/g");
  for (double v : {0.1, -2.5e-7, 1e300, 3.0}) {
    file.SetAttribute("/g", "v", FormatDouble(v));
    EXPECT_EQ(file.GetNumberAttribute("/g", "v"), v);
  }
  for (const char* bad : {"", "1.5x", "x", "1 2"}) {
    file.SetAttribute("/g", "bad", bad);
    try {
      file.GetNumberAttribute("/g", "bad");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()),
                Path("numbers.h5") + ": /g/@bad: expected a number, got '" + bad + "'");
    }
  }
}

}  // namespace
}  // namespace frfit
