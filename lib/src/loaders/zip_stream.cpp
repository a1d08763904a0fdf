// loaders/zip_stream.cpp — a member inflated front to back through one window (see
// zip_stream.hpp). libzip decompresses and, at the member's end, checks the CRC; the
// running CRC-32 kept here only words its message as check_member_crc does.
#include "loaders/zip_stream.hpp"

#include <zip.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

ZipMemberStream::ZipMemberStream(std::shared_ptr<const ZipArchive> zip, ZipMember member)
    : zip_(std::move(zip)), member_(std::move(member)) {
  open();
}

ZipMemberStream::~ZipMemberStream() {
  if (file_) zip_fclose(static_cast<zip_file_t*>(file_));
}

void ZipMemberStream::open() {
  if (file_) zip_fclose(static_cast<zip_file_t*>(file_));
  auto* za = static_cast<zip_t*>(zip_->libzip_handle());
  check_member_method(zip_->file()->name(), member_);
  file_ = zip_fopen_index(za, member_.index, 0);
  if (!file_) {
    rethrow_fetch_error();
    fail(std::string("cannot be read (") + zip_strerror(za) + ")");
  }
  window_.clear();
  previous_.clear();
  window_at_ = previous_at_ = 0;
  crc_ = 0;
}

void ZipMemberStream::fail(const std::string& what) const {
  rethrow_fetch_error();
  throw Error(ErrorCode::BadFile, zip_->file()->name() + ": member '" + member_.name + "' (data at byte " +
                                      std::to_string(member_.data_offset) + "): " + what);
}

void ZipMemberStream::advance() {
  auto* f = static_cast<zip_file_t*>(file_);
  previous_at_ = window_at_;
  window_at_ += window_.size();
  previous_.swap(window_);
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kWindow, member_.size - window_at_));
  window_.resize(n);
  std::size_t done = 0;
  while (done < n) {
    const zip_int64_t got = zip_fread(f, window_.data() + done, n - done);
    if (got < 0) fail(std::string("corrupt data (") + zip_file_strerror(f) + ")");
    if (got == 0)
      fail("ends after " + std::to_string(window_at_ + done) + " bytes, but declares " + std::to_string(member_.size));
    done += static_cast<std::size_t>(got);
  }
  crc_ = static_cast<std::uint32_t>(crc32(crc_, reinterpret_cast<const Bytef*>(window_.data()), static_cast<uInt>(n)));
  // The compressed pages read so far leave this process (libzip's position in them is not
  // known: a page it still needs is read again from the page cache), so a large member
  // costs two windows, not its compressed size.
  zip_->file()->release_pages(member_.data_offset, member_.comp_size);
  if (window_at_ + n < member_.size) return;
  // The member's end: one more read, so libzip checks the CRC, and nothing may follow.
  std::byte extra[1];
  const zip_int64_t got = zip_fread(f, extra, 1);
  if (got > 0) fail("holds more than its declared " + std::to_string(member_.size) + " bytes");
  if (got < 0) {
    check_member_crc(zip_->file()->name(), member_, crc_);  // a CRC mismatch in our words, both CRCs
    fail(std::string("corrupt data (") + zip_file_strerror(f) + ")");
  }
}

void ZipMemberStream::read(std::uint64_t at, std::span<std::byte> out) {
  if (at > member_.size || out.size() > member_.size - at)
    fail("bytes [" + std::to_string(at) + ", +" + std::to_string(out.size()) + ") are past its declared size " +
         std::to_string(member_.size));
  std::size_t done = 0;
  while (done < out.size()) {
    const std::uint64_t want = at + done;
    if (want >= previous_at_ && want - previous_at_ < previous_.size()) {
      const auto from = static_cast<std::size_t>(want - previous_at_);
      const std::size_t n = std::min(out.size() - done, previous_.size() - from);
      std::memcpy(out.data() + done, previous_.data() + from, n);
      done += n;
      continue;
    }
    if (want < window_at_) {
      ++restarts_;
      open();
    }
    if (want >= window_at_ + window_.size()) {
      advance();
      continue;
    }
    const auto from = static_cast<std::size_t>(want - window_at_);
    const std::size_t n = std::min(out.size() - done, window_.size() - from);
    std::memcpy(out.data() + done, window_.data() + from, n);
    done += n;
  }
}

void ZipScatteredReader::read(std::uint64_t at, std::span<std::byte> out) {
  if (whole_.empty() && stream_.goes_back(at) && stream_.restarts() >= kMaxRestarts) whole_ = zip_->read_all(member_);
  if (whole_.empty()) return stream_.read(at, out);
  if (at > whole_.size() || out.size() > whole_.size() - at) return stream_.read(at, out);  // past the end: its message
  std::memcpy(out.data(), whole_.data() + at, out.size());
}

}  // namespace tensor_inspect
