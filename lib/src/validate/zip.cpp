// validate/zip.cpp — zip archives of .npz and torch.save files (PKWARE APPNOTE, through
// libzip with its strict consistency checks): the central directory and every local
// header agree, member names are unique, methods are ones the format's readers know
// (NumPy's zipfile: STORED, DEFLATED, BZIP2, LZMA; torch.load: STORED, DEFLATED) and
// this tool's libzip reads, and every member's data decompresses to its declared size
// with its CRC-32. Then each member by the format's rules: an .npz's "*.npy" members as
// .npy files (another name is a warning); a torch.save archive has one
// "<archive>/data.pkl" (checked as a pickle), all members under that one folder.
// Offsets inside a member are relative to its uncompressed bytes.
//
// Members are read front to back in 64 KiB chunks, keeping only what the rules read: a
// .npy member's header (the data is checked by its length, over a sparse stand-in), the
// pickle (it must be in memory to be walked, up to Limits::pickle_bytes), 6 bytes of any
// other .npz member. File pages read are dropped behind, so memory stays a few MiB
// whatever the members' sizes.
#include <zip.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "loaders/formats.hpp"
#include "loaders/zip_archive.hpp"
#include "tensor_inspect/limits.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {
namespace {

constexpr std::uint64_t kReleaseEvery = std::uint64_t{4} << 20;  // bytes read between dropping file pages

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

/// What reading a member front to back found.
struct MemberRead {
  std::vector<std::byte> head;  ///< its first `keep` bytes
  std::uint64_t length = 0;     ///< bytes it decompressed to (at most a chunk past its declared size)
  std::string fault;            ///< why its data is corrupt, or empty
};

// Reads the whole member (libzip checks its CRC at the end) in chunks, keeping its first
// `keep` bytes; stops within a chunk past the declared size, so a member that inflates to
// more than it declares costs no more time than it declares.
MemberRead read_member(zip_t* za, const MappedFile& file, const zip_stat_t& st, std::uint64_t keep) {
  MemberRead m;
  zip_file_t* zf = zip_fopen_index(za, st.index, 0);
  if (!zf) {
    m.fault = zip_strerror(za);
    return m;
  }
  std::vector<std::byte> chunk(1 << 16);
  uLong crc = crc32(0L, Z_NULL, 0);
  std::uint64_t released_at = 0;
  while (m.length <= st.size) {
    const zip_int64_t got = zip_fread(zf, chunk.data(), chunk.size());
    if (got < 0) {
      char text[96];
      std::snprintf(text, sizeof text, "CRC-32 of the data is 0x%08lx, the archive declares 0x%08x", crc,
                    static_cast<unsigned>(st.crc));
      m.fault = m.length == st.size && crc != st.crc ? std::string(text) : std::string(zip_file_strerror(zf));
      break;
    }
    if (got == 0) break;
    const auto n = static_cast<std::size_t>(got);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<uInt>(n));
    const std::size_t kept =
        static_cast<std::size_t>(std::min<std::uint64_t>(keep - std::min<std::uint64_t>(keep, m.head.size()), n));
    m.head.insert(m.head.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(kept));
    m.length += n;
    // NOTE: where libzip is in the file is not known here; dropping every page it may
    // still read only costs it a page fault from the page cache.
    if (m.length - released_at >= kReleaseEvery) {
      file.release_pages(0, file.size());
      released_at = m.length;
    }
  }
  zip_fclose(zf);
  file.release_pages(0, file.size());
  if (m.fault.empty() && m.length != st.size)
    m.fault = "it decompresses to " + std::string(m.length > st.size ? "more than " : "") +
              std::to_string(std::min(m.length, st.size)) + " bytes, the archive declares " + std::to_string(st.size);
  return m;
}

/// The .npy rules over a member of which only `m.head` was kept: the header there, the
/// data by its length (a sparse stand-in of the member, which costs no memory).
void check_npy_member(const MemberRead& m, const std::string& name, Findings& inner) {
  const std::uint64_t end = npy_header_end(m.head);
  if (end > m.head.size() && end <= m.length) {
    inner.note("unsupported", "header", 8,
               "the header of " + std::to_string(end) + " bytes is over the limit of " +
                   std::to_string(limits().npy_header_bytes) + limit_hint("npy_header_bytes"));
    return;
  }
  const auto stand_in = MappedFile::sparse(m.head, m.length, name);
  check_npy(stand_in->bytes(), 0, inner);
}

/// True when the format's own readers know `method`: NumPy's zipfile, torch.load's miniz.
bool format_reads(const std::string& kind, std::uint16_t method) {
  if (method == ZIP_CM_STORE || method == ZIP_CM_DEFLATE) return true;
  return kind == "npz" && (method == ZIP_CM_BZIP2 || method == ZIP_CM_LZMA);
}

}  // namespace

void check_zip(const std::shared_ptr<const MappedFile>& file, const std::string& kind, Findings& f) {
  // libzip takes an empty file for an empty archive; every zip ends in a 22-byte end record
  // (APPNOTE 4.3.16), and the loader refuses a file without room for one in these words.
  if (file->size() < 22) {
    f.error("zip", "archive", std::nullopt, "not a valid zip archive (" + std::to_string(file->size()) +
                                                " bytes is shorter than the 22-byte end record)");
    return;
  }
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
      f.error("zip", "member " + std::to_string(i), std::nullopt,
              std::string("cannot be read (") + zip_strerror(za) + ")");
      continue;
    }
    const std::string name = st.name;
    const std::string place = "member '" + name + "'";
    if (!names.insert(name).second)
      f.error("duplicate_member", place, std::nullopt, "the archive holds two members named '" + name + "'");
    const bool is_npy = kind == "npz" && name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0;
    const bool is_pickle = kind == "pytorch" && name.size() >= 8 && name.compare(name.size() - 8, 8, "data.pkl") == 0;
    if (kind == "pytorch") {
      folders.insert(name.substr(0, name.find('/')));
      pickles += is_pickle;
    }
    const std::string method =
        "compression method " + std::to_string(st.comp_method) + " (" + zip_method_name(st.comp_method) + ")";
    if (!format_reads(kind, st.comp_method)) {
      const std::string readers = kind == "npz"     ? "numpy reads STORED, DEFLATED, BZIP2 and LZMA members"
                                  : kind == "keras" ? "Keras writes STORED members"
                                                    : "torch.load reads STORED and DEFLATED members";
      if (kind == "npz" || !zip_method_readable(st.comp_method)) {
        f.error("method", place, std::nullopt, method + ": " + readers);
        continue;
      }
      f.warning("method", place, std::nullopt, method + ": " + readers + " (this tool reads it)");
    }
    if (!zip_method_readable(st.comp_method)) {
      f.note("unsupported", place, std::nullopt, method + " is not supported by " + zip_library_name() +
                                                        ": the tool cannot open this member");
      continue;
    }
    // A pickle is read whole, as the loader reads it; the loader refuses a larger one.
    if (is_pickle && st.size > limits().pickle_bytes) {
      f.note("unsupported", place, std::nullopt,
             "the pickle of " + std::to_string(st.size) + " bytes is over the limit of " +
                 std::to_string(limits().pickle_bytes) + limit_hint("pickle_bytes"));
    }
    const bool whole_pickle = is_pickle && st.size <= limits().pickle_bytes;
    const std::uint64_t keep = whole_pickle ? st.size : is_npy ? limits().npy_header_bytes + 12 : kind == "npz" ? 6 : 0;
    const MemberRead m = read_member(za, *file, st, keep);
    if (!m.fault.empty()) {
      f.error("crc", place, std::nullopt, "the member's data is corrupt (" + m.fault + ")");
      continue;
    }
    // np.savez names every member <key>.npy; np.load lists any other under its full name
    // and gives an array if it starts with the .npy magic, else its bytes. The loader lists
    // *.npy members only: a warning, as the archive is readable but holds what is not shown.
    if (kind == "npz" && !is_npy) {
      const bool npy_bytes = m.head.size() == 6 && std::memcmp(m.head.data(), "\x93NUMPY", 6) == 0;
      f.warning("member_name", place, std::nullopt,
                "the member is not named <key>.npy: np.load gives it as '" + name + "' (" +
                    (npy_bytes ? "an array: it holds a .npy" : "its bytes, not an array") +
                    "), this tool skips it (np.savez writes only .npy members)");
    }
    Findings inner(f.all(), is_npy ? "npy" : "pickle", place);
    if (is_npy) inner.checked([&] { check_npy_member(m, file->name() + ":" + name, inner); });
    if (whole_pickle) inner.checked([&] { check_pickle(m.head, 0, true, inner); });
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
