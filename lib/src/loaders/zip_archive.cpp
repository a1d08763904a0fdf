// loaders/zip_archive.cpp — libzip over a mapped file, plus the local-header offsets
// that libzip does not expose.
//
// Zip layout (PKWARE APPNOTE 6.3.x), as read here:
//   1. per member: local header "PK\x03\x04" (30 bytes: ... name length @26, extra length
//      @28), name, extra, data;
//   2. central directory: one "PK\x01\x02" entry (46 bytes + name + extra + comment) per
//      member, with method @10, sizes @20/@24, local header offset @42, and a zip64 extra
//      field (id 0x0001) holding the 64-bit values that are 0xFFFFFFFF in the entry;
//   3. end of central directory "PK\x05\x06" (22 bytes + comment, so within the last
//      65557 bytes), preceded by a zip64 locator "PK\x06\x07" when counts overflow.
#include "loaders/zip_archive.hpp"

#include <zlib.h>

#include <zip.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>

#include "loaders/byte_reader.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

constexpr std::uint32_t kLocalSig = 0x04034b50;
constexpr std::uint32_t kCentralSig = 0x02014b50;
constexpr std::uint32_t kEndSig = 0x06054b50;
constexpr std::uint32_t kEnd64LocatorSig = 0x07064b50;
constexpr std::uint32_t kEnd64Sig = 0x06064b50;
constexpr std::uint64_t kCentralEntryMin = 46;

zip_t* as_zip(void* p) { return static_cast<zip_t*>(p); }

std::uint32_t u32_at(std::span<const std::byte> b, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(b[at + i]) << (8 * i);
  return v;
}

/// Offset of the end-of-central-directory record, searched backwards over the
/// 22-byte record plus at most a 65535-byte comment.
std::uint64_t find_end_record(std::span<const std::byte> bytes, const std::string& name) {
  if (bytes.size() < 22)
    throw Error(ErrorCode::BadFile, name + ": not a valid zip archive (" + std::to_string(bytes.size()) +
                                        " bytes is shorter than the 22-byte end record)");
  const std::size_t last = bytes.size() - 22;
  const std::size_t first = last > 65535 ? last - 65535 : 0;
  for (std::size_t at = last + 1; at-- > first;)
    if (u32_at(bytes, at) == kEndSig) return at;
  throw Error(ErrorCode::BadFile, name + ": not a valid zip archive (no end of central directory record in the last " +
                                      std::to_string(bytes.size() - first) + " bytes)");
}

struct CentralDirectory {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  std::uint64_t entries = 0;
};

CentralDirectory read_end_records(std::span<const std::byte> bytes, const std::string& name) {
  const std::uint64_t end_at = find_end_record(bytes, name);
  ByteReader r(bytes, name);
  r.seek(end_at + 10, "end of central directory");
  CentralDirectory cd;
  cd.entries = r.u16le("central directory entry count");
  cd.size = r.u32le("central directory size");
  cd.offset = r.u32le("central directory offset");
  const bool zip64 = cd.entries == 0xFFFF || cd.size == 0xFFFFFFFF || cd.offset == 0xFFFFFFFF;
  if (zip64 && end_at >= 20) {
    ByteReader loc(bytes, name);
    loc.seek(end_at - 20, "zip64 locator");
    if (loc.u32le("zip64 locator signature") == kEnd64LocatorSig) {
      loc.skip(4, "zip64 locator disk");
      const std::uint64_t end64_at = loc.u64le("zip64 end record offset");
      ByteReader e(bytes, name);
      e.seek(std::min<std::uint64_t>(end64_at, bytes.size()), "zip64 end record");
      if (e.u32le("zip64 end record signature") != kEnd64Sig)
        e.fail_at("bad zip64 end of central directory signature", end64_at);
      e.skip(8 + 2 + 2 + 4 + 4 + 8, "zip64 end record");
      cd.entries = e.u64le("zip64 central directory entry count");
      cd.size = e.u64le("zip64 central directory size");
      cd.offset = e.u64le("zip64 central directory offset");
    }
  }
  if (cd.offset > bytes.size() || cd.size > bytes.size() - cd.offset)
    r.fail_at("central directory [" + std::to_string(cd.offset) + ", +" + std::to_string(cd.size) +
                  ") runs past the end of the file (" + std::to_string(bytes.size()) + " bytes)",
              end_at);
  if (cd.entries > limits().zip_members)
    r.fail_at(std::to_string(cd.entries) + " members are more than the limit of " +
                  std::to_string(limits().zip_members) + limit_hint("zip_members"),
              end_at, "zip_members");
  // Each entry takes at least 46 bytes: this caps the count before anything is reserved.
  if (cd.entries > cd.size / kCentralEntryMin)
    r.fail_at(std::to_string(cd.entries) + " central directory entries cannot fit in " + std::to_string(cd.size) +
                  " bytes",
              end_at);
  return cd;
}

/// Reads the zip64 extra field (id 0x0001) of a central entry into the fields that
/// were 0xFFFFFFFF, in the APPNOTE order: size, compressed size, local header offset.
void apply_zip64_extra(std::span<const std::byte> extra, ZipMember& m, std::uint64_t& local_at, bool need_size,
                       bool need_comp, bool need_offset, const std::string& name, std::uint64_t base) {
  ByteReader x(extra, name, base);
  while (x.remaining() >= 4) {
    const std::uint16_t id = x.u16le("extra field id");
    const std::uint16_t len = x.u16le("extra field length");
    ByteReader field(x.bytes(len, "extra field"), name, x.offset() - len);
    if (id != 0x0001) continue;
    if (need_size) m.size = field.u64le("zip64 size");
    if (need_comp) m.comp_size = field.u64le("zip64 compressed size");
    if (need_offset) local_at = field.u64le("zip64 local header offset");
    return;
  }
  if (need_size || need_comp || need_offset)
    x.fail("member '" + m.name + "': 0xFFFFFFFF size or offset without a zip64 extra field");
}

/// The members as the central directory lists them, with data offsets taken from each
/// member's local header and checked to lie inside the file.
std::vector<ZipMember> read_members(std::span<const std::byte> bytes, const std::string& name) {
  const CentralDirectory cd = read_end_records(bytes, name);
  ByteReader r(bytes.subspan(static_cast<std::size_t>(cd.offset), static_cast<std::size_t>(cd.size)), name,
               cd.offset);
  std::vector<ZipMember> members;
  members.reserve(static_cast<std::size_t>(cd.entries));
  for (std::uint64_t i = 0; i < cd.entries; ++i) {
    const std::uint64_t entry_at = r.offset();
    if (r.u32le("central directory signature") != kCentralSig)
      r.fail_at("bad central directory entry signature (entry " + std::to_string(i) + ")", entry_at);
    r.skip(6, "central directory entry");
    const std::uint16_t method = r.u16le("compression method");
    r.skip(8, "central directory entry");
    ZipMember m;
    m.index = i;
    m.stored = method == 0;
    m.method = method;
    m.comp_size = r.u32le("compressed size");
    m.size = r.u32le("uncompressed size");
    const std::uint16_t name_len = r.u16le("name length");
    const std::uint16_t extra_len = r.u16le("extra length");
    const std::uint16_t comment_len = r.u16le("comment length");
    r.skip(8, "central directory entry");
    std::uint64_t local_at = r.u32le("local header offset");
    m.name = r.string(name_len, "member name", 0xFFFF);
    const std::uint64_t extra_at = r.offset();
    apply_zip64_extra(r.bytes(extra_len, "extra field"), m, local_at, m.size == 0xFFFFFFFF,
                      m.comp_size == 0xFFFFFFFF, local_at == 0xFFFFFFFF, name, extra_at);
    r.skip(comment_len, "member comment");

    // The data follows the LOCAL header's name and extra field.
    ByteReader local(bytes, name);
    if (local_at > bytes.size() || bytes.size() - local_at < 30)
      r.fail_at("member '" + m.name + "': local header offset " + std::to_string(local_at) +
                    " is past the end of the file (" + std::to_string(bytes.size()) + " bytes)",
                entry_at);
    local.seek(local_at, "local header");
    if (local.u32le("local header signature") != kLocalSig)
      local.fail_at("member '" + m.name + "': bad local header signature", local_at);
    local.skip(22, "local header");
    const std::uint16_t local_name_len = local.u16le("local name length");
    const std::uint16_t local_extra_len = local.u16le("local extra length");
    m.data_offset = local_at + 30 + local_name_len + local_extra_len;
    if (m.data_offset > bytes.size() || m.comp_size > bytes.size() - m.data_offset)
      local.fail_at("member '" + m.name + "': data [" + std::to_string(m.data_offset) + ", +" +
                        std::to_string(m.comp_size) + ") runs past the end of the file (" +
                        std::to_string(bytes.size()) + " bytes)",
                    local_at);
    // Deflate cannot expand a byte to more than zip_ratio bytes: a larger declared size is
    // a lie, refused before anything is allocated for it. (BZIP2 and LZMA reach far more,
    // 600000:1 over zeros; their members are read as their bytes arrive, as all are.)
    const std::uint64_t ratio = limits().zip_ratio;
    if (method == 8 && m.size / ratio > m.comp_size)
      local.fail_at("member '" + m.name + "': declares " + std::to_string(m.size) + " bytes uncompressed from " +
                        std::to_string(m.comp_size) + " compressed, more than the ratio " + std::to_string(ratio) +
                        ":1 deflate can reach" + limit_hint("zip_ratio"),
                    local_at, "zip_ratio");
    if (m.stored && m.size != m.comp_size)
      local.fail_at("member '" + m.name + "': stored member declares " + std::to_string(m.size) +
                        " bytes uncompressed but " + std::to_string(m.comp_size) + " compressed",
                    local_at);
    members.push_back(std::move(m));
  }
  return members;
}

std::string libzip_error(int code) {
  zip_error_t err;
  zip_error_init_with_code(&err, code);
  std::string text = zip_error_strerror(&err);
  zip_error_fini(&err);
  return text;
}

/// An open member; closes on scope exit.
struct MemberReader {
  zip_file_t* f = nullptr;
  const std::string& file_name;
  const ZipMember& member;

  MemberReader(zip_t* za, const std::string& fname, const ZipMember& m) : file_name(fname), member(m) {
    check_member_method(file_name, m);
    f = zip_fopen_index(za, m.index, 0);
    if (!f) rethrow_fetch_error();
    if (!f)
      throw Error(ErrorCode::BadFile, file_name + ": member '" + m.name + "' at byte " + std::to_string(m.data_offset) +
                                          " cannot be read (" + zip_strerror(za) + ")");
  }
  ~MemberReader() { zip_fclose(f); }
  MemberReader(const MemberReader&) = delete;
  MemberReader& operator=(const MemberReader&) = delete;

  [[noreturn]] void fail(const std::string& what) const {
    rethrow_fetch_error();
    throw Error(ErrorCode::BadFile, file_name + ": member '" + member.name + "' (data at byte " +
                                        std::to_string(member.data_offset) + "): " + what);
  }
  /// Reads until `out` is full or the member ends; returns the bytes read.
  std::size_t read(std::span<std::byte> out) {
    std::size_t done = 0;
    while (done < out.size()) {
      const zip_int64_t got = zip_fread(f, out.data() + done, out.size() - done);
      if (got < 0) fail(std::string("corrupt data (") + zip_file_strerror(f) + ")");
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    return done;
  }
};

}  // namespace

bool sniff_zip(std::span<const std::byte> head) {
  return head.size() >= 4 && u32_at(head, 0) == kLocalSig;
}

std::string zip_first_name(std::span<const std::byte> head, bool* truncated) {
  *truncated = false;
  if (!sniff_zip(head) || head.size() < 30) return {};
  const std::size_t len = static_cast<std::size_t>(head[26]) | static_cast<std::size_t>(head[27]) << 8;
  const std::size_t have = std::min(len, head.size() - 30);
  *truncated = have < len;
  return std::string(reinterpret_cast<const char*>(head.data() + 30), have);
}

ZipArchive::ZipArchive(std::shared_ptr<const MappedFile> file) : file_(std::move(file)) {
  const std::string& name = file_->name();
  // The end records lie in the last 65557 bytes; the central directory is read as parsed.
  file_->fetch(file_->size() - std::min<std::uint64_t>(file_->size(), 65557), 65557);
  members_ = read_members(file_->bytes(), name);
  // libzip refuses duplicates too, but without naming them.
  std::set<std::string_view> seen;
  for (const ZipMember& m : members_)
    if (!seen.insert(m.name).second)
      throw Error(ErrorCode::BadFile, name + ": member '" + m.name + "' appears twice (second at byte " +
                                          std::to_string(m.data_offset) + ")");

  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* src = file_->is_remote() ? fetching_zip_source(file_, &err)
                                         : zip_source_buffer_create(file_->bytes().data(), file_->size(), 0, &err);
  if (!src) {
    std::string text = zip_error_strerror(&err);
    zip_error_fini(&err);
    throw Error(ErrorCode::Internal, name + ": libzip cannot make a buffer source (" + text + ")");
  }
  zip_t* za = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
  if (!za) {
    std::string text = zip_error_strerror(&err);
    zip_error_fini(&err);
    zip_source_free(src);
    rethrow_fetch_error();
    throw Error(ErrorCode::BadFile, name + ": not a valid zip archive (" + text + ")");
  }
  zip_error_fini(&err);
  // NOTE: a constructor that throws runs no destructor, so the archive is owned by a
  // guard until every check passed; it leaked on each inconsistent archive before.
  std::unique_ptr<zip_t, void (*)(zip_t*)> guard(za, [](zip_t* z) { zip_discard(z); });

  // libzip and our own walk must agree on the members, index by index.
  const zip_int64_t count = zip_get_num_entries(za, 0);
  if (count < 0 || static_cast<std::uint64_t>(count) != members_.size())
    throw Error(ErrorCode::BadFile, name + ": central directory lists " + std::to_string(members_.size()) +
                                        " members but libzip reads " + std::to_string(count));
  for (ZipMember& m : members_) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(za, m.index, ZIP_FL_ENC_RAW, &st) != 0 || !st.name || m.name != st.name ||
        st.size != m.size || st.comp_size != m.comp_size)
      throw Error(ErrorCode::BadFile, name + ": member '" + m.name + "' at byte " + std::to_string(m.data_offset) +
                                          " is inconsistent between the central directory and libzip (" +
                                          zip_strerror(za) + ")");
    m.crc = static_cast<std::uint32_t>(st.crc);
  }
  (void)libzip_error;
  zip_ = guard.release();
}

ZipArchive::~ZipArchive() {
  if (zip_) zip_discard(as_zip(zip_));  // read-only: discard, never write back
}

const ZipMember* ZipArchive::find(std::string_view name) const {
  for (const ZipMember& m : members_)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::byte> ZipArchive::read_prefix(const ZipMember& member, std::size_t n) const {
  std::vector<std::byte> out(static_cast<std::size_t>(std::min<std::uint64_t>(n, member.size)));
  MemberReader reader(as_zip(zip_), file_->name(), member);
  const std::size_t got = reader.read(out);
  if (got < out.size())
    reader.fail("ends after " + std::to_string(got) + " bytes, but declares " + std::to_string(member.size));
  return out;
}

std::vector<std::byte> ZipArchive::read_all(const ZipMember& member) const {
  MemberReader reader(as_zip(zip_), file_->name(), member);
  std::vector<std::byte> out;
  // Room for what the compressed bytes can hold at the deflate ratio (all of a DEFLATED
  // member, whose declared size was checked against it): growing by copies would hold the
  // member twice. Pages of the reservation cost memory only once written.
  const std::uint64_t most =
      member.comp_size > UINT64_MAX / limits().zip_ratio ? member.size : member.comp_size * limits().zip_ratio;
  out.reserve(static_cast<std::size_t>(std::min(member.size, most)));
  std::size_t chunk = 1 << 16;
  while (out.size() < member.size) {
    const std::size_t at = out.size();
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, member.size - at));
    out.resize(at + n);
    const std::size_t got = reader.read({out.data() + at, n});
    if (got < n)
      reader.fail("ends after " + std::to_string(at + got) + " bytes, but declares " + std::to_string(member.size));
    chunk = std::min<std::size_t>(chunk * 2, std::size_t{1} << 22);
    file_->release_pages(member.data_offset, member.comp_size);  // the compressed pages read: not kept as well
  }
  // One more read: libzip checks the CRC when it reaches the end, and nothing may follow.
  std::byte extra[1];
  try {
    if (reader.read(extra) != 0) reader.fail("holds more than its declared " + std::to_string(member.size) + " bytes");
  } catch (const Error&) {
    check_member_crc(file_->name(), member, zip_crc32(out));  // a CRC mismatch in our words, both CRCs
    throw;
  }
  return out;
}

void ZipArchive::read_into(const ZipMember& member, std::uint64_t skip, std::span<std::byte> out, bool to_end) const {
  if (skip > member.size || out.size() > member.size - skip)
    throw Error(ErrorCode::BadFile, file_->name() + ": member '" + member.name + "' (data at byte " +
                                        std::to_string(member.data_offset) + "): bytes [" + std::to_string(skip) +
                                        ", +" + std::to_string(out.size()) + ") are past its declared size " +
                                        std::to_string(member.size));
  if (to_end && skip + out.size() != member.size)
    throw Error(ErrorCode::BadFile, file_->name() + ": member '" + member.name + "' (data at byte " +
                                        std::to_string(member.data_offset) + "): declares " +
                                        std::to_string(member.size) + " bytes, but " + std::to_string(skip) +
                                        " + " + std::to_string(out.size()) + " are expected");
  MemberReader reader(as_zip(zip_), file_->name(), member);
  // Skip through a small scratch buffer: the skipped part is a header, never the data.
  std::byte scratch[4096];
  std::uint64_t left = skip;
  while (left > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, sizeof scratch));
    if (reader.read({scratch, n}) != n)
      reader.fail("ends before byte " + std::to_string(skip) + " of " + std::to_string(member.size));
    left -= n;
  }
  const std::size_t got = reader.read(out);
  if (got != out.size())
    reader.fail("ends after " + std::to_string(skip + got) + " bytes, but declares " + std::to_string(member.size));
  if (to_end) {
    // One more read: libzip checks the CRC when it reaches the end, and nothing may follow.
    std::byte extra[1];
    try {
      if (reader.read(extra) != 0)
        reader.fail("holds more than its declared " + std::to_string(member.size) + " bytes");
    } catch (const Error&) {
      // A CRC mismatch in our words, with both CRCs: the skipped header read again (small).
      const std::vector<std::byte> head = read_prefix(member, static_cast<std::size_t>(skip));
      const auto crc =
          static_cast<std::uint32_t>(crc32_combine(zip_crc32(head), zip_crc32(out), static_cast<z_off_t>(out.size())));
      check_member_crc(file_->name(), member, crc);
      throw;
    }
  }
}

}  // namespace tensor_inspect
