// hash/digest.cpp — the two hash functions behind Hasher: XXH3-128 from the xxhash library
// (header-only, inlined), SHA-256 from nettle (which uses the CPU's SHA extensions when it
// has them). Neither is written here.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <nettle/sha2.h>

#include <array>

#include "tensor_inspect/hash.hpp"

namespace tensor_inspect {

std::string_view hash_algorithm_name(HashAlgorithm a) {
  switch (a) {
    case HashAlgorithm::Xxh3_128: return "xxh3-128";
    case HashAlgorithm::Sha256: return "sha256";
  }
  return "xxh3-128";
}

std::optional<HashAlgorithm> hash_algorithm_from_name(std::string_view name) {
  for (HashAlgorithm a : {HashAlgorithm::Xxh3_128, HashAlgorithm::Sha256})
    if (hash_algorithm_name(a) == name) return a;
  return std::nullopt;
}

struct Hasher::State {
  HashAlgorithm algorithm;
  XXH3_state_t* xxh = nullptr;
  sha256_ctx sha{};
  ~State() {
    if (xxh) XXH3_freeState(xxh);
  }
};

Hasher::Hasher(HashAlgorithm a) : state_(std::make_unique<State>()) {
  state_->algorithm = a;
  if (a == HashAlgorithm::Xxh3_128) {
    state_->xxh = XXH3_createState();
    if (!state_->xxh || XXH3_128bits_reset(state_->xxh) != XXH_OK) throw std::bad_alloc();
  } else {
    sha256_init(&state_->sha);
  }
}

Hasher::~Hasher() = default;

void Hasher::update(std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  if (state_->algorithm == HashAlgorithm::Xxh3_128)
    XXH3_128bits_update(state_->xxh, bytes.data(), bytes.size());
  else
    sha256_update(&state_->sha, bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data()));
}

namespace {

std::string hex(const unsigned char* p, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    s[2 * i] = kDigits[p[i] >> 4];
    s[2 * i + 1] = kDigits[p[i] & 15];
  }
  return s;
}

}  // namespace

std::string Hasher::hex_digest() {
  if (state_->algorithm == HashAlgorithm::Xxh3_128) {
    // xxhsum prints XXH128's canonical form: the high 64 bits, then the low, big-endian.
    XXH128_canonical_t c;
    XXH128_canonicalFromHash(&c, XXH3_128bits_digest(state_->xxh));
    return hex(c.digest, sizeof c.digest);
  }
  std::array<std::uint8_t, SHA256_DIGEST_SIZE> d{};
  sha256_digest(&state_->sha, d.size(), d.data());
  return hex(d.data(), d.size());
}

}  // namespace tensor_inspect
