#include "frfit/files/hdf5_file.h"

#include <hdf5_hl.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "frfit/common/error.h"
#include "frfit/files/atomic_file.h"

namespace frfit {
namespace {

// HDF5 prints its error stack to stderr by default; we report our own one-line errors instead.
struct SilenceHdf5 {
  SilenceHdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }
};
const SilenceHdf5 kSilence;

// RAII for one hid_t with the matching close function.
struct Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Handle() {
    if (id >= 0) close(id);
  }
};

// Creation properties (of the file's root group, a group, a dataset) without modification times:
// the same content is then the same bytes, so that two files can be compared byte for byte (the
// MPI fleet test compares each robot's result with a single process's).
hid_t UntimedCreationList(hid_t list_class) {
  const hid_t list = H5Pcreate(list_class);
  if (list >= 0) H5Pset_obj_track_times(list, 0);
  return list;
}

// Compressed data (h5py's gzip) can hold more values than its stored bytes: deflate's best ratio
// is 1032:1 (zlib's technical notes), so a dataset may claim at most this many times its stored
// bytes. Uncompressed data, what frfit writes, holds exactly its stored bytes.
constexpr hsize_t kMaxStoredExpansion = 1100;

// The number of values a dataset of shape `dims` holds, each `element_bytes` in the file, refused
// unless the file stores them. A damaged dataspace can claim 2^60 values of a 30 KB file, a
// damaged type 4 GB per value: reading them would allocate without bound (HDF5's conversion
// buffer too: seconds of work before it fails), and a product of dimensions that wraps around
// would size a buffer that HDF5 then overruns.
size_t StoredValueCount(hid_t file, hid_t set, const std::vector<hsize_t>& dims,
                        size_t element_bytes, const std::string& path, const std::string& dataset) {
  std::string shape;
  // Piece by piece: "[" + std::string&& trips GCC 12's -Wrestrict false positive (bug 105329).
  for (hsize_t d : dims) ((shape += '[') += std::to_string(d)) += ']';
  const std::string damaged = "shape " + shape + " of " + std::to_string(element_bytes) +
                              "-byte values is more than the file stores (truncated or damaged file?)";
  size_t count = 1;
  for (hsize_t d : dims) {
    if (d != 0 && count > std::numeric_limits<size_t>::max() / d) throw Error(path, dataset, damaged);
    count *= static_cast<size_t>(d);
  }
  if (count == 0) return 0;
  element_bytes = std::max<size_t>(element_bytes, 1);
  if (count > std::numeric_limits<size_t>::max() / element_bytes) throw Error(path, dataset, damaged);
  hsize_t file_bytes = 0;
  const hsize_t stored = H5Dget_storage_size(set);
  if (H5Fget_filesize(file, &file_bytes) < 0 || stored > file_bytes ||
      count * element_bytes / kMaxStoredExpansion > stored)
    throw Error(path, dataset, damaged);
  return count;
}

void WriteNumbers(hid_t file, const std::string& path, const std::string& dataset,
                  const std::vector<hsize_t>& dims, hid_t type, const void* data) {
  Handle space{H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose};
  Handle creation{UntimedCreationList(H5P_DATASET_CREATE), H5Pclose};
  Handle set{
      H5Dcreate2(file, dataset.c_str(), type, space.id, H5P_DEFAULT, creation.id, H5P_DEFAULT),
      H5Dclose};
  if (space.id < 0 || creation.id < 0 || set.id < 0 ||
      (data && H5Dwrite(set.id, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0))
    throw Error(path, dataset, "cannot write dataset");
}

}  // namespace

Hdf5File::Hdf5File(const std::string& path, Mode mode) : path_(path) {
  if (mode == Mode::kCreate) {
    // The name only identifies the image among open files; nothing is created under it.
    static std::atomic<long> counter{0};
    const std::string name = path + ":memory:" + std::to_string(counter++);
    Handle access{H5Pcreate(H5P_FILE_ACCESS), H5Pclose};
    if (access.id < 0 || H5Pset_fapl_core(access.id, 1 << 20, 0) < 0)
      throw Error(path, "", "cannot set up an HDF5 file in memory");
    Handle creation{UntimedCreationList(H5P_FILE_CREATE), H5Pclose};
    file_ = H5Fcreate(name.c_str(), H5F_ACC_TRUNC, creation.id, access.id);
    if (file_ < 0) throw Error(path, "", "cannot create HDF5 file");
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw Error(path, "", "expected a file, got a directory");
    if (H5Fis_hdf5(path.c_str()) <= 0) {
      FILE* f = std::fopen(path.c_str(), "rb");
      if (!f) throw Error(path, "", "cannot open file for reading");
      std::fclose(f);
      throw Error(path, "", "not an HDF5 file (or truncated)");
    }
    file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file_ < 0) throw Error(path, "", "cannot open HDF5 file (truncated or damaged?)");
  }
}

Hdf5File::~Hdf5File() {
  if (file_ >= 0) H5Fclose(file_);
}

void Hdf5File::Save() { WriteFileAtomically(path_, Image()); }

std::string Hdf5File::Image() {
  if (H5Fflush(file_, H5F_SCOPE_GLOBAL) < 0) throw Error(path_, "", "cannot finish the HDF5 file");
  const ssize_t size = H5Fget_file_image(file_, nullptr, 0);
  if (size < 0) throw Error(path_, "", "cannot finish the HDF5 file");
  std::string image(static_cast<size_t>(size), '\0');
  if (H5Fget_file_image(file_, image.data(), image.size()) != size)
    throw Error(path_, "", "cannot finish the HDF5 file");
  return image;
}

bool Hdf5File::Exists(const std::string& object) const {
  // Check each path component so a missing parent group does not raise an error.
  size_t pos = 0;
  while (true) {
    pos = object.find('/', pos + 1);
    const std::string prefix = object.substr(0, pos);
    if (!prefix.empty() && prefix != "/" && H5Lexists(file_, prefix.c_str(), H5P_DEFAULT) <= 0)
      return false;
    if (pos == std::string::npos) return true;
  }
}

void Hdf5File::RequireFileKind(const std::string& kind, const std::string& what) const {
  if (!HasAttribute("/", "frfit_file") || GetAttribute("/", "frfit_file") != kind)
    throw Error(path_, "/@frfit_file", "expected " + what + " (attribute frfit_file = " + kind + ")");
}

std::vector<std::string> Hdf5File::Children(const std::string& group) const {
  std::vector<std::string> names;
  if (!Exists(group)) throw Error(path_, group, "missing group");
  Handle g{H5Gopen2(file_, group.c_str(), H5P_DEFAULT), H5Gclose};
  if (g.id < 0) throw Error(path_, group, "cannot open group");
  hsize_t index = 0;
  const herr_t status = H5Literate(
      g.id, H5_INDEX_NAME, H5_ITER_INC, &index,
      [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->push_back(name);
        return 0;
      },
      &names);
  if (status < 0) throw Error(path_, group, "cannot list the group (damaged file?)");
  return names;
}

void Hdf5File::CreateGroup(const std::string& group) {
  Handle creation{UntimedCreationList(H5P_GROUP_CREATE), H5Pclose};
  Handle g{H5Gcreate2(file_, group.c_str(), H5P_DEFAULT, creation.id, H5P_DEFAULT), H5Gclose};
  if (g.id < 0) throw Error(path_, group, "cannot create group");
}

void Hdf5File::WriteDoubles(const std::string& dataset, const std::vector<hsize_t>& dims,
                            const double* data) {
  WriteNumbers(file_, path_, dataset, dims, H5T_NATIVE_DOUBLE, data);
}

void Hdf5File::WriteInts(const std::string& dataset, const std::vector<hsize_t>& dims,
                         const std::int64_t* data) {
  WriteNumbers(file_, path_, dataset, dims, H5T_NATIVE_INT64, data);
}

void Hdf5File::WriteStrings(const std::string& dataset, const std::vector<std::string>& values) {
  Handle type{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(type.id, H5T_VARIABLE);
  H5Tset_cset(type.id, H5T_CSET_UTF8);
  const hsize_t dims[1] = {values.size()};
  Handle space{H5Screate_simple(1, dims, nullptr), H5Sclose};
  Handle creation{UntimedCreationList(H5P_DATASET_CREATE), H5Pclose};
  Handle set{
      H5Dcreate2(file_, dataset.c_str(), type.id, space.id, H5P_DEFAULT, creation.id, H5P_DEFAULT),
      H5Dclose};
  std::vector<const char*> ptrs;
  for (const auto& v : values) ptrs.push_back(v.c_str());
  if (set.id < 0 ||
      (!values.empty() && H5Dwrite(set.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()) < 0))
    throw Error(path_, dataset, "cannot write dataset");
}

std::vector<double> Hdf5File::ReadDoubles(const std::string& dataset, int expected_rank,
                                          std::vector<hsize_t>* dims) const {
  if (!Exists(dataset)) throw Error(path_, dataset, "missing dataset");
  Handle set{H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), H5Dclose};
  if (set.id < 0) throw Error(path_, dataset, "cannot read dataset (truncated file?)");
  Handle space{H5Dget_space(set.id), H5Sclose};
  const int rank = space.id < 0 ? -1 : H5Sget_simple_extent_ndims(space.id);
  if (rank < 0) throw Error(path_, dataset, "cannot read dataset shape (truncated file?)");
  if (rank != expected_rank)
    throw Error(path_, dataset, "expected a " + std::to_string(expected_rank) +
                                    "-dimensional dataset, got " + std::to_string(rank));
  dims->assign(rank, 0);
  if (H5Sget_simple_extent_dims(space.id, dims->data(), nullptr) < 0)
    throw Error(path_, dataset, "cannot read dataset shape (truncated file?)");
  Handle type{H5Dget_type(set.id), H5Tclose};
  const H5T_class_t type_class = type.id < 0 ? H5T_NO_CLASS : H5Tget_class(type.id);
  const size_t element_bytes = type.id < 0 ? 0 : H5Tget_size(type.id);
  // Integers and floating-point numbers are 1 to 16 bytes (a long double): any other size is a
  // damaged type, and converting values of it costs HDF5 a buffer of that many bytes per value.
  if ((type_class != H5T_FLOAT && type_class != H5T_INTEGER) || element_bytes < 1 ||
      element_bytes > 16)
    throw Error(path_, dataset, "expected numbers");
  const size_t count = StoredValueCount(file_, set.id, *dims, element_bytes, path_, dataset);
  std::vector<double> values(count);
  if (count > 0 &&
      H5Dread(set.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
    throw Error(path_, dataset, "cannot read dataset values (truncated or damaged file?)");
  return values;
}

std::vector<std::int64_t> Hdf5File::ReadInts(const std::string& dataset, int expected_rank,
                                             std::vector<hsize_t>* dims) const {
  const std::vector<double> values = ReadDoubles(dataset, expected_rank, dims);
  std::vector<std::int64_t> out;
  for (double v : values) out.push_back(ToInt64(v, dataset));
  return out;
}

std::int64_t Hdf5File::ToInt64(double value, const std::string& dataset) const {
  // Casting a double outside int64's range (or NaN) is undefined: check first. 2^63 is the
  // smallest double above the range; every double below it and from -2^63 on fits.
  constexpr double kLimit = 9223372036854775808.0;
  if (!(value >= -kLimit && value < kLimit) || value != std::floor(value))
    throw Error(path_, dataset, "expected integers, got " + FormatDouble(value));
  return static_cast<std::int64_t>(value);
}

int Hdf5File::ToInt(double value, const std::string& dataset) const {
  if (!(value >= std::numeric_limits<int>::min() && value <= std::numeric_limits<int>::max()) ||
      value != std::floor(value))
    throw Error(path_, dataset,
                "expected an integer from " + std::to_string(std::numeric_limits<int>::min()) +
                    " to " + std::to_string(std::numeric_limits<int>::max()) + ", got " +
                    FormatDouble(value));
  return static_cast<int>(value);
}

std::vector<std::string> Hdf5File::ReadStrings(const std::string& dataset) const {
  if (!Exists(dataset)) throw Error(path_, dataset, "missing dataset");
  Handle set{H5Dopen2(file_, dataset.c_str(), H5P_DEFAULT), H5Dclose};
  if (set.id < 0) throw Error(path_, dataset, "cannot open dataset");
  Handle space{H5Dget_space(set.id), H5Sclose};
  if (H5Sget_simple_extent_ndims(space.id) != 1)
    throw Error(path_, dataset, "expected a 1-dimensional list of strings");
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space.id, &n, nullptr);
  Handle file_type{H5Dget_type(set.id), H5Tclose};
  if (H5Tget_class(file_type.id) != H5T_STRING || H5Tis_variable_str(file_type.id) <= 0)
    throw Error(path_, dataset, "expected variable-length strings");
  StoredValueCount(file_, set.id, {n}, H5Tget_size(file_type.id), path_, dataset);
  Handle type{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(type.id, H5T_VARIABLE);
  H5Tset_cset(type.id, H5Tget_cset(file_type.id));  // HDF5 does not convert between charsets
  std::vector<char*> ptrs(n, nullptr);
  if (n > 0 && H5Dread(set.id, type.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()) < 0)
    throw Error(path_, dataset, "cannot read the strings");
  std::vector<std::string> out;
  for (char* p : ptrs) out.emplace_back(p ? p : "");
  if (n > 0) H5Dvlen_reclaim(type.id, space.id, H5P_DEFAULT, ptrs.data());
  return out;
}

void Hdf5File::SetAttribute(const std::string& object, const std::string& name,
                            const std::string& value) {
  if (H5LTset_attribute_string(file_, object.c_str(), name.c_str(), value.c_str()) < 0)
    throw Error(path_, object + "@" + name, "cannot write attribute");
}

bool Hdf5File::HasAttribute(const std::string& object, const std::string& name) const {
  return Exists(object) && H5Aexists_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT) > 0;
}

std::string Hdf5File::GetAttribute(const std::string& object, const std::string& name) const {
  if (!HasAttribute(object, name)) throw Error(path_, object + "@" + name, "missing attribute");
  Handle attr{H5Aopen_by_name(file_, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  if (attr.id < 0) throw Error(path_, object + "@" + name, "cannot open attribute");
  Handle type{H5Aget_type(attr.id), H5Tclose};
  if (H5Tget_class(type.id) != H5T_STRING)
    throw Error(path_, object + "@" + name, "expected a string attribute");
  Handle space{H5Aget_space(attr.id), H5Sclose};
  if (H5Sget_simple_extent_npoints(space.id) != 1)
    throw Error(path_, object + "@" + name, "expected a single string");
  // Fixed-length strings (what frfit writes) and variable-length ones (what h5py writes for str).
  if (H5Tis_variable_str(type.id) > 0) {
    Handle memtype{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(memtype.id, H5T_VARIABLE);
    H5Tset_cset(memtype.id, H5Tget_cset(type.id));
    char* text = nullptr;
    if (H5Aread(attr.id, memtype.id, &text) < 0)
      throw Error(path_, object + "@" + name, "cannot read attribute");
    std::string value = text ? text : "";
    H5free_memory(text);
    return value;
  }
  // A fixed-length string is stored whole in the file: a longer one is a damaged size.
  const size_t size = H5Tget_size(type.id);
  hsize_t file_bytes = 0;
  if (size == 0 || H5Fget_filesize(file_, &file_bytes) < 0 || size > file_bytes)
    throw Error(path_, object + "@" + name, "cannot read attribute (damaged file?)");
  Handle memtype{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(memtype.id, size + 1);
  std::string value(size + 1, '\0');
  if (H5Aread(attr.id, memtype.id, value.data()) < 0)
    throw Error(path_, object + "@" + name, "cannot read attribute");
  value.resize(std::char_traits<char>::length(value.c_str()));
  return value;
}

double Hdf5File::GetNumberAttribute(const std::string& object, const std::string& name) const {
  const std::string text = GetAttribute(object, name);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0')
    throw Error(path_, object + "/@" + name, "expected a number, got '" + text + "'");
  return v;
}

std::vector<std::string> Hdf5File::AttributeNames(const std::string& object) const {
  std::vector<std::string> names;
  Handle obj{H5Oopen(file_, object.c_str(), H5P_DEFAULT), H5Oclose};
  if (obj.id < 0) throw Error(path_, object, "missing object");
  hsize_t index = 0;
  H5Aiterate2(
      obj.id, H5_INDEX_NAME, H5_ITER_INC, &index,
      [](hid_t, const char* name, const H5A_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->emplace_back(name);
        return 0;
      },
      &names);
  return names;
}

}  // namespace frfit
