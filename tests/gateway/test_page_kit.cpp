// The page kit (src/server: html.hpp, page_pieces.hpp, web_form.hpp, accept_list.hpp, iso8601.hpp) and
// the one origin reader (src/client/url.hpp's http_origin), without a server: what the console and the
// hosted pages read from a browser and what they write back.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "client/url.hpp"
#include "server/accept_list.hpp"
#include "server/html.hpp"
#include "server/http.hpp"
#include "server/iso8601.hpp"
#include "server/page_pieces.hpp"
#include "server/util.hpp"
#include "server/web_form.hpp"

using namespace paywasm::server;

namespace {

Request with_headers(Headers headers) {
    Request req;
    req.method = "POST";
    req.headers = std::move(headers);
    return req;
}

int http_status_of(const std::function<void()>& f, std::string* field = nullptr) {
    try {
        f();
    } catch (const HttpError& e) {
        if (field) *field = e.field;
        return e.status;
    }
    return 0;
}

}  // namespace

TEST_CASE("Inline code: written as is, refused when it could end its element or open a comment") {
    CHECK(Html::inline_code("script", "a<b&&c>d").str() == "<script>a<b&&c>d</script>");
    CHECK(Html::inline_code("style", "p>a{color:red}").str() == "<style>p>a{color:red}</style>");
    CHECK_THROWS_AS(Html::inline_code("script", "x='</script>'"), std::logic_error);
    CHECK_THROWS_AS(Html::inline_code("script", "x='</ScRiPt '"), std::logic_error);
    CHECK_THROWS_AS(Html::inline_code("script", "x='<!--'"), std::logic_error);
    CHECK_THROWS_AS(Html::inline_code("style", "p{}</STYLE>"), std::logic_error);
    CHECK_NOTHROW(Html::inline_code("style", "x='</script>'"));  // only its own end tag ends it
}

TEST_CASE("JSON data: no '<' inside, the same value back") {
    const Html h = Html::json_data(R"({"name":"</script><script>alert(1)</script><!--","n":1})");
    CHECK(h.str() == R"(<script type="application/json">{"name":"\u003c/script>\u003cscript>alert(1)\u003c/script>\u003c!--","n":1}</script>)");
    const std::string inner = h.str().substr(31, h.str().size() - 31 - 9);
    CHECK(inner.find('<') == std::string::npos);
}

TEST_CASE("A urlencoded form: escapes, '+', pairs without '=', empty pairs") {
    const Form f = parse_urlencoded("name=Ada+Lovelace&note=50%25+off%21&amp=%26%3D&flag&&empty=&%6Eame2=x");
    CHECK(field(f, "name") == "Ada Lovelace");
    CHECK(field(f, "note") == "50% off!");
    CHECK(field(f, "amp") == "&=");  // an escaped '&' or '=' is data, not a separator
    CHECK(f.count("flag") == 1);
    CHECK(field(f, "flag").empty());
    CHECK(f.count("empty") == 1);
    CHECK(field(f, "name2") == "x");  // a name is decoded too
    CHECK(f.count("") == 0);          // "&&" adds no field
    CHECK(field(f, "absent").empty());
    CHECK(parse_urlencoded("").empty());
    // UTF-8 sent as escapes arrives as its bytes.
    CHECK(field(parse_urlencoded("city=M%C3%BCnchen"), "city") == "M\xC3\xBCnchen");
}

TEST_CASE("A malformed percent-escape is kept as sent, never half-decoded") {
    const Form f = parse_urlencoded("a=%zz&b=100%&c=%4&d=%%41&e=%4G1&f=%");
    CHECK(field(f, "a") == "%zz");
    CHECK(field(f, "b") == "100%");
    CHECK(field(f, "c") == "%4");
    CHECK(field(f, "d") == "%A");  // the first '%' is not an escape; "%41" after it is
    CHECK(field(f, "e") == "%4G1");
    CHECK(field(f, "f") == "%");
}

TEST_CASE("A name sent twice keeps its first value") {
    // A field the page wrote (the CSRF token, hidden first) cannot be overridden by one added after it.
    const Form f = parse_urlencoded("csrf=page&note=n&csrf=attacker&CSRF=other");
    CHECK(field(f, "csrf") == "page");
    CHECK(field(f, "CSRF") == "other");  // names are case-sensitive
    CHECK(field(parse_urlencoded("a&a=2"), "a").empty());
}

TEST_CASE("A value over the limit is refused with 400, naming the field") {
    std::string name;
    const std::string long_value(1001, 'x');
    CHECK(http_status_of([&] { parse_urlencoded("city=" + long_value, 1000); }, &name) == 400);
    CHECK(name == "city");
    CHECK(field(parse_urlencoded("city=" + std::string(1000, 'x'), 1000), "city").size() == 1000);
    // The limit is on the decoded value: 1000 escaped bytes are 1000 bytes, not 3000.
    std::string escaped;
    for (int i = 0; i < 1000; ++i) escaped += "%41";
    CHECK(field(parse_urlencoded("city=" + escaped, 1000), "city") == std::string(1000, 'A'));
    CHECK(http_status_of([&] { parse_urlencoded("city=" + long_value); }) == 0);  // 0: no limit
}

TEST_CASE("read_form takes urlencoded bodies only (415 otherwise)") {
    CHECK(http_status_of([] { read_form(with_headers({{"Content-Type", "application/json"}}), "a=1"); }) == 415);
    CHECK(http_status_of([] { read_form(with_headers({}), "a=1"); }) == 415);
    CHECK(http_status_of([] { read_form(with_headers({{"Content-Type", "multipart/form-data; boundary=x"}}), "a=1"); }) == 415);
    const Form f = read_form(with_headers({{"content-type", "application/x-www-form-urlencoded; charset=UTF-8"}}), "a=1");
    CHECK(field(f, "a") == "1");
}

TEST_CASE("Cookies: several headers, spaces, look-alike names, empty values") {
    const Request req = with_headers({{"Cookie", "theme=dark;paywasm_console=tok1; other=1"},
                                      {"cookie", "paywasm_login=lt=with=equals ;  x=2"},
                                      {"Cookie", "xpaywasm_console=evil; paywasm_console2=evil2"}});
    CHECK(cookie(req, "paywasm_console") == "tok1");
    CHECK(cookie(req, "paywasm_login") == "lt=with=equals");  // the value keeps its '=', loses the space before ';'
    CHECK(cookie(req, "x") == "2");
    CHECK(cookie(req, "theme") == "dark");
    CHECK(cookie(req, "paywasm") == "");  // a prefix of a name is not the name
    CHECK(cookie(req, "PAYWASM_CONSOLE") == "");  // names are case-sensitive
    CHECK(cookie(req, "missing") == "");
    // The first of two cookies of one name (the browser sends the most specific path first).
    CHECK(cookie(with_headers({{"Cookie", "a=1; a=2"}}), "a") == "1");
    CHECK(cookie(with_headers({{"Cookie", "a=; b=2"}}), "a") == "");
    CHECK(cookie(with_headers({{"Cookie", "a"}}), "a") == "");  // no '=': no value
    CHECK(cookie(with_headers({{"Cookie", ""}}), "a") == "");
    CHECK(cookie(with_headers({{"Cookie", ";;\ta=tab"}}), "a") == "tab");
    CHECK(cookie(with_headers({{"Set-Cookie", "a=1"}}), "a") == "");  // only the Cookie header
    CHECK(cookie(with_headers({{"Cookie", "a=%41"}}), "a") == "%41");  // as sent, not decoded
}

TEST_CASE("url_encode keeps the unreserved characters and escapes every other byte") {
    CHECK(url_encode("AZaz09-_.~") == "AZaz09-_.~");
    CHECK(url_encode("a b&c=d/e?f#g+h%") == "a%20b%26c%3Dd%2Fe%3Ff%23g%2Bh%25");
    CHECK(url_encode("M\xC3\xBCnchen") == "M%C3%BCnchen");
    CHECK(url_encode(std::string("\0\n", 2)) == "%00%0A");
    for (const std::string text : {"order #1 & 2", "50% = half", "\xE2\x82\xAC 10"}) {
        CHECK(url_decode(url_encode(text)) == text);
        CHECK(field(parse_urlencoded("q=" + url_encode(text)), "q") == text);
    }
}

TEST_CASE("ISO-8601: the forms the API and the console's forms accept") {
    const std::int64_t may1 = 1777593600000;  // 2026-05-01T00:00:00Z
    CHECK(parse_iso8601("2026-05-01") == may1);
    CHECK(parse_iso8601("2026-05-01Z") == may1);
    CHECK(parse_iso8601("2026-05-01T10:00") == may1 + 36000000);
    CHECK(parse_iso8601("2026-05-01T10:00Z") == may1 + 36000000);
    CHECK(parse_iso8601("2026-05-01T10:00:30") == may1 + 36030000);
    CHECK(parse_iso8601("2026-05-01T10:00:30Z") == may1 + 36030000);
    CHECK(parse_iso8601("2026-05-01T10:00:30.250Z") == may1 + 36030250);
    CHECK(parse_iso8601("2026-05-01T10:00:30.2") == may1 + 36030200);
    CHECK(parse_iso8601("2026-05-01T10:00:30.123456789Z") == may1 + 36030123);
    CHECK(parse_iso8601("1970-01-01") == 0);
    CHECK(parse_iso8601("2024-02-29") == 1709164800000);  // a leap day
    CHECK(parse_iso8601("2000-02-29") == 951782400000);   // 2000 is a leap year (divisible by 400)
    CHECK(parse_iso8601("2026-12-31T23:59:59Z") == 1798761599000);
    // util.hpp's writer and this reader agree.
    CHECK(parse_iso8601(iso8601(1798761599123)) == 1798761599123);
}

TEST_CASE("ISO-8601: what is refused") {
    for (const char* bad : {"", "Z", "yesterday", "2026-5-01", "2026-05-1", "20260501", "2026/05/01", "2026-05-01T10",
                            "2026-05-01 10:00", "2026-05-01t10:00", "2026-05-01T10:00z", "2026-05-01T1:00",
                            "2026-05-01T10:00:0", " 2026-05-01", "2026-05-01 ", "2026-05-01T10:00+02:00",
                            "2026-05-01T10:00:00+00:00", "2026-05-01T10:00.5", "2026-05-01.5", "2026-05-01T10:00:00.",
                            "2026-05-01T10:00:00.Z", "2026-05-01T10:00:00.1234567890Z", "2026-05-01T10:00:00.12aZ",
                            "2026-05-01T10:00:00ZZ", "2026-00-10", "2026-13-01", "2026-05-00", "2026-05-32",
                            "2026-04-31", "2026-02-29", "1900-02-29", "2026-02-30", "2026-05-01T24:00",
                            "2026-05-01T23:60", "2026-05-01T23:59:60", "1969-12-31", "-001-01-01", "+2026-05-01"}) {
        INFO(bad);
        CHECK_FALSE(parse_iso8601(bad).has_value());
    }
}

TEST_CASE("ISO-8601: a link's expiresAt takes the full UTC form only") {
    CHECK(parse_iso8601("2026-12-31T23:59:59Z", Iso8601::seconds_z) == 1798761599000);
    CHECK(parse_iso8601("2026-12-31T23:59:59.5Z", Iso8601::seconds_z) == 1798761599500);
    for (const char* bad : {"2026-12-31T23:59:59", "2026-12-31T23:59Z", "2026-12-31", "2026-12-31Z", "2026-02-31T00:00:00Z"}) {
        INFO(bad);
        CHECK_FALSE(parse_iso8601(bad, Iso8601::seconds_z).has_value());
    }
}

TEST_CASE("An Accept-* list: order, weights, malformed weights, other parameters") {
    const auto items = accept_list(" de-CH ; q=0.9,EN;Q=1.0 , , fr;level=1;q=0.5,pt;q=0, es;q=1.5,it;q=abc,*;q=0.001,ja;q= 0.3 ");
    REQUIRE(items.size() == 8);
    CHECK(items[0].value == "de-ch");
    CHECK(items[0].q == 900);
    CHECK(items[1].value == "en");
    CHECK(items[1].q == 1000);  // the parameter name in any case
    CHECK(items[2].value == "fr");
    CHECK(items[2].q == 500);  // q after another parameter
    CHECK(items[3].q == 0);
    CHECK(items[4].q == -1);  // above 1: not a weight
    CHECK(items[5].q == -1);
    CHECK(items[6].value == "*");
    CHECK(items[6].q == 1);
    CHECK(items[7].q == 300);
    CHECK(accept_list("").empty());
    CHECK(accept_list(" , ,").empty());
    REQUIRE(accept_list("gzip").size() == 1);
    CHECK(accept_list("gzip")[0].q == 1000);
    CHECK(accept_list("gzip;q=0.000")[0].q == 0);
    CHECK(accept_list("gzip;q=1.001")[0].q == -1);
    CHECK(accept_list("gzip;q=0.1234")[0].q == -1);
    CHECK(accept_list("gzip;q=")[0].q == -1);
}

TEST_CASE("Html: void elements have no end tag; an optional attribute without a value is left out") {
    const std::optional<std::string> none;
    CHECK(Html::void_element("input", {{"name", "note"}, {"value", "a\"b"}, {"inputmode", none}}).str() ==
          "<input name=\"note\" value=\"a&quot;b\">");
    CHECK(Html::void_element("img", {{"alt", ""}, {"src", "/l.png?v=1&x"}}).str() == "<img alt=\"\" src=\"/l.png?v=1&amp;x\">");
    CHECK(Html::element("a", {{"href", "/x"}, {"class", none}}, "<b>").str() == "<a href=\"/x\">&lt;b&gt;</a>");
    CHECK(Html::element("a", {{"href", "/x"}, {"class", std::optional<std::string>("k")}}, Html()).str() ==
          "<a href=\"/x\" class=\"k\"></a>");
    CHECK(Html().empty());
    CHECK_FALSE(Html::text("x").empty());
}

TEST_CASE("The page pieces both wings write") {
    CHECK(page::money("27.50", "EUR") == "27.50 EUR");
    CHECK(page::when(1798761599123).str() == "<time datetime=\"2026-12-31T23:59:59.123Z\">2026-12-31 23:59:59 UTC</time>");
    CHECK(page::link("/orders?q=a&b", "A <b>").str() == "<a href=\"/orders?q=a&amp;b\">A &lt;b&gt;</a>");
    CHECK(page::link("/l/1", "Again", "button").str() == "<a href=\"/l/1\" class=\"button\">Again</a>");
    CHECK(page::row({Html::text("a<"), Html::markup("<b>b</b>")}).str() == "<tr><td>a&lt;</td><td><b>b</b></td></tr>");
    CHECK(page::table("Orders", {"A", "B"}, Html()).str() == "<p class=\"muted\">Orders: none.</p>");
    CHECK(page::table("Orders", {"A"}, page::row({Html::text("1")})).str() ==
          "<table><caption class=\"muted\">Orders</caption><thead><tr><th scope=\"col\">A</th></tr></thead>"
          "<tbody><tr><td>1</td></tr></tbody></table>");
}

TEST_CASE("http_origin: the one origin reader (forms' Origin, --public-url, return URLs)") {
    using paywasm::client::http_origin;
    CHECK(http_origin("https://Shop.Example:8443/pay?x=1#y") == "https://shop.example:8443");
    CHECK(http_origin("HTTP://shop.example") == "http://shop.example");
    CHECK(http_origin("https://shop.example?x") == "https://shop.example");
    CHECK(http_origin("https://shop.example#top") == "https://shop.example");
    CHECK(http_origin("http://[::1]:8080/") == "http://[::1]:8080");
    CHECK(http_origin("http://127.0.0.1:3000") == "http://127.0.0.1:3000");
    for (const char* bad : {"", "/relative", "shop.example", "ftp://shop.example", "javascript:alert(1)", "https://",
                            "https:///path", "https://user@shop.example", "https://a:b@shop.example/",
                            "http://127.0.0.1@evil.example/", "https://shop example", "https://shop.example/a b",
                            "https://shop.example\\@evil.example", "https://shop_example", "https://shop.example:",
                            "https://shop.example:123456", "https://shop.example:80a", "https://[::1", "https://[zz]/",
                            "https://shop.example\t/", "null"}) {
        INFO(bad);
        CHECK(http_origin(bad).empty());
    }
    CHECK(http_origin("https://shop.example/" + std::string(1990, 'a')).empty());  // over 2000 bytes
}
