// loaders/registry.cpp — the one table of formats, and detection: magic bytes first,
// then the extension; an explicit format name overrides both.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include <chrono>

#include "log/log.hpp"

#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

const std::vector<FormatInfo>& formats() {
  // One row per format, in detection order.
  static const std::vector<FormatInfo> table = {
      {"npy", {".npy"}, sniff_npy, open_npy, nullptr},
      {"gguf", {".gguf"}, sniff_gguf, open_gguf, list_gguf},
      {"safetensors", {".safetensors"}, sniff_safetensors, open_safetensors, nullptr},
      {"safetensors-index", {".index.json"}, sniff_safetensors_index, open_safetensors_index, nullptr},
      {"dcp", {".metadata"}, sniff_dcp, open_dcp, nullptr},
      {"pytorch", {".pt", ".pth", ".ckpt"}, sniff_pytorch, open_pytorch, nullptr},
      {"npz", {".npz"}, sniff_npz, open_npz, nullptr},
      {"hdf5", {".h5", ".hdf5"}, sniff_hdf5, open_hdf5, nullptr},
      {"keras", {".keras"}, sniff_keras, open_keras, nullptr},
      {"onnx", {".onnx"}, sniff_onnx, open_onnx, nullptr},
  };
  return table;
}

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool has_extension(const std::string& path, const FormatInfo& info) {
  const std::string p = lower(path);
  return std::any_of(info.extensions.begin(), info.extensions.end(), [&](std::string_view ext) {
    return p.size() >= ext.size() && p.compare(p.size() - ext.size(), ext.size(), ext) == 0;
  });
}

// "93 4e 55 4d 50 59 01 00 ..." for messages: at most 8 bytes.
std::string first_bytes(std::span<const std::byte> bytes) {
  if (bytes.empty()) return "the file is empty";
  std::string out = "first bytes:";
  const std::size_t n = std::min<std::size_t>(bytes.size(), 8);
  for (std::size_t i = 0; i < n; ++i) {
    char hex[4];
    std::snprintf(hex, sizeof hex, " %02x", static_cast<unsigned>(bytes[i]));
    out += hex;
  }
  if (bytes.size() > n) out += " ...";
  return out;
}

/// A forced format whose magic bytes do not match, where another format's do, is refused
/// naming what the file looks like: reading a torch.save zip as .npz would list nothing.
void check_forced_fits(const FormatInfo& info, const std::shared_ptr<const MappedFile>& file) {
  const std::span<const std::byte> head = file->bytes().first(std::min<std::size_t>(file->size(), 64));
  if (info.sniff(head)) return;
  for (const FormatInfo& other : formats())
    if (&other != &info && other.sniff(head))
      throw Error(ErrorCode::BadFile, file->name() + ": --format " + std::string(info.name) +
                                          " does not fit: the file looks like " + std::string(other.name) + " (" +
                                          first_bytes(file->bytes()) + ")");
}

LoadedFile open_with(const FormatInfo& info, const std::shared_ptr<const MappedFile>& file, bool listing = false) {
  const auto start = std::chrono::steady_clock::now();
  LoadedFile loaded = listing && info.list ? info.list(file) : info.open(file);
  if (loaded.format.empty()) loaded.format = std::string(info.name);  // an index of .bin shards says "pytorch-index"
  loaded.file = file;
  const std::size_t nt = loaded.rows ? loaded.rows->size() : loaded.tensors.size(), nm = loaded.metadata.size();
  lib_log().info("{}: {} format, {} tensor{}, {} metadata entr{}, {} bytes; header parsed in {:.3f} ms", file->name(),
                 info.name, nt, nt == 1 ? "" : "s", nm, nm == 1 ? "y" : "ies", file->size(),
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  return loaded;
}

}  // namespace

namespace {

LoadedFile open_file_for(const std::string& path, const std::optional<std::string>& format, bool listing) {
  const std::vector<FormatInfo>& table = formats();
  const FormatInfo* forced = nullptr;
  if (format) {
    for (const FormatInfo& info : table)
      if (info.name == *format) forced = &info;
    if (!forced) {
      std::string known;
      for (const FormatInfo& info : table) known += (known.empty() ? "" : ", ") + std::string(info.name);
      throw Error(ErrorCode::Usage, "unknown format '" + *format + "' (known: " + known + ")");
    }
  }

  // The error_code form: a path the OS cannot resolve (a symlink loop, a name too long)
  // is not a folder, and MappedFile::open below says why in its one Io line.
  std::error_code not_a_folder;
  if (!forced && path != "-" && std::filesystem::is_directory(path, not_a_folder)) return open_checkpoint_dir(path);
  // --format dcp names a torch.distributed.checkpoint by its folder as well as by its .metadata.
  if (forced && forced->name == "dcp" && std::filesystem::is_directory(path, not_a_folder))
    return open_file_for((std::filesystem::path(path) / ".metadata").string(), format, listing);
  if (!forced && is_remote_folder(path)) return open_remote_folder(path, listing);
  const StreamCheck check =
      tensor_stream_check({path == "-" ? "<stdin>" : path, format, false, std::nullopt, false, false});
  std::shared_ptr<const MappedFile> file =
      path == "-" ? MappedFile::read_fd(0, "<stdin>", check) : MappedFile::open(path, check);
  if (forced) {
    check_forced_fits(*forced, file);
    return open_with(*forced, file, listing);
  }
  const std::span<const std::byte> head = file->bytes().first(std::min<std::size_t>(file->size(), 64));
  for (const FormatInfo& info : table)
    if (info.sniff(head)) return open_with(info, file, listing);
  for (const FormatInfo& info : table)
    if (has_extension(path, info)) return open_with(info, file, listing);
  throw Error(ErrorCode::BadFile, file->name() + ": not a recognised tensor file (" + first_bytes(file->bytes()) + ")");
}

}  // namespace

LoadedFile open_file(const std::string& path, const std::optional<std::string>& format) {
  return open_file_for(path, format, false);
}

LoadedFile open_listing(const std::string& path, const std::optional<std::string>& format) {
  return open_file_for(path, format, true);
}

std::optional<LoadedFile> open_detected(const std::shared_ptr<const MappedFile>& file,
                                       const std::optional<std::string>& format) {
  if (format) {
    for (const FormatInfo& info : formats())
      if (info.name == *format) {
        check_forced_fits(info, file);
        return open_with(info, file);
      }
    throw Error(ErrorCode::Usage, "unknown format '" + *format + "'");
  }
  const std::span<const std::byte> head = file->bytes().first(std::min<std::size_t>(file->size(), 64));
  for (const FormatInfo& info : formats())
    if (info.sniff(head)) return open_with(info, file);
  return std::nullopt;
}

StreamCheck tensor_stream_check(StreamInput in) {
  return [in = std::move(in)](std::span<const std::byte> so_far) -> std::optional<StreamStop> {
    if (in.raw) {
      // /dev/null ends at once (then so_far is never checked); /dev/zero would fill stream_bytes.
      if (!in.raw->shape && in.device)
        throw Error(ErrorCode::Usage, in.name + ": a character device may never end: --raw needs --shape to know how "
                                                "many bytes to read from it");
      if (!in.raw->shape || in.whole) return std::nullopt;
      std::uint64_t need = dtype_info(in.raw->dtype).itemsize;
      for (const std::int64_t d : *in.raw->shape) {
        if (d < 0 || (d != 0 && need > UINT64_MAX / static_cast<std::uint64_t>(d)))
          return std::nullopt;  // open_raw says why
        need *= static_cast<std::uint64_t>(d);
      }
      if (need > UINT64_MAX - in.raw->offset) return std::nullopt;
      return StreamStop{in.raw->offset + need,
                        "shape " + shape_repr(*in.raw->shape) + " of " + std::string(dtype_info(in.raw->dtype).name) +
                            " needs " + std::to_string(need) + " bytes, but more follow offset " +
                            std::to_string(in.raw->offset) + " (a stream: read no further)",
                        {}};
    }
    const std::span<const std::byte> head = so_far.first(std::min<std::size_t>(so_far.size(), 64));
    const FormatInfo* info = nullptr;
    for (const FormatInfo& f : formats())
      if (in.format ? f.name == *in.format : f.sniff(head)) {
        info = &f;
        break;
      }
    if (!info) {
      if (in.format) return std::nullopt;  // an unknown name: opening says so
      for (const FormatInfo& f : formats())
        if (has_extension(in.name, f)) return std::nullopt;
      // A literal is text: no control byte but whitespace.
      const bool text = std::none_of(head.begin(), head.end(), [](std::byte b) {
        const auto u = static_cast<unsigned char>(b);
        return u < 0x20 && !(u >= 0x09 && u <= 0x0d);
      });
      if (in.literal && text &&
          may_begin_literal(std::string_view(reinterpret_cast<const char*>(so_far.data()), so_far.size()))) {
        // Read no further than a literal may hold: the stream cap (1 GiB) let 300 MB of
        // junk text be read, and copied, before the parser refused it.
        const std::uint64_t cap = limits().literal_bytes;
        if (cap >= limits().stream_bytes) return std::nullopt;  // the stream's own cap comes first
        return StreamStop{cap, "not a recognised tensor file, and more than the " + std::to_string(cap) +
                                   " bytes of text a literal may hold" + limit_hint("literal_bytes"),
                          "literal_bytes"};
      }
      throw Error(ErrorCode::BadFile, in.name + ": not a recognised tensor file" +
                                          (in.literal ? " nor a literal" : "") + " (" + first_bytes(head) +
                                          "): read no further than its first " + std::to_string(so_far.size()) +
                                          " bytes");
    }
    if (info->name != "npy" || in.whole) return std::nullopt;
    const std::optional<std::uint64_t> length = npy_stream_length(so_far, in.name);
    if (!length) return std::nullopt;
    return StreamStop{*length, {}, {}};
  };
}

}  // namespace tensor_inspect
