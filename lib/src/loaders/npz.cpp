// loaders/npz.cpp — NumPy's .npz: a zip archive of .npy members (numpy/lib/npyio.py,
// np.savez and np.savez_compressed).
//
// Byte layout:
//   1. a zip archive (see zip_archive.cpp), members STORED (np.savez) or DEFLATED
//      (np.savez_compressed), or BZIP2 or LZMA (zipfile's other methods, which np.load
//      reads: as far as the system's libzip does), zip64 extra fields when sizes need them;
//   2. each member "<key>.npy" is a whole .npy file (see npy.cpp); np.load lists it as
//      <key> (<key>.npy when another member is named <key> exactly), in archive order.
//      Other members are not arrays and are skipped.
//
// A STORED member is read in place: its .npy is opened over a slice of the mapping, so
// tensors are DISK views of the .npz itself. Of a DEFLATED member only the .npy header is
// inflated while listing (parsed over a sparse stand-in of the member's declared size);
// the data is inflated at realize: a member up to kInflateWholeBytes straight into the
// output buffer, a larger one front to back through a bounded window (zip_stream.hpp,
// ZipScatteredReader), element by element as loops ask for them: a summary of a large
// member holds 2 MiB of it. Loops that go back (a Fortran-order member, a flip) restart
// the inflation, and past a few restarts inflate the member whole once instead. A member
// declaring more or fewer bytes than header + shape, or holding more than it declares, is
// refused, so a deflate bomb allocates nothing.
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "loaders/formats.hpp"
#include "loaders/zip_archive.hpp"
#include "loaders/zip_stream.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

std::string npz_key(const std::string& member) { return member.substr(0, member.size() - 4); }

std::string member_label(const std::string& file, const ZipMember& m) { return file + ": member '" + m.name + "'"; }

/// Reverses the bytes of each `itemsize`-byte element in place.
void swap_elements(std::span<std::byte> data, std::size_t itemsize) {
  for (std::size_t at = 0; at + itemsize <= data.size(); at += itemsize)
    std::reverse(data.begin() + static_cast<std::ptrdiff_t>(at),
                 data.begin() + static_cast<std::ptrdiff_t>(at + itemsize));
}

/// The entry of a STORED member: its .npy opened in place over a slice of the mapping.
TensorEntry stored_entry(const std::shared_ptr<const MappedFile>& file, const ZipMember& m) {
  auto slice = MappedFile::slice(file, m.data_offset, m.size, file->name() + ":" + m.name);
  LoadedFile inner = open_npy_member(slice);
  TensorEntry entry = std::move(inner.tensors.at(0));
  entry.offset += m.data_offset;
  // Read in place, the member never meets libzip's CRC check: a reader of every byte
  // checks it here (the .npy header is part of the member's CRC).
  // Pages are dropped behind the check, as behind a scan, so memory stays flat.
  entry.details_for_write().check_whole = [file, m] {
    file->fetch(m.data_offset, m.size);
    const auto bytes = file->bytes().subspan(static_cast<std::size_t>(m.data_offset), static_cast<std::size_t>(m.size));
    check_member_crc(file->name(), m, zip_crc32(bytes, [&](std::size_t at, std::size_t n) {
                       file->release_pages(m.data_offset + at, n);
                     }));
  };
  return entry;
}

/// The inflated first bytes of a .npy member through the end of its header: magic (6),
/// version (2), header length (u16 in 1.0, u32 in 2.0 and 3.0), header.
std::vector<std::byte> npy_prefix(const ZipArchive& zip, const ZipMember& m) {
  std::vector<std::byte> head = zip.read_prefix(m, 12);
  if (head.size() < 12) return head;  // open_npy says what is missing
  const std::uint64_t end = npy_header_end(head);
  // The most inflated to read a header: npy.cpp refuses more than Limits::npy_header_bytes,
  // plus 12 bytes of magic, version and length.
  const std::uint64_t most = limits().npy_header_bytes + 12;
  return zip.read_prefix(m, static_cast<std::size_t>(std::min(end, most)));
}

/// Elements of a DEFLATED member as loops read them (C order of the stored shape), in
/// native byte order.
struct DeflatedElements {
  ZipScatteredReader reader;
  std::uint64_t data_at = 0;  ///< where the data starts in the member (after the .npy header)
  std::size_t itemsize = 0;
  bool swap = false;

  DeflatedElements(std::shared_ptr<const ZipArchive> zip, const ZipMember& m, std::uint64_t at, std::size_t size,
                   bool sw)
      : reader(std::move(zip), m), data_at(at), itemsize(size), swap(sw) {}
  void read(std::int64_t i, std::byte* out) {
    reader.read(data_at + static_cast<std::uint64_t>(i) * itemsize, {out, itemsize});
    if (swap) std::reverse(out, out + itemsize);
  }
};

/// The entry of a DEFLATED member: the header inflated and parsed over a sparse stand-in
/// of the member, the data inflated at realize (element by element, or into the output
/// buffer by `fill`).
TensorEntry deflated_entry(const std::shared_ptr<ZipArchive>& zip, const ZipMember& m) {
  const std::string& name = zip->file()->name();
  const std::vector<std::byte> head = npy_prefix(*zip, m);
  LoadedFile inner = open_npy_member(MappedFile::sparse(head, m.size, name + ":" + m.name));
  TensorEntry entry = std::move(inner.tensors.at(0));
  if (!entry.dtype) {  // a dtype not shown: its load() says so, nothing is inflated
    entry.offset = m.data_offset;
    entry.note += std::string(entry.note.empty() ? "" : "; ") + zip_compressed_note(m);
    return entry;
  }

  const std::uint64_t data_at = entry.offset;
  const std::uint64_t nbytes = entry.nbytes;
  if (data_at + nbytes != m.size)
    throw Error(ErrorCode::BadFile, member_label(name, m) + " (data at byte " + std::to_string(m.data_offset) +
                                        ") declares " + std::to_string(m.size) + " bytes, but its header (" +
                                        std::to_string(data_at) + " bytes) and shape " + shape_repr(entry.shape) +
                                        " (" + std::to_string(nbytes) + " bytes) make " +
                                        std::to_string(data_at + nbytes));
  bool fortran = false;
  bool big_endian = false;
  for (const MetaEntry& meta : inner.metadata) {
    if (meta.key == "fortran_order" && meta.value.is_boolean()) fortran = meta.value.get<bool>();
    if (meta.key == "descr" && meta.value.is_string()) {
      const std::string d = meta.value.get<std::string>();
      big_endian = !d.empty() && (d[0] == '>' || d[0] == '!');
    }
  }
  const DType dtype = entry.dtype.value();
  const std::size_t itemsize = dtype_info(dtype).itemsize;
  const bool swap = itemsize > 1 && big_endian != (std::endian::native == std::endian::big);
  const bool column_major = fortran && entry.shape.size() > 1;
  const Shape stored_shape = entry.stored_order();

  entry.offset = m.data_offset;
  entry.note += std::string(entry.note.empty() ? "" : "; ") + zip_compressed_note(m);
  const ZipMember member = m;
  entry.details_for_write().loader = [zip, member, data_at, dtype, itemsize, stored_shape, swap, column_major]() {
    auto producer = std::make_shared<Producer>();
    producer->label = "inflate " + zip->file()->name() + ":" + member.name;
    if (member.size > kInflateWholeBytes) {
      auto elements = std::make_shared<DeflatedElements>(zip, member, data_at, itemsize, swap);
      producer->element = [elements, dtype](std::int64_t i) {
        std::byte b[16];
        elements->read(i, b);
        return load_scalar(dtype, b);
      };
    }
    producer->fill = [zip, member, data_at, itemsize, swap](std::span<std::byte> out) {
      zip->read_into(member, data_at, out, true);
      if (swap) swap_elements(out, itemsize);
    };
    Tensor t = Tensor::from_producer(producer, dtype, stored_shape);
    if (column_major) {
      std::vector<std::int64_t> order(stored_shape.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(order.size() - 1 - i);
      t = t.permute(order);
    }
    return t;
  };
  return entry;
}

}  // namespace

bool sniff_npz(std::span<const std::byte> head) {
  bool truncated = false;
  const std::string first = zip_first_name(head, &truncated);
  // A name cut off by the end of `head` could be either format: the extension decides.
  return sniff_zip(head) && !truncated && first.ends_with(".npy");
}

LoadedFile open_npz(std::shared_ptr<const MappedFile> file) {
  auto zip = std::make_shared<ZipArchive>(file);
  const std::string& name = file->name();
  LoadedFile loaded;
  loaded.path = name;
  loaded.format = "npz";
  loaded.file = file;
  // np.load's key for a member is its name less ".npy", but a member named exactly the key
  // wins the lookup (numpy/lib/npyio.py NpzFile.__getitem__): beside a member 'a',
  // 'a.npy' is reached only as np.load(...)['a.npy'], and is listed under that name.
  std::vector<std::string_view> exact;
  for (const ZipMember& m : zip->members())
    if (!m.name.ends_with(".npy")) exact.push_back(m.name);
  for (const ZipMember& m : zip->members()) {
    if (!m.name.ends_with(".npy")) {
      loaded.metadata.push_back({m.name, "skipped", "not a .npy member"});
      // np.load would list it (an array if it holds a .npy): say it is not shown.
      loaded.warnings.push_back(name + ": member '" + m.name +
                                "' is not named <key>.npy: skipped (np.load lists it as '" + m.name + "')");
      continue;
    }
    TensorEntry entry = m.stored ? stored_entry(file, m) : deflated_entry(zip, m);
    const std::string key = npz_key(m.name);
    entry.name = std::find(exact.begin(), exact.end(), key) == exact.end() ? key : m.name;
    loaded.tensors.push_back(std::move(entry));
  }
  return loaded;
}

}  // namespace tensor_inspect
