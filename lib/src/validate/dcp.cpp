// validate/dcp.cpp — a torch.distributed.checkpoint folder's .metadata and the .distcp files
// it names (loaders/dcp.cpp). The metadata by the loader's own decoder collecting every
// fault: a class outside the allow-list (dcp.class), fields of the wrong kind
// (dcp.structure), an unknown dtype (dcp.dtype), offsets and sizes that are not sizes or do
// not match the tensor's dims (dcp.shape), chunks past their tensor (dcp.chunk_bounds),
// sharing elements (dcp.chunk_overlap) or leaving some unheld (dcp.coverage), a chunk that
// storage_data does not place (dcp.storage_missing), a relative_path leaving the folder
// (dcp.storage_path), caps (dcp.limit); transformed storage is a note. Then each chunk's
// storage: its file there (dcp.file_missing), its bytes inside it (dcp.storage_range), not
// shared with another chunk's (dcp.storage_overlap), and a torch.save archive of one tensor
// of the chunk's sizes and dtype (dcp.chunk_payload); a non-tensor item's bytes the same way,
// but for their payload (a pickle this tool never runs).
#include <algorithm>
#include <map>

#include "loaders/dcp_load.hpp"
#include "loaders/dcp_metadata.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {

namespace {

struct DcpSpan {
  std::uint64_t offset, end;
  std::string place;
};

}  // namespace

void check_dcp(const std::shared_ptr<const MappedFile>& file, Findings& f) {
  const DcpFaultSink sink = [&f](const DcpFault& x) {
    if (x.unsupported) f.note("unsupported", x.place, x.at, x.message);
    else f.error(x.rule, x.place, x.at, x.message);
  };
  const DcpMetadata m = parse_dcp_metadata(file->bytes(), file->name(), sink);
  const std::string& name = file->name();
  const std::filesystem::path dir =
      std::filesystem::path(file->location().empty() ? name : file->location()).parent_path();
  auto folder = std::make_shared<DcpFolder>(name, dir);
  std::map<std::string, std::vector<DcpSpan>> spans;  // by file
  std::map<std::string, bool> missing;
  for (const DcpTensor& t : m.tensors)
    for (std::size_t i = 0; i < t.chunks.size(); ++i) {
      if (!t.chunks[i].storage || t.chunks[i].storage->transformed) continue;
      const DcpStorage& s = *t.chunks[i].storage;
      const std::string place = "tensor '" + t.fqn + "' chunk " + std::to_string(i);
      std::shared_ptr<const MappedFile> distcp;
      try {
        distcp = folder->file(s.relative_path);
      } catch (const Error& e) {
        if (!missing[s.relative_path])  // once per file
          f.error("file_missing", place, s.at, "its file '" + s.relative_path + "' cannot be read (" + e.what() + ")");
        missing[s.relative_path] = true;
        continue;
      }
      if (s.offset > distcp->size() || s.length > distcp->size() - s.offset) {
        f.error("storage_range", place, s.at,
                "bytes " + std::to_string(s.offset) + " to " + std::to_string(s.offset + s.length) + " of '" +
                    s.relative_path + "' reach past its end (" + std::to_string(distcp->size()) + " bytes)");
        continue;
      }
      spans[s.relative_path].push_back({s.offset, s.offset + s.length, place});
      try {
        (void)folder->chunk_entry(t, i);
      } catch (const Error& e) {
        if (e.code() == ErrorCode::Unsupported) f.note("unsupported", place, s.at, e.what());
        else f.error("chunk_payload", place, s.at, e.what());
      }
    }
  for (const DcpBytes& b : m.bytes_entries) {
    if (!b.storage || b.storage->transformed) continue;
    const DcpStorage& s = *b.storage;
    const std::string place = "item '" + b.fqn + "'";
    try {
      const std::shared_ptr<const MappedFile> distcp = folder->file(s.relative_path);
      if (s.offset > distcp->size() || s.length > distcp->size() - s.offset)
        f.error("storage_range", place, s.at,
                "bytes " + std::to_string(s.offset) + " to " + std::to_string(s.offset + s.length) + " of '" +
                    s.relative_path + "' reach past its end (" + std::to_string(distcp->size()) + " bytes)");
      else
        spans[s.relative_path].push_back({s.offset, s.offset + s.length, place});
    } catch (const Error& e) {
      if (!missing[s.relative_path])
        f.error("file_missing", place, s.at, "its file '" + s.relative_path + "' cannot be read (" + e.what() + ")");
      missing[s.relative_path] = true;
    }
  }
  for (auto& [path, list] : spans) {
    std::sort(list.begin(), list.end(), [](const DcpSpan& a, const DcpSpan& b) { return a.offset < b.offset; });
    for (std::size_t i = 1; i < list.size(); ++i)
      if (list[i].offset < list[i - 1].end && list[i].offset < list[i].end)
        f.error("storage_overlap", list[i].place, std::nullopt,
                "its bytes " + std::to_string(list[i].offset) + " to " + std::to_string(list[i].end) + " of '" + path +
                    "' overlap those of " + list[i - 1].place + " (" + std::to_string(list[i - 1].offset) + " to " +
                    std::to_string(list[i - 1].end) + ")");
  }
}

}  // namespace tensor_inspect::validate
