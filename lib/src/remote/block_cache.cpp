// remote/block_cache.cpp — one cache entry on disk: opened, checked, replaced, read and
// written block by block (see block_cache.hpp); sizes and eviction in cache_dir.cpp.
#include "remote/block_cache.hpp"

#include <fcntl.h>
#include "log/log.hpp"
#include <sys/stat.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "remote/cache_dir.hpp"
#include "remote/remote_file.hpp"

namespace tensor_inspect {

namespace {

constexpr std::string_view kInfoMagic = "tensor-inspect block cache 1";
constexpr std::string_view kTag =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by tensor-inspect (--cache).\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n";
constexpr std::size_t kMaxInfo = 16 * 1024;  // a sound info file is a few hundred bytes
constexpr std::uint64_t kPage = 4096;

std::string hex64(std::uint64_t v) {
  char buf[17];
  for (int i = 15; i >= 0; --i, v >>= 4) buf[i] = "0123456789abcdef"[v & 15];
  buf[16] = '\0';
  return buf;
}

bool printable(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

bool parse_dec(std::string_view s, std::uint64_t& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

bool parse_hex(std::string_view s, std::uint64_t& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return s.size() == 16 && ec == std::errc() && end == s.data() + s.size();
}

std::uint64_t block_count(std::uint64_t size) { return (size + kRemoteBlock - 1) / kRemoteBlock; }

/// Writes or reads all of [p, p + n) at `offset`; false on an error or end of file.
bool pwrite_all(int fd, const std::byte* p, std::uint64_t n, std::uint64_t offset) {
  while (n > 0) {
    const ssize_t w =
        ::pwrite(fd, p, static_cast<std::size_t>(std::min<std::uint64_t>(n, 1 << 30)), static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= static_cast<std::uint64_t>(w), offset += static_cast<std::uint64_t>(w);
  }
  return true;
}
std::uint64_t pread_all(int fd, std::byte* p, std::uint64_t n, std::uint64_t offset) {
  std::uint64_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd, p + got, static_cast<std::size_t>(std::min<std::uint64_t>(n - got, 1 << 30)),
                              static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::uint64_t>(r);
  }
  return got;
}

std::uint64_t load_le64(const std::byte* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | std::to_integer<std::uint64_t>(p[i]);
  return v;
}
void store_le64(std::byte* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i, v >>= 8) p[i] = static_cast<std::byte>(v & 0xff);
}

}  // namespace

std::string format_cache_info(const CacheInfo& info) {
  return std::string(kInfoMagic) + "\nurl " + info.url + "\nurl_check " + hex64(info.url_check) + "\nvalidator " +
         info.validator + "\nsize " + std::to_string(info.size) + "\nblock " + std::to_string(info.block) + "\n";
}

std::optional<CacheInfo> parse_cache_info(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    if (nl == std::string_view::npos) return std::nullopt;  // every line ends in a newline
    lines.push_back(text.substr(0, nl));
    text.remove_prefix(nl + 1);
  }
  constexpr std::string_view keys[] = {"url ", "url_check ", "validator ", "size ", "block "};
  if (lines.size() != 6 || lines[0] != kInfoMagic) return std::nullopt;
  std::string_view v[5];
  for (std::size_t i = 0; i < 5; ++i) {
    if (lines[i + 1].substr(0, keys[i].size()) != keys[i] || !printable(lines[i + 1])) return std::nullopt;
    v[i] = lines[i + 1].substr(keys[i].size());
  }
  CacheInfo info;
  info.url = std::string(v[0]);
  info.validator = std::string(v[2]);
  if (!parse_hex(v[1], info.url_check) || info.validator.empty() || !parse_dec(v[3], info.size) ||
      !parse_dec(v[4], info.block) || info.size == 0 || info.block == 0)
    return std::nullopt;
  return info;
}

std::uint64_t cache_url_hash(std::string_view url, std::uint64_t seed) {
  return XXH3_64bits_withSeed(url.data(), url.size(), seed);
}

std::uint64_t cache_block_hash(const std::byte* data, std::size_t length) {
  const std::uint64_t h = XXH3_64bits(data, length);
  return h == 0 ? 1 : h;
}

std::string cache_validator(std::string_view etag, std::string_view last_modified) {
  if (!etag.empty()) return etag.substr(0, 2) != "W/" && printable(etag) ? "ETag " + std::string(etag) : std::string();
  return !last_modified.empty() && printable(last_modified) ? "Last-Modified " + std::string(last_modified)
                                                            : std::string();
}

std::string cache_condition(std::string_view validator) {
  if (validator.substr(0, 5) == "ETag ") return "If-None-Match: " + std::string(validator.substr(5));
  return "If-Modified-Since: " + std::string(validator.substr(validator.find(' ') + 1));
}

std::unique_ptr<BlockCache> BlockCache::open(const std::string& dir, std::uint64_t cap, const std::string& url,
                                             const std::string& name) {
  std::unique_ptr<BlockCache> c(new BlockCache());
  c->dir_ = dir, c->url_ = url, c->name_ = name, c->cap_ = cap;
  c->folder_ = hex64(cache_url_hash(url, 0));
  std::error_code ec;
  if (std::filesystem::create_directories(dir, ec) && !ec)
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);  // fetched bytes may be private
  c->dir_fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (c->dir_fd_ < 0) {
    lib_log().info("{}: --cache {}: {}; going on without the cache", name, dir,
                   ec ? ec.message() : std::strerror(errno));
    return nullptr;
  }
  // Whoever can write DIR can plant bytes under any URL (its hashes vouch for nothing then):
  // a folder of another user, or one anyone may write, is not used (pip has the same rule).
  struct stat st {};
  if (::fstat(c->dir_fd_, &st) != 0 || st.st_uid != ::geteuid())
    return c->off("the folder belongs to another user, who could plant bytes in it"), nullptr;
  if (st.st_mode & S_IWOTH) return c->off("anyone may write in the folder, and so plant bytes in it"), nullptr;
  const int tag = ::openat(c->dir_fd_, "CACHEDIR.TAG", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (tag >= 0) {
    const bool ok = pwrite_all(tag, reinterpret_cast<const std::byte*>(kTag.data()), kTag.size(), 0);
    ::close(tag);
    if (!ok) return c->off("cannot write CACHEDIR.TAG"), nullptr;
  } else if (errno != EEXIST) {
    return c->off(std::string("cannot write in it: ") + std::strerror(errno)), nullptr;
  }
  c->load_entry();
  return c;
}

BlockCache::~BlockCache() {
  close_entry();
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

void BlockCache::off(const std::string& why) {
  lib_log().info("{}: --cache {}: {}; going on without the cache", name_, dir_, why);
  close_entry();
  full_ = true;
}

void BlockCache::close_entry() {
  for (int* fd : {&data_fd_, &blocks_fd_, &entry_fd_})
    if (*fd >= 0) ::close(*fd), *fd = -1;
  slots_.clear();
  info_.reset();
}

bool BlockCache::load_entry() {
  entry_fd_ = ::openat(dir_fd_, folder_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (entry_fd_ < 0) {
    damaged_ = errno != ENOENT;  // something else under the entry's name
    return false;
  }
  auto fail = [&](const char* why) {
    lib_log().info("{}: --cache {}: the cached copy in {} is damaged ({}); it is discarded", name_, dir_, folder_, why);
    close_entry();
    damaged_ = true;
    return false;
  };
  const int info_fd = ::openat(entry_fd_, "info", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (info_fd < 0) return fail("no info file");
  std::string text(kMaxInfo + 1, '\0');
  text.resize(static_cast<std::size_t>(pread_all(info_fd, reinterpret_cast<std::byte*>(text.data()), text.size(), 0)));
  ::close(info_fd);
  info_ = parse_cache_info(text);
  if (!info_) return fail("info not readable");
  if (info_->url_check != cache_url_hash(url_, 1) || info_->block != kRemoteBlock)
    return fail("another URL or block size");
  struct stat st {};
  data_fd_ = ::openat(entry_fd_, "data", O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (data_fd_ < 0 || ::fstat(data_fd_, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::uint64_t>(st.st_size) != info_->size)
    return fail("data file missing or of the wrong length");
  const std::uint64_t n = block_count(info_->size);
  blocks_fd_ = ::openat(entry_fd_, "blocks", O_RDWR | O_NOFOLLOW | O_CLOEXEC);
  if (blocks_fd_ < 0 || ::fstat(blocks_fd_, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::uint64_t>(st.st_size) != 8 * n)
    return fail("block table missing or of the wrong length");
  std::vector<std::byte> table(static_cast<std::size_t>(8 * n));
  if (pread_all(blocks_fd_, table.data(), table.size(), 0) != table.size()) return fail("block table unreadable");
  slots_.resize(static_cast<std::size_t>(n));
  for (std::size_t b = 0; b < slots_.size(); ++b) slots_[b] = load_le64(table.data() + 8 * b);
  return true;
}

std::optional<BlockCache::Head> BlockCache::cached_head() {
  if (!info_ || !holds(0)) return std::nullopt;
  Head h{cache_condition(info_->validator), info_->size, {}};
  h.bytes.resize(static_cast<std::size_t>(std::min(info_->size, kRemoteBlock)));
  const std::uint64_t counted = bytes_read_;
  const bool ok = read(0, 0, h.bytes.data())[0];
  bytes_read_ = counted;  // counted by the caller only if the server says it is current
  if (!ok) return std::nullopt;
  return h;
}

void BlockCache::adopt(const std::string& validator, std::uint64_t size) {
  if (full_) return;
  if (validator.empty())
    return off("the server sends neither a strong ETag nor Last-Modified, so a copy could not be checked");
  if (size == 0) return close_entry();
  if (info_ && info_->validator == validator && info_->size == size) {
    ::futimens(blocks_fd_, nullptr);  // least recently used goes first
    return;
  }
  if (info_)
    lib_log().info("{}: the file changed on the server ({}, cached {}): the cached copy is replaced", name_, validator,
                   info_->validator);
  if (info_ || damaged_) {
    close_entry();
    const std::string gone = folder_ + ".gone." + std::to_string(::getpid());
    if (::renameat(dir_fd_, folder_.c_str(), dir_fd_, gone.c_str()) == 0) remove_cache_folder(dir_fd_, gone);
    else if (errno != ENOENT) return off("cannot replace " + folder_ + ": " + std::strerror(errno));
  }
  info_ = CacheInfo{display_url_for_cache(), cache_url_hash(url_, 1), validator, size, kRemoteBlock};
  if (!create_entry()) close_entry();
}

std::string BlockCache::display_url_for_cache() const {
  std::string s = name_;
  for (char& ch : s)
    if (ch < 0x20 || ch >= 0x7f) ch = '?';
  return s;
}

bool BlockCache::create_entry() {
  const std::string tmp = folder_ + ".new." + std::to_string(::getpid());
  remove_cache_folder(dir_fd_, tmp);  // left by a run of the same id that died
  if (::mkdirat(dir_fd_, tmp.c_str(), 0700) != 0)
    return off("cannot create an entry: " + std::string(std::strerror(errno))), false;
  auto fail = [&](const char* what) {
    const int err = errno;
    close_entry();
    remove_cache_folder(dir_fd_, tmp);
    off(std::string(what) + ": " + std::strerror(err));
    return false;
  };
  entry_fd_ = ::openat(dir_fd_, tmp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (entry_fd_ < 0) return fail("cannot open the new entry");
  const std::string text = format_cache_info(*info_);
  const int info_fd = ::openat(entry_fd_, "info", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  const bool info_ok =
      info_fd >= 0 && pwrite_all(info_fd, reinterpret_cast<const std::byte*>(text.data()), text.size(), 0);
  if (info_fd >= 0) ::close(info_fd);
  if (!info_ok) return fail("cannot write the entry's info");
  const std::uint64_t n = block_count(info_->size);
  data_fd_ = ::openat(entry_fd_, "data", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (data_fd_ < 0 || ::ftruncate(data_fd_, static_cast<off_t>(info_->size)) != 0)
    return fail("cannot create the data file");
  blocks_fd_ = ::openat(entry_fd_, "blocks", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (blocks_fd_ < 0 || ::ftruncate(blocks_fd_, static_cast<off_t>(8 * n)) != 0)
    return fail("cannot create the block table");
  if (::renameat(dir_fd_, tmp.c_str(), dir_fd_, folder_.c_str()) != 0) return fail("another run holds the entry");
  slots_.assign(static_cast<std::size_t>(n), 0);
  damaged_ = false;
  return true;
}

bool BlockCache::holds(std::uint64_t b) const { return data_fd_ >= 0 && b < slots_.size() && slots_[b] != 0; }

std::vector<bool> BlockCache::read_into(std::uint64_t first, std::uint64_t last, std::byte* to) {
  std::vector<bool> ok(static_cast<std::size_t>(last - first + 1), false);
  if (data_fd_ < 0) return ok;
  const std::uint64_t begin = first * kRemoteBlock, end = std::min(info_->size, (last + 1) * kRemoteBlock);
  const std::uint64_t got = pread_all(data_fd_, to, end - begin, begin);
  for (std::uint64_t b = first; b <= last; ++b) {
    const std::uint64_t at = b * kRemoteBlock, n = std::min(info_->size, at + kRemoteBlock) - at;
    const bool good =
        at + n <= begin + got && cache_block_hash(to + (at - begin), static_cast<std::size_t>(n)) == slots_[b];
    ok[b - first] = good;
    if (good) bytes_read_ += n;
    else slots_[b] = 0;  // fetched and written again
  }
  return ok;
}

std::uint64_t BlockCache::room(std::uint64_t want) {
  struct stat st {};
  std::uint64_t own = 0, own_inode = 0;
  if (::fstat(entry_fd_, &st) == 0) own += allocated_bytes(st), own_inode = static_cast<std::uint64_t>(st.st_ino);
  for (int fd : {data_fd_, blocks_fd_})
    if (::fstat(fd, &st) == 0) own += allocated_bytes(st);
  if (::fstatat(entry_fd_, "info", &st, AT_SYMLINK_NOFOLLOW) == 0) own += allocated_bytes(st);
  const auto left = [&] { return own + others_ < cap_ ? cap_ - own - others_ : 0; };
  if (scanned_ && left() >= want) return left();
  std::uint64_t fixed = 0;
  std::vector<CacheFolder> folders = cache_folders(dir_fd_, fixed);
  others_ = fixed;
  for (const CacheFolder& f : folders)
    if (f.inode != own_inode) others_ += f.bytes;
  scanned_ = true;
  for (const CacheFolder& f : folders) {
    if (left() >= want) break;
    if (f.inode == own_inode) continue;
    lib_log().debug("{}: --cache {}: evicting {} ({} bytes)", name_, dir_, f.name, f.bytes);
    remove_cache_folder(dir_fd_, f.name);
    others_ -= f.bytes;
  }
  return left();
}

void BlockCache::write_from(std::uint64_t first, std::uint64_t last, const std::byte* from) {
  if (data_fd_ < 0 || full_) return;
  // What storing blocks [first, first + n) may allocate: their pages, the pages of the block
  // table their slots reach, and a page of file-system metadata for each file.
  const auto pages = [](std::uint64_t bytes) { return (bytes + kPage - 1) / kPage * kPage; };
  const auto end_of = [&](std::uint64_t n) { return std::min(info_->size, (first + n) * kRemoteBlock); };
  const auto cost = [&](std::uint64_t n) { return pages(end_of(n) - first * kRemoteBlock) + pages(8 * n) + 2 * kPage; };
  const std::uint64_t blocks = last - first + 1;
  // Within the cap, the blocks that fit are kept, from the first: a run of fetched blocks
  // often spans a whole tensor, larger than the cap, and all or nothing kept one block.
  const std::uint64_t room = this->room(cost(blocks));
  std::uint64_t n = std::min(blocks, room / kRemoteBlock);
  while (n > 0 && cost(n) > room) --n;
  if (n < blocks) {
    lib_log().info("{}: --cache {}: the cached copy reached --cache-size ({} bytes); its further blocks are not cached",
                   name_, dir_, cap_);
    full_ = true;
  }
  if (n == 0) return;
  last = first + n - 1;
  // The slots are hashed from the bytes before they are written: were the bytes to change
  // meanwhile, the copy would fail its check and be fetched again, never pass with other bytes.
  std::vector<std::byte> table(static_cast<std::size_t>(8 * n));
  for (std::uint64_t b = first; b <= last; ++b) {
    const std::uint64_t at = b * kRemoteBlock, size = std::min(info_->size, at + kRemoteBlock) - at;
    store_le64(table.data() + 8 * (b - first),
               cache_block_hash(from + (at - first * kRemoteBlock), static_cast<std::size_t>(size)));
  }
  const std::uint64_t begin = first * kRemoteBlock, end = end_of(n);
  if (!pwrite_all(data_fd_, from, end - begin, begin))
    return off(std::string("cannot write: ") + std::strerror(errno));
  // The slots go after the bytes they vouch for; a slot whose bytes did not reach the disk
  // only fails its check later.
  for (std::uint64_t b = first; b <= last; ++b) slots_[b] = load_le64(table.data() + 8 * (b - first));
  if (!pwrite_all(blocks_fd_, table.data(), table.size(), 8 * first))
    return off(std::string("cannot write: ") + std::strerror(errno));
}

}  // namespace tensor_inspect
