// Tests for remote/url.cpp: which inputs are URLs, hf:// resolution, URLs safe to show.
#include <doctest/doctest.h>

#include <cstdlib>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"

namespace ti = tensor_inspect;

TEST_CASE("is_url knows http, https and hf, in any case, and nothing else") {
  CHECK(ti::is_url("http://127.0.0.1:8080/x.npy"));
  CHECK(ti::is_url("HTTPS://example.org/m.safetensors"));
  CHECK(ti::is_url("hf://org/repo/model.safetensors"));
  CHECK_FALSE(ti::is_url("model.safetensors"));
  CHECK_FALSE(ti::is_url("ftp://example.org/x.npy"));
  CHECK_FALSE(ti::is_url("./http://x"));
  CHECK_FALSE(ti::is_url("[1, 2]"));
}

TEST_CASE("resolve_url turns hf://ORG/REPO[@REV]/FILE into the hub's resolve URL") {
  ::unsetenv("TI_HF_ENDPOINT");
  CHECK(ti::resolve_url("hf://org/model/model-00002-of-00004.safetensors") ==
        "https://huggingface.co/org/model/resolve/main/model-00002-of-00004.safetensors");
  CHECK(ti::resolve_url("hf://org/model@v1.0/sub/dir/w.gguf") ==
        "https://huggingface.co/org/model/resolve/v1.0/sub/dir/w.gguf");
  CHECK(ti::resolve_url("https://example.org/a?b=c") == "https://example.org/a?b=c");
  SUBCASE("TI_HF_ENDPOINT replaces the host, a trailing slash or not") {
    ::setenv("TI_HF_ENDPOINT", "http://127.0.0.1:9/hf/", 1);
    CHECK(ti::resolve_url("hf://o/r/f.npy") == "http://127.0.0.1:9/hf/o/r/resolve/main/f.npy");
    ::unsetenv("TI_HF_ENDPOINT");
  }
  SUBCASE("an hf:// URL without ORG, REPO or FILE is a usage error naming it") {
    CHECK_THROWS_WITH_AS(ti::resolve_url("hf://org/repo"), "hf://org/repo: an hf:// URL names ORG/REPO[@REV]/FILE",
                         ti::Error);
    CHECK_THROWS_WITH_AS(ti::resolve_url("hf://org/repo/"), "hf://org/repo/: an hf:// URL names ORG/REPO[@REV]/FILE",
                         ti::Error);
    CHECK_THROWS_WITH_AS(ti::resolve_url("hf:///repo/f"), "hf:///repo/f: an hf:// URL names ORG/REPO[@REV]/FILE",
                         ti::Error);
    CHECK_THROWS_WITH_AS(ti::resolve_url("hf://org/repo@/f"), "hf://org/repo@/f: empty revision after '@'", ti::Error);
  }
}

TEST_CASE("display_url hides user information and query strings") {
  CHECK(ti::display_url("https://user:secret@host.org/a/b.npy") == "https://...@host.org/a/b.npy");
  CHECK(ti::display_url("https://cdn.org/x.bin?X-Amz-Signature=abc&e=1") == "https://cdn.org/x.bin?...");
  CHECK(ti::display_url("hf://org/repo@rev/f.gguf") == "hf://org/repo@rev/f.gguf");
  CHECK(ti::display_url("http://127.0.0.1:80/a@b/c") == "http://127.0.0.1:80/a@b/c");
}

TEST_CASE("token_for: --token-file's token for every URL, HF_TOKEN only for hf://") {
  ::setenv("HF_TOKEN", "from-env", 1);
  ti::set_remote_options({});
  CHECK(ti::token_for("hf://o/r/f") == "from-env");
  CHECK(ti::token_for("https://example.org/f").empty());
  ti::RemoteOptions with_token;
  with_token.token = "from-file";
  ti::set_remote_options(with_token);
  CHECK(ti::token_for("hf://o/r/f") == "from-file");
  CHECK(ti::token_for("http://127.0.0.1/f") == "from-file");
  ti::set_remote_options({});
  ::unsetenv("HF_TOKEN");
}
