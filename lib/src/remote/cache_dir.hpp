// remote/cache_dir.hpp — the folder of a block cache as a whole: what its entries occupy
// on disk and which to evict first (remote/block_cache.hpp describes one entry).
//
//   std::uint64_t fixed = 0;
//   std::vector<CacheFolder> folders = cache_folders(dir_fd, fixed);  // oldest first
//   remove_cache_folder(dir_fd, folders[0].name);
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tensor_inspect {

/// Bytes the file system allocated for a file (st_blocks, in 512-byte units): what du counts.
inline std::uint64_t allocated_bytes(const struct stat& st) { return static_cast<std::uint64_t>(st.st_blocks) * 512; }

/// True for a folder name the cache makes: 16 lowercase hex digits, optionally followed by
/// `.new.N` (being created) or `.gone.N` (being removed), N a process id. Nothing else in DIR
/// is ever removed.
bool is_cache_folder_name(std::string_view name);

/// One entry folder of the cache, as eviction sees it.
struct CacheFolder {
  std::string name;
  std::uint64_t bytes = 0;     ///< allocated bytes of the folder and its files
  std::int64_t used_ns = 0;    ///< mtime of its `blocks` file (touched on use), else of the folder
  std::uint64_t inode = 0;     ///< the folder's inode (tells the entry in use)
};

/// The cache's folders in `dir_fd`, least recently used first; `fixed` gets the allocated
/// bytes of everything else du would count at the top (DIR itself, CACHEDIR.TAG, other files).
std::vector<CacheFolder> cache_folders(int dir_fd, std::uint64_t& fixed);

/// Removes the folder `name` of `dir_fd`: its `info`, `data` and `blocks` files, then the
/// folder if that left it empty. Never follows a link, never touches another name.
void remove_cache_folder(int dir_fd, const std::string& name);

}  // namespace tensor_inspect
