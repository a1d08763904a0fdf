// loaders/zip_source.cpp — a libzip source over a remote MappedFile: each read libzip makes
// is fetched (MappedFile::fetch) before it is copied, so opening an archive over HTTP reads
// its end records and central directory, and a member only its own bytes.
//
// NOTE: an exception must not unwind through libzip's C frames, so a failed fetch is kept
// (pending_fetch_error) and reported as a read error to libzip; the archive code rethrows it
// with the URL and status once libzip returns (rethrow_fetch_error).
#include <zip.h>

#include <cstring>
#include <memory>
#include <optional>

#include "loaders/zip_archive.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

namespace {

thread_local std::optional<Error> pending_fetch_error;

struct SourceState {
  std::shared_ptr<const MappedFile> file;
  std::uint64_t pos = 0;
  int error = ZIP_ER_OK;
};

zip_int64_t callback(void* user, void* data, zip_uint64_t len, zip_source_cmd_t cmd) {
  auto* s = static_cast<SourceState*>(user);
  const std::uint64_t size = s->file->size();
  switch (cmd) {
    case ZIP_SOURCE_OPEN:
      s->pos = 0;
      return 0;
    case ZIP_SOURCE_READ: {
      const std::uint64_t n = std::min<std::uint64_t>(len, size - std::min(s->pos, size));
      try {
        s->file->fetch(s->pos, n);
      } catch (const Error& e) {
        pending_fetch_error = e;
        s->error = ZIP_ER_READ;
        return -1;
      }
      if (n) std::memcpy(data, s->file->bytes().data() + s->pos, static_cast<std::size_t>(n));
      s->pos += n;
      return static_cast<zip_int64_t>(n);
    }
    case ZIP_SOURCE_CLOSE:
      return 0;
    case ZIP_SOURCE_STAT: {
      auto* st = static_cast<zip_stat_t*>(data);
      zip_stat_init(st);
      st->size = size;
      st->valid |= ZIP_STAT_SIZE;
      return static_cast<zip_int64_t>(sizeof(zip_stat_t));
    }
    case ZIP_SOURCE_ERROR: {
      auto* codes = static_cast<int*>(data);
      codes[0] = s->error;
      codes[1] = 0;
      return static_cast<zip_int64_t>(2 * sizeof(int));
    }
    case ZIP_SOURCE_FREE:
      delete s;
      return 0;
    case ZIP_SOURCE_SEEK: {
      const auto* a = static_cast<const zip_source_args_seek_t*>(data);
      const auto base = static_cast<zip_int64_t>(a->whence == SEEK_SET ? 0 : a->whence == SEEK_CUR ? s->pos : size);
      const zip_int64_t to = base + a->offset;
      if (len < sizeof(zip_source_args_seek_t) || to < 0 || static_cast<std::uint64_t>(to) > size) {
        s->error = ZIP_ER_INVAL;
        return -1;
      }
      s->pos = static_cast<std::uint64_t>(to);
      return 0;
    }
    case ZIP_SOURCE_TELL:
      return static_cast<zip_int64_t>(s->pos);
    case ZIP_SOURCE_SUPPORTS:
      return ZIP_SOURCE_SUPPORTS_SEEKABLE;
    default:
      s->error = ZIP_ER_OPNOTSUPP;
      return -1;
  }
}

}  // namespace

zip_source_t* fetching_zip_source(std::shared_ptr<const MappedFile> file, zip_error_t* error) {
  auto* state = new SourceState{std::move(file)};
  zip_source_t* src = zip_source_function_create(callback, state, error);
  if (!src) delete state;
  return src;
}

void rethrow_fetch_error() {
  if (!pending_fetch_error) return;
  Error e = *pending_fetch_error;
  pending_fetch_error.reset();
  throw e;
}

}  // namespace tensor_inspect
