// remote/cache_dir.cpp — sizes and eviction order of a block cache's folders (see cache_dir.hpp).
#include "remote/cache_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

namespace tensor_inspect {

namespace {

constexpr const char* kEntryFiles[] = {"info", "data", "blocks"};

std::int64_t mtime_ns(const struct stat& st) {
  return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + static_cast<std::int64_t>(st.st_mtim.tv_nsec);
}

bool all_of_class(std::string_view s, bool (*ok)(char)) { return !s.empty() && std::all_of(s.begin(), s.end(), ok); }

}  // namespace

bool is_cache_folder_name(std::string_view name) {
  if (name.size() < 16 ||
      !all_of_class(name.substr(0, 16), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
    return false;
  std::string_view rest = name.substr(16);
  if (rest.empty()) return true;
  for (std::string_view tag : {".new.", ".gone."})
    if (rest.substr(0, tag.size()) == tag)
      return all_of_class(rest.substr(tag.size()), [](char c) { return c >= '0' && c <= '9'; });
  return false;
}

std::vector<CacheFolder> cache_folders(int dir_fd, std::uint64_t& fixed) {
  std::vector<CacheFolder> out;
  fixed = 0;
  struct stat st {};
  if (::fstat(dir_fd, &st) == 0) fixed += allocated_bytes(st);
  const int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return out;
  DIR* d = ::fdopendir(fd);  // owns fd from here
  if (!d) {
    ::close(fd);
    return out;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISDIR(st.st_mode) || !is_cache_folder_name(name)) {
      fixed += allocated_bytes(st);
      continue;
    }
    CacheFolder f{name, allocated_bytes(st), mtime_ns(st), static_cast<std::uint64_t>(st.st_ino)};
    const int entry = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (entry >= 0) {
      for (const char* file : kEntryFiles) {
        if (::fstatat(entry, file, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        f.bytes += allocated_bytes(st);
        if (std::string_view(file) == "blocks") f.used_ns = mtime_ns(st);
      }
      ::close(entry);
    }
    out.push_back(std::move(f));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end(), [](const CacheFolder& a, const CacheFolder& b) {
    return a.used_ns != b.used_ns ? a.used_ns < b.used_ns : a.name < b.name;
  });
  return out;
}

void remove_cache_folder(int dir_fd, const std::string& name) {
  const int entry = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (entry < 0) return;
  for (const char* file : kEntryFiles) ::unlinkat(entry, file, 0);
  ::close(entry);
  ::unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR);  // fails, harmlessly, if anything else is inside
}

}  // namespace tensor_inspect
