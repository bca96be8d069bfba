// A thin RAII layer over the HDF5 C API for the project's files: datasets of doubles, small
// integer arrays and string attributes, each failure an Error naming the file and the object.
// HDF5's own error stack printing is switched off; the messages here replace it.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace frfit {

class Hdf5File {
 public:
  // kCreate builds the file in memory (HDF5's core driver, no backing store): HDF5 never writes
  // to the disk itself, so a full disk cannot fail inside H5Fclose, where the error would be lost
  // and the library's state left damaged. Save() writes the finished image with
  // WriteFileAtomically; a file never saved leaves nothing behind.
  enum class Mode { kRead, kCreate };
  Hdf5File(const std::string& path, Mode mode);
  ~Hdf5File();
  Hdf5File(const Hdf5File&) = delete;
  Hdf5File& operator=(const Hdf5File&) = delete;

  const std::string& path() const { return path_; }
  // kCreate: writes the file to path() atomically (files/atomic_file.h); throws Error on failure.
  void Save();
  // kCreate: the finished file's bytes, what Save() writes (for a caller that writes them
  // itself, e.g. after letting go of a lock held around the HDF5 library).
  std::string Image();
  bool Exists(const std::string& object) const;
  // Throws Error unless the root attribute frfit_file equals `kind` ("frf_set", "fit_result");
  // `what` names the kind in the message ("an frfit FRF set").
  void RequireFileKind(const std::string& kind, const std::string& what) const;
  // Names of the links in a group, in name order.
  std::vector<std::string> Children(const std::string& group) const;
  void CreateGroup(const std::string& group);

  void WriteDoubles(const std::string& dataset, const std::vector<hsize_t>& dims,
                    const double* data);
  void WriteInts(const std::string& dataset, const std::vector<hsize_t>& dims,
                 const std::int64_t* data);
  void WriteStrings(const std::string& dataset, const std::vector<std::string>& values);
  // Reads a dataset; its shape must match `expected_rank` (dims returned). A shape that claims
  // more values than the file stores is refused before anything is allocated for them.
  std::vector<double> ReadDoubles(const std::string& dataset, int expected_rank,
                                  std::vector<hsize_t>* dims) const;
  std::vector<std::int64_t> ReadInts(const std::string& dataset, int expected_rank,
                                     std::vector<hsize_t>* dims) const;
  // A value read from `dataset` as an integer: a whole number within the type's range, else
  // Error naming the dataset (casting any other double is undefined behaviour).
  std::int64_t ToInt64(double value, const std::string& dataset) const;
  int ToInt(double value, const std::string& dataset) const;
  std::vector<std::string> ReadStrings(const std::string& dataset) const;

  // String attributes on an object ("/" for the file).
  void SetAttribute(const std::string& object, const std::string& name, const std::string& value);
  std::string GetAttribute(const std::string& object, const std::string& name) const;
  // A string attribute that holds a number (as FormatDouble writes it), read back; Error naming
  // object/@name when it is anything else.
  double GetNumberAttribute(const std::string& object, const std::string& name) const;
  bool HasAttribute(const std::string& object, const std::string& name) const;
  std::vector<std::string> AttributeNames(const std::string& object) const;

 private:
  std::string path_;
  hid_t file_ = -1;
};

}  // namespace frfit
