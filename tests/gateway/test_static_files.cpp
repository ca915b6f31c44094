// src/server/static_files.hpp without a server: escaping, templates, the policy text, serving.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cryptopp/filters.h>
#include <cryptopp/gzip.h>

#include <filesystem>
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include <unistd.h>

#include "server/gzip_pieces.hpp"
#include "server/static_files.hpp"

using namespace paywasm::server;

TEST_CASE("Text is escaped; markup only comes from literals") {
    CHECK(html_escape("<script>alert('x')&\"</script>") == "&lt;script&gt;alert(&#39;x&#39;)&amp;&quot;&lt;/script&gt;");
    const Html row = Html::element("td", {{"class", "a\" onclick=\"x"}}, "<b>Ada</b>");
    CHECK(row.str() == "<td class=\"a&quot; onclick=&quot;x\">&lt;b&gt;Ada&lt;/b&gt;</td>");
    CHECK((Html::markup("<br>") + Html::text("<i>")).str() == "<br>&lt;i&gt;");
}

TEST_CASE("render fills every placeholder and refuses a drift either way") {
    CHECK(render("<h1>{{shop}}</h1>{{rows}}", {{"shop", Html::text("A&B")}, {"rows", Html::markup("<p>x</p>")}}) ==
          "<h1>A&amp;B</h1><p>x</p>");
    CHECK_THROWS_AS(render("{{missing}}", {}), std::logic_error);
    CHECK_THROWS_AS(render("none", {{"extra", Html::text("x")}}), std::logic_error);
    // A value holding "{{x}}" is not expanded again.
    CHECK(render("{{a}}", {{"a", Html::text("{{a}}")}}) == "{{a}}");
}

TEST_CASE("The policy: nothing inline, only the named origins, no framing") {
    Csp csp;
    csp.wasm = true;
    csp.connect_src = {"https://api.example"};
    const std::string text = csp.text();
    CHECK(text.find("default-src 'none'") == 0);
    CHECK(text.find("script-src 'self' 'wasm-unsafe-eval';") != std::string::npos);
    CHECK(text.find("style-src 'self';") != std::string::npos);
    CHECK(text.find("connect-src 'self' https://api.example;") != std::string::npos);
    CHECK(text.find("frame-ancestors 'none'") != std::string::npos);
    CHECK(text.find("unsafe-inline") == std::string::npos);
    CHECK(text.find("base-uri 'none'") != std::string::npos);
    // Inline code only by hash: the widget's script and the pages' stylesheet (hosted_page.cpp).
    csp.script_hashes = {csp_sha256("")};
    csp.style_hashes = {csp_sha256("p{}")};
    csp.base_self = true;
    const std::string hashed = csp.text();
    // SHA-256 of "" (OpenSSL: printf '' | openssl dgst -sha256 -binary | base64).
    CHECK(hashed.find("script-src 'self' 'wasm-unsafe-eval' 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=';") != std::string::npos);
    CHECK(hashed.find("style-src 'self' 'sha256-") != std::string::npos);
    CHECK(hashed.find("base-uri 'self'") != std::string::npos);
    CHECK(hashed.find("unsafe-inline") == std::string::npos);
    csp.scripts = false;  // a page that runs no script allows no hash either
    CHECK(csp.text().find("script-src 'none';") != std::string::npos);
    csp.connect_src = {"https://a.example; script-src *"};
    CHECK_THROWS_AS((void)csp.text(), std::logic_error);
    Response res;
    page_headers(res, Csp{});
    CHECK(res.get_header_value("X-Content-Type-Options") == "nosniff");
    CHECK(res.get_header_value("X-Frame-Options") == "DENY");
    CHECK(res.get_header_value("Referrer-Policy") == "same-origin");
}

TEST_CASE("A gzip body from pieces: one member whose decompression is the parts joined") {
    std::string big;
    for (int i = 0; i < 60000; ++i) big += static_cast<char>("abcdefghij<>&\n"[(i * 7919) % 14]);
    const std::string head = "<!doctype html><p>before</p>", tail = "<p>after</p></html>";
    const std::string piece = deflate_piece(big, 9);
    // A piece ends with an empty stored block (byte-aligned, not the last): 00 00 ff ff.
    REQUIRE(piece.size() > 4);
    CHECK(piece.substr(piece.size() - 4) == std::string("\x00\x00\xff\xff", 4));
    const std::vector<std::vector<GzipPart>> cases = {
        {{head, {}}, {big, piece}, {tail, {}}},  // a page with the widget
        {{head, {}}, {{}, {}}, {tail, {}}},      // a page without: an empty part
        {{big, {}}},                             // one part compressed now
        {},                                      // nothing at all: an empty body, still a member
    };
    for (const auto& parts : cases) {
        std::string plain;
        for (const auto& p : parts) plain += p.plain;
        const std::string gz = gzip_join(parts);
        if (plain.size() > 1000) CHECK(gz.size() < plain.size() / 2);  // compressed, not stored
        // Crypto++'s inflater (it checks the CRC-32 and the length) ...
        std::string back;
        CryptoPP::StringSource(gz, true, new CryptoPP::Gunzip(new CryptoPP::StringSink(back)));
        CHECK(back == plain);
        // ... and GNU gzip, an independent decoder (it checks them too).
        const std::string file = (std::filesystem::temp_directory_path() / ("paywasm-gz-" + std::to_string(::getpid()) + ".gz")).string();
        std::ofstream(file, std::ios::binary) << gz;
        FILE* pipe = ::popen(("gzip -dc '" + file + "'").c_str(), "r");
        REQUIRE(pipe != nullptr);
        std::string out;
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
        CHECK(::pclose(pipe) == 0);
        CHECK(out == plain);
        std::filesystem::remove(file);
    }
}

TEST_CASE("Files: loaded once, typed, versioned, 304 on a matching ETag") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("paywasm-static-" + std::to_string(::getpid()));
    fs::create_directories(dir / "sub");
    std::ofstream(dir / "app.js") << "console.log(1)";
    std::ofstream(dir / "sub" / "page.css") << "p{}";
    std::ofstream(dir / ".hidden") << "secret";
    const StaticFiles files = StaticFiles::load(dir.string(), {"app.js"});
    CHECK_THROWS_AS(StaticFiles::load(dir.string(), {"absent.js"}), std::runtime_error);
    CHECK_THROWS_AS(StaticFiles::load((dir / "nowhere").string()), std::runtime_error);
    CHECK(files.find(".hidden") == nullptr);
    REQUIRE(files.find("sub/page.css") != nullptr);
    CHECK(files.find("sub/page.css")->content_type == "text/css; charset=utf-8");
    CHECK(files.integrity("app.js").rfind("sha384-", 0) == 0);
    const std::string url = files.url("/assets/", "app.js");
    CHECK(url == "/assets/app.js?v=" + files.find("app.js")->version);

    Request req;
    req.query = "v=" + files.find("app.js")->version;
    Response res;
    REQUIRE(files.serve(req, res, "app.js"));
    CHECK(res.status == 200);
    CHECK(res.body == "console.log(1)");
    CHECK(res.get_header_value("Cache-Control") == "public, max-age=31536000, immutable");
    CHECK(res.get_header_value("X-Content-Type-Options") == "nosniff");

    Request again;
    again.headers = {{"If-None-Match", res.get_header_value("ETag")}};
    Response cached;
    REQUIRE(files.serve(again, cached, "app.js"));
    CHECK(cached.status == 304);
    CHECK(cached.get_header_value("Cache-Control") == "no-cache");
    Response none;
    CHECK_FALSE(files.serve(again, none, "../etc/passwd"));
    fs::remove_all(dir);
}

namespace {
// `gz` decompressed by the system's gzip(1): an oracle independent of the Crypto++ that compressed it.
std::string gunzip(const std::string& gz) {
    const std::string path = std::filesystem::temp_directory_path() / ("paywasm-gz-" + std::to_string(::getpid()) + ".gz");
    std::ofstream(path, std::ios::binary) << gz;
    std::string out;
    if (FILE* p = ::popen(("gzip -dc " + path).c_str(), "r")) {
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
        ::pclose(p);
    }
    std::filesystem::remove(path);
    return out;
}
}  // namespace

TEST_CASE("Text and wasm go gzip-compressed to a client that accepts it; the bytes as they are to others") {
    StaticFiles files;
    std::string script;
    for (int i = 0; i < 200; ++i) script += "console.log('paywasm " + std::to_string(i) + "');\n";
    files.add("app.js", script);
    files.add("tiny.css", "p{}");
    const auto serve = [&](const std::string& name, const std::string& accept) {
        Request req;
        if (!accept.empty()) req.headers = {{"Accept-Encoding", accept}};
        Response res;
        REQUIRE(files.serve(req, res, name));
        return res;
    };
    for (const std::string accept : {"gzip", "gzip, deflate, br", "br;q=1.0, GZIP;q=0.5", "*", "gzip;level=9;Q=0.5"}) {
        CAPTURE(accept);
        const Response res = serve("app.js", accept);
        CHECK(res.get_header_value("Content-Encoding") == "gzip");
        CHECK(res.get_header_value("Vary") == "Accept-Encoding");
        CHECK(res.body.size() < script.size() / 4);
        CHECK(gunzip(res.body) == script);
        CHECK(res.get_header_value("ETag") == "\"" + files.find("app.js")->version + "-gz\"");
    }
    for (const std::string accept : {"", "identity", "br", "gzip;q=0", "gzip; q=0.000, br", "gzip;q=abc", "gzip;q=1.5"}) {
        CAPTURE(accept);
        const Response res = serve("app.js", accept);
        CHECK(res.get_header_value("Content-Encoding").empty());
        CHECK(res.body == script);
        CHECK(res.get_header_value("Vary") == "Accept-Encoding");
    }
    // Too small to gain: served as it is, whatever the client takes.
    CHECK(serve("tiny.css", "gzip").get_header_value("Content-Encoding").empty());
    CHECK(serve("tiny.css", "gzip").body == "p{}");
}
