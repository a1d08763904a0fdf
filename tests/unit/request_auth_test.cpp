// Tests for remote/request_auth.cpp: the headers and options we give libcurl make its SigV4
// signer (CURLOPT_AWS_SIGV4) produce AWS's published signatures. Each case is a request of
// the AWS SigV4 test suite, as github.com/awslabs/aws-c-auth keeps it in
// tests/aws-signing-test-suite/v4/<case>/ (commit 495329c2433034bd8fd53fc6ba9e0202d3fac876):
// context.json (keys, region, service, time), request.txt, header-signed-request.txt (the
// expected Authorization line, copied below). libcurl sends the request to a socket of this
// test on 127.0.0.1 (CURLOPT_CONNECT_TO keeps the Host header example.amazonaws.com); the
// test reads the Authorization header it received.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "remote/curl_api.hpp"
#include "remote/object_store.hpp"
#include "remote/request_auth.hpp"

namespace ti = tensor_inspect;

namespace {

/// Serves one request on 127.0.0.1 (an ephemeral port) and keeps its header block.
class OneRequestServer {
 public:
  OneRequestServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 1);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~OneRequestServer() {
    ::shutdown(fd_, SHUT_RDWR);  // an accept() still waiting (the request never came) returns
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  /// The request's headers (after the server answered).
  const std::string& request() {
    if (thread_.joinable()) thread_.join();
    return request_;
  }

 private:
  void serve() {
    const int c = ::accept(fd_, nullptr, nullptr);
    if (c < 0) return;
    char buf[4096];
    while (request_.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = ::read(c, buf, sizeof buf);
      if (n <= 0) break;
      request_.append(buf, static_cast<std::size_t>(n));
    }
    const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    (void)!::write(c, answer.data(), answer.size());
    ::close(c);
  }
  int fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::string request_;
};

std::size_t discard_body(char*, std::size_t size, std::size_t n, void*) { return size * n; }

/// The Authorization header libcurl sends for GET http://example.amazonaws.com`path` with
/// `auth` and the extra `headers`.
std::string signed_authorization(const std::string& path, const ti::RequestAuth& auth,
                                 const std::vector<std::string>& headers = {}) {
  const ti::CurlApi& c = ti::curl_api();
  OneRequestServer server;
  CURL* e = c.easy_init();
  curl_slist* list = ti::append_auth_headers(c, nullptr, auth);
  for (const std::string& h : headers) list = c.slist_append(list, h.c_str());
  const std::string url = "http://example.amazonaws.com" + path;
  const std::string connect_to = "example.amazonaws.com:80:127.0.0.1:" + std::to_string(server.port());
  curl_slist* connect = c.slist_append(nullptr, connect_to.c_str());
  c.easy_setopt(e, CURLOPT_URL, url.c_str());
  c.easy_setopt(e, CURLOPT_CONNECT_TO, connect);
  c.easy_setopt(e, CURLOPT_HTTPHEADER, list);
  c.easy_setopt(e, CURLOPT_WRITEFUNCTION, discard_body);
  c.easy_setopt(e, CURLOPT_NOPROXY, "*");
  ti::set_auth_options(c, e, auth);
  const CURLcode rc = c.easy_perform(e);
  c.easy_cleanup(e);
  c.slist_free_all(list);
  c.slist_free_all(connect);
  REQUIRE(rc == CURLE_OK);
  const std::string& req = server.request();
  const std::size_t at = req.find("\r\nAuthorization: ");
  REQUIRE(at != std::string::npos);
  const std::size_t from = at + 17;
  return req.substr(from, req.find("\r\n", from) - from);
}

ti::RequestAuth example_auth() {  // context.json of every case below
  ti::RequestAuth a;
  a.sigv4 = "aws:amz:us-east-1:service";
  a.access_key = "AKIDEXAMPLE";
  a.secret_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  a.amz_date = "20150830T123600Z";
  return a;
}

constexpr const char* kScope = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, ";

}  // namespace

TEST_CASE("libcurl's SigV4 signer, given our headers, matches AWS's published test vectors") {
  SUBCASE("get-vanilla") {
    CHECK(signed_authorization("/", example_auth()) ==
          std::string(kScope) +
              "SignedHeaders=host;x-amz-date, "
              "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  }
  SUBCASE("get-vanilla-with-session-token: the token is sent and signed as x-amz-security-token") {
    ti::RequestAuth a = example_auth();
    a.session_token = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267";
    CHECK(signed_authorization("/", a) ==
          std::string(kScope) +
              "SignedHeaders=host;x-amz-date;x-amz-security-token, "
              "Signature=07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8");
  }
  SUBCASE("get-header-value-trim: other headers are signed, their values' runs of spaces made one") {
    CHECK(signed_authorization("/", example_auth(), {"My-Header1: value1", "My-Header2: \"a   b   c\""}) ==
          std::string(kScope) +
              "SignedHeaders=host;my-header1;my-header2;x-amz-date, "
              "Signature=acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736");
  }
  SUBCASE("get-utf8: a key of UTF-8 bytes, percent-encoded by encode_object_key") {
    CHECK(ti::encode_object_key("\xE1\x88\xB4") == "%E1%88%B4");
    CHECK(signed_authorization("/" + ti::encode_object_key("\xE1\x88\xB4"), example_auth()) ==
          std::string(kScope) +
              "SignedHeaders=host;x-amz-date, "
              "Signature=8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85");
  }
  SUBCASE("get-unreserved: unreserved characters stay as they are") {
    const std::string key = "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    CHECK(ti::encode_object_key(key) == key);
    CHECK(signed_authorization("/" + ti::encode_object_key(key), example_auth()) ==
          std::string(kScope) +
              "SignedHeaders=host;x-amz-date, "
              "Signature=07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f");
  }
}

TEST_CASE("append_auth_headers: a bearer token unless signing; the payload hash only when asked") {
  const ti::CurlApi& c = ti::curl_api();
  auto lines = [&](const ti::RequestAuth& a) {
    std::string out;
    curl_slist* l = ti::append_auth_headers(c, nullptr, a);
    for (curl_slist* p = l; p; p = p->next) out += std::string(p->data) + "|";
    c.slist_free_all(l);
    return out;
  };
  ti::RequestAuth bearer;
  bearer.bearer = "tok";
  CHECK(lines(bearer) == "Authorization: Bearer tok|");
  CHECK(lines(ti::RequestAuth{}).empty());
  ti::RequestAuth s3;
  s3.sigv4 = "aws:amz:eu-west-1:s3";
  s3.access_key = "AK";
  s3.secret_key = "SK";
  s3.session_token = "ST";
  s3.payload_hash_header = true;
  CHECK(lines(s3) ==
        "x-amz-security-token: ST|x-amz-content-sha256: "
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855|");
}
