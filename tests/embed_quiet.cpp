// tests/embed_quiet.cpp — a program that embeds the library, as a user's would: it opens a
// file, realizes each tensor with data() and reads a value, and prints nothing itself. Run by
// tests/embed_quiet.py, which checks that the library printed nothing either (its logger
// stays at warn unless the program asks: tensor_inspect/log.hpp). With a level as second
// argument ("info", "debug") it asks, so the test can see that the library does log then.
//   embed_quiet FILE [info|debug]
#include <cstdio>
#include <cstring>

#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/log.hpp"
#include "tensor_inspect/memoryview.hpp"

namespace ti = tensor_inspect;

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (argc > 2) ti::set_log_level(std::strcmp(argv[2], "debug") == 0 ? ti::LogLevel::Debug : ti::LogLevel::Info);
  const ti::LoadedFile file = ti::open_file(argv[1]);
  std::size_t bytes = 0;
  for (const ti::TensorEntry& e : file.tensors) {
    const ti::MemoryView mv = ti::data(e.load());
    bytes += static_cast<std::size_t>(mv.nbytes);
  }
  return bytes > 0 ? 0 : 1;  // values were realized: an empty run would prove nothing
}
