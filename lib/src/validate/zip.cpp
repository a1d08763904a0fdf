// validate/zip.cpp — zip archives of .npz and torch.save files (PKWARE APPNOTE, through
// libzip with its strict consistency checks): the central directory and every local
// header agree, member names are unique, methods are ones the format's readers know
// (NumPy's zipfile: STORED, DEFLATED, BZIP2, LZMA; torch.load: STORED, DEFLATED) and
// this tool's libzip reads, and every member's data decompresses to its declared size
// with its CRC-32. Then each member by the
// format's rules: an .npz's "*.npy" members as .npy files (another name is a warning); a torch.save archive has one
// "<archive>/data.pkl" (checked as a pickle), all members under that one folder.
// Offsets inside a member are relative to its uncompressed bytes.
#include <zip.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "loaders/zip_archive.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {
namespace {

constexpr std::uint64_t kMaxKept = std::uint64_t{256} << 20;  // members checked in memory up to this size

zip_t* open_zip(const std::shared_ptr<const MappedFile>& file, int flags, std::string* why) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = zip_source_buffer_create(file->bytes().data(), file->size(), 0, &err);
  zip_t* za = src ? zip_open_from_source(src, ZIP_RDONLY | flags, &err) : nullptr;
  if (!za) {
    *why = zip_error_strerror(&err);
    if (src) zip_source_free(src);
  }
  zip_error_fini(&err);
  return za;
}

// Reads the whole member (checking its CRC at the end); keeps its first `keep` bytes.
// Returns false with `why` on a read error.
/// True when the format's own readers know `method`: NumPy's zipfile, torch.load's miniz.
bool format_reads(const std::string& kind, std::uint16_t method) {
  if (method == ZIP_CM_STORE || method == ZIP_CM_DEFLATE) return true;
  return kind == "npz" && (method == ZIP_CM_BZIP2 || method == ZIP_CM_LZMA);
}

bool read_member(zip_t* za, zip_uint64_t index, std::uint64_t keep, std::vector<std::byte>& out, std::string* why) {
  zip_file_t* zf = zip_fopen_index(za, index, 0);
  if (!zf) {
    *why = zip_strerror(za);
    return false;
  }
  std::vector<std::byte> chunk(1 << 16);
  bool ok = true;
  for (;;) {
    const zip_int64_t got = zip_fread(zf, chunk.data(), chunk.size());
    if (got < 0) {
      *why = zip_file_strerror(zf);
      ok = false;
      break;
    }
    if (got == 0) break;
    const auto kept = static_cast<zip_int64_t>(std::min<std::uint64_t>(keep - std::min<std::uint64_t>(keep, out.size()),
                                                                      static_cast<std::uint64_t>(got)));
    out.insert(out.end(), chunk.begin(), chunk.begin() + kept);
  }
  zip_fclose(zf);
  return ok;
}

}  // namespace

void check_zip(const std::shared_ptr<const MappedFile>& file, const std::string& kind, Findings& f) {
  std::string why;
  zip_t* za = open_zip(file, ZIP_CHECKCONS, &why);
  if (!za) {
    f.error("zip", "archive", std::nullopt, "the zip structure is inconsistent (" + why + ")");
    za = open_zip(file, 0, &why);
    if (!za) return;
  }
  const zip_int64_t count = zip_get_num_entries(za, 0);
  std::set<std::string> names;
  std::set<std::string> folders;
  std::size_t pickles = 0;
  for (zip_int64_t i = 0; i < count; ++i) {
    const auto index = static_cast<zip_uint64_t>(i);
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za, index, ZIP_FL_ENC_RAW, &st) != 0 || !st.name) {
      f.error("zip", "member " + std::to_string(i), std::nullopt, std::string("cannot be read (") + zip_strerror(za) + ")");
      continue;
    }
    const std::string name = st.name;
    const std::string place = "member '" + name + "'";
    if (!names.insert(name).second) f.error("duplicate_member", place, std::nullopt, "the archive holds two members named '" + name + "'");
    const std::string method = "compression method " + std::to_string(st.comp_method) + " (" + zip_method_name(st.comp_method) + ")";
    if (!format_reads(kind, st.comp_method)) {
      const std::string readers = kind == "npz" ? "numpy reads STORED, DEFLATED, BZIP2 and LZMA members"
                                                : "torch.load reads STORED and DEFLATED members";
      if (kind == "npz" || !zip_method_readable(st.comp_method)) {
        f.error("method", place, std::nullopt, method + ": " + readers);
        continue;
      }
      f.warning("method", place, std::nullopt, method + ": " + readers + " (this tool reads it)");
    }
    if (!zip_method_readable(st.comp_method)) {
      f.warning("unsupported", place, std::nullopt, method + " is not supported by " + zip_library_name() +
                                                        ": the tool cannot open this member");
      continue;
    }
    const bool is_npy = kind == "npz" && name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0;
    const bool is_pickle = kind == "pytorch" && name.size() >= 8 && name.compare(name.size() - 8, 8, "data.pkl") == 0;
    if (kind == "pytorch") {
      folders.insert(name.substr(0, name.find('/')));
      pickles += is_pickle;
    }
    const bool keep = (is_npy || is_pickle) && st.size <= kMaxKept;
    std::vector<std::byte> bytes;
    if (!read_member(za, index, keep ? st.size : kind == "npz" ? 6 : 0, bytes, &why)) {
      f.error("crc", place, std::nullopt, "the member's data is corrupt (" + why + ")");
      continue;
    }
    // np.savez names every member <key>.npy; np.load lists any other under its full name
    // and gives an array if it starts with the .npy magic, else its bytes. The loader lists
    // *.npy members only: a warning, as the archive is readable but holds what is not shown.
    if (kind == "npz" && !is_npy) {
      const bool npy_bytes = bytes.size() == 6 && std::memcmp(bytes.data(), "\x93NUMPY", 6) == 0;
      f.warning("member_name", place, std::nullopt,
                "the member is not named <key>.npy: np.load gives it as '" + name + "' (" +
                    (npy_bytes ? "an array: it holds a .npy" : "its bytes, not an array") +
                    "), this tool skips it (np.savez writes only .npy members)");
    }
    Findings inner(f.all(), is_npy ? "npy" : "pickle", place);
    if (is_npy && keep) inner.checked([&] { check_npy(bytes, 0, inner); });
    if (is_pickle && keep) inner.checked([&] { check_pickle(bytes, 0, true, inner); });
  }
  if (kind == "pytorch") {
    if (pickles != 1)
      f.error("layout", "archive", std::nullopt, "the archive holds " + std::to_string(pickles) +
                                                     " data.pkl members (torch.save writes exactly one)");
    if (folders.size() > 1)
      f.error("layout", "archive", std::nullopt, "the members lie in " + std::to_string(folders.size()) +
                                                     " top folders (torch.save puts all under one)");
  }
  zip_discard(za);
}

}  // namespace tensor_inspect::validate
