// loaders/zip_method.cpp — zip compression methods: their APPNOTE names (section 4.4.5) and
// whether the libzip this tool loaded decompresses them (Debian's libzip4 1.7 reads
// STORED, DEFLATED and BZIP2 but not LZMA; later builds add LZMA, XZ and ZSTD).
#include <zip.h>

#include "loaders/zip_archive.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

std::string zip_method_name(std::uint16_t method) {
  switch (method) {
    case 0: return "STORED";
    case 8: return "DEFLATED";
    case 9: return "DEFLATE64";
    case 12: return "BZIP2";
    case 14: return "LZMA";
    case 93: return "ZSTD";
    case 95: return "XZ";
    case 98: return "PPMD";
    default: return "unknown";
  }
}

bool zip_method_readable(std::uint16_t method) {
  if (method == 0) return true;
  try {
    return zip_compression_method_supported(static_cast<zip_int32_t>(method), 0) != 0;
  } catch (const Error&) {  // a libzip before 1.7 has no such function: it reads deflate
    return method == 8;
  }
}

std::string zip_compressed_note(const ZipMember& member) {
  return member.method == 8 ? "deflated, inflated at realize"
                            : zip_method_name(member.method) + "-compressed, decompressed at realize";
}

void check_member_method(const std::string& file, const ZipMember& member) {
  if (zip_method_readable(member.method)) return;
  throw Error(ErrorCode::Unsupported, file + ": member '" + member.name + "' (data at byte " +
                                          std::to_string(member.data_offset) + "): compression method " +
                                          std::to_string(member.method) + " (" + zip_method_name(member.method) +
                                          ") is not supported by " + zip_library_name() +
                                          " (STORED and DEFLATED members are)");
}

}  // namespace tensor_inspect
