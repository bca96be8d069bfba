// String attributes as h5py writes a plain Python str (variable-length, UTF-8) are read like the
// fixed-length ones frfit writes (docs/file-formats.md): a user's own writer need not know the
// difference.
#include <hdf5.h>
#include <gtest/gtest.h>

#include <string>

#include "frfit/io/frf_hdf5.h"
#include "test_support.h"

namespace frfit {
namespace {

// Replaces the string attribute `name` of the root group by a variable-length UTF-8 one.
void RewriteAsVariableLength(const std::string& path, const std::string& name, const std::string& value) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  ASSERT_GE(H5Adelete(file, name.c_str()), 0);
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, H5T_VARIABLE);
  H5Tset_cset(type, H5T_CSET_UTF8);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attribute = H5Acreate2(file, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  ASSERT_GE(attribute, 0);
  const char* text = value.c_str();
  EXPECT_GE(H5Awrite(attribute, type, &text), 0);
  H5Aclose(attribute);
  H5Sclose(space);
  H5Tclose(type);
  H5Fclose(file);
}

class StringAttributes : public test::TempDirTest {};

TEST_F(StringAttributes, VariableLengthAttributesAreRead) {
  const FrfSet original =
      ReadFrfSet(std::string(FRFIT_SOURCE_DIR) + "/datasets/paper_3dof/frf_milling_inertance.h5");
  FrfSet renamed = original;
  renamed.posture = "posture written by h5py";
  WriteFrfSet(Path("frf.h5"), renamed);
  RewriteAsVariableLength(Path("frf.h5"), "frfit_file", "frf_set");
  RewriteAsVariableLength(Path("frf.h5"), "format", "inertance");
  RewriteAsVariableLength(Path("frf.h5"), "posture", "réach");  // UTF-8 kept as written
  const FrfSet read = ReadFrfSet(Path("frf.h5"));
  EXPECT_EQ(read.posture, "réach");
  EXPECT_EQ(read.format, original.format);
  EXPECT_EQ(read.H, original.H);
}

}  // namespace
}  // namespace frfit
