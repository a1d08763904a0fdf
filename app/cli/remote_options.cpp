// app/cli/remote_options.cpp — --token-file (the bearer token for http(s):// and hf:// inputs),
// --cache DIR and --cache-size N (the block cache of remote files), --timeout SECONDS,
// --no-sign-request (s3:// and gs:// unsigned).
#include "cli/remote_options.hpp"

#include <CLI/CLI.hpp>
#include <csignal>

#include "tensor_inspect/remote.hpp"

namespace tensor_inspect::app {

void setup_remote(CLI::App& app, RemoteFlags& flags) {
  app.add_option("--token-file", flags.token_file,
                 "a file whose first line is a bearer token for URL inputs (hf:// also reads HF_TOKEN)")
      ->group("Remote files");
  // Environment variables too (TI_CACHE_DIR, ...): a script or CI job that runs the tool many
  // times sets the cache once, as PIP_CACHE_DIR or HF_HUB_CACHE are set. apply_remote reads
  // them; the help shows them as CLI11 would (option_text).
  app.add_option("--cache", flags.cache_dir,
                 "keep fetched blocks of URL inputs in DIR: a second look is local (off by default)")
      ->each([&flags](const std::string&) { flags.cache_dir_given = true; })
      ->option_text("DIR (Env:TI_CACHE_DIR)")
      ->group("Remote files");
  app.add_option("--cache-size", flags.cache_size,
                 "most bytes --cache DIR may take on disk (K, M, G: KiB, MiB, GiB; at least 1M), e.g. 500M")
      ->transform(CLI::Validator(parse_cache_size, ""))
      ->each([&flags](const std::string&) { flags.cache_size_given = true; })
      ->option_text("N=" + std::to_string(flags.cache_size >> 30) + "G (Env:TI_CACHE_SIZE)")
      ->group("Remote files");
  app.add_option("--timeout", flags.timeout_seconds,
                 "seconds a URL input may wait to connect, or for the next byte, before the run fails (not retried)")
      ->check(CLI::Validator(check_timeout_seconds, ""))
      ->each([&flags](const std::string&) { flags.timeout_given = true; })
      ->option_text("SECONDS=" + std::to_string(flags.timeout_seconds) + " (Env:TI_TIMEOUT)")
      ->group("Remote files");
  // The AWS CLI's name: a public bucket is read without looking for credentials.
  app.add_flag("--no-sign-request", flags.no_sign_request,
               "send s3:// and gs:// requests unsigned (public buckets)")
      ->group("Remote files");
}

void apply_remote(const RemoteFlags& flags) {
  RemoteOptions r = remote_options();
  r.cache_dir = flags.cache_dir;
  r.cache_size = flags.cache_size;
  r.timeout_seconds = flags.timeout_seconds;
  r.no_sign_request = flags.no_sign_request;
  // A variable stands in for an option the command line did not give.
  r = with_remote_environment(r, flags.cache_dir_given, flags.cache_size_given, flags.timeout_given);
  // Under a file-size limit (ulimit -f) a cache write past it must fail with EFBIG, turning
  // the cache off, rather than kill a run that would succeed without --cache.
  if (!r.cache_dir.empty()) std::signal(SIGXFSZ, SIG_IGN);
  set_remote_options(r);
  if (flags.token_file.empty()) return;
  r.token = read_token_file(flags.token_file);
  set_remote_options(r);
}

}  // namespace tensor_inspect::app
