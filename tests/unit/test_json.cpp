// The JSON reader and writer every program uses (paywasm/json.hpp, src/core/json_tree.hpp and
// json_writer.cpp): JSON.stringify's escaping, UTF-8, the RFC 8259 grammar exactly, and malformed,
// oversized and deeply nested input. The codec's own suite is test_codec.cpp.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/json_tree.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"
#include "test_support.hpp"

using namespace paywasm;
using namespace paywasm::test;

// ---- Strings -----------------------------------------------------------------------------------

TEST_CASE("Strings are escaped exactly as JSON.stringify escapes them") {
    // Expected values produced by Node 20's JSON.stringify for the same text.
    struct Case {
        std::string in, out;
    };
    const Case cases[] = {
        {"plain", R"("plain")"},
        {std::string("\0\x01\x07\b\t\n\x0b\f\r\x0e\x1f", 11),
         R"("\u0000\u0001\u0007\b\t\n\u000b\f\r\u000e\u001f")"},
        {"\"\\/", R"("\"\\/")"},
        {"\x7f\xC2\x80\xC3\xA9", "\"\x7f\xC2\x80\xC3\xA9\""},  // DEL, U+0080, e-acute: raw
        {"\xE2\x80\xA8\xE2\x80\xA9", "\"\xE2\x80\xA8\xE2\x80\xA9\""},  // U+2028, U+2029: raw
        {"\xF0\x9F\x98\x80", "\"\xF0\x9F\x98\x80\""},  // U+1F600
        {"<script>&'", R"("<script>&'")"},
        // A lone surrogate (as WTF-8, the only way UTF-8-ish text can carry one): \udxxx.
        {"\xED\xA0\x80", R"("\ud800")"},
        {"\xED\xB0\x80x", R"("\udc00x")"},
        // A surrogate pair written as two halves is one character to JavaScript.
        {"\xED\xA0\xBD\xED\xB8\x80", "\"\xF0\x9F\x98\x80\""},
        // Bytes that are not UTF-8 at all: U+FFFD per maximal ill-formed subpart, as TextDecoder.
        {"a\xFF" "b", "\"a\xEF\xBF\xBD" "b\""},
        {"\xE2\x82" "A", "\"\xEF\xBF\xBD" "A\""},
        {"\xC0\xAF", "\"\xEF\xBF\xBD\xEF\xBF\xBD\""},
        {"\xF4\x90\x80\x80", "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""},
        {"\xE2\x82", "\"\xEF\xBF\xBD\""},
    };
    for (const Case& c : cases) {
        CAPTURE(c.in);
        CHECK(json_quote(c.in) == c.out);
    }
}

TEST_CASE("Reading refuses text that is not UTF-8 and, in a request, escaped lone surrogates") {
    const std::string bad_utf8 = "{\"id\":\"a\xFF\",\"status\":0}";
    CHECK(error_message<Transaction>(bad_utf8) == "not valid JSON at offset 8: a string is not valid UTF-8");
    CHECK(starts_with(error_message<CartItem>(R"({"id":"\ud800","name":"a","price":1,"quantity":1})"),
                      "not valid JSON at offset 7:"));
    check_request_error<CartItem>(R"({"id":"\udc00","name":"a","price":1,"quantity":1})", "id",
                                  "is not valid UTF-8 (it holds a lone surrogate)");
    // A response keeps it and writes it back as JSON.stringify would.
    Transaction t = from_json<Transaction>(R"({"id":"\udc00","status":0})");
    CHECK(to_json(t) == R"({"id":"\udc00","status":0})");
    // Escapes decode; writing uses JSON.stringify's forms.
    CartItem c = from_json<CartItem>(R"({"id":"\u0041\/\u00e9\ud83d\ude00\u2028","name":"\t","price":1,"quantity":1})");
    CHECK(c.id == "A/\xC3\xA9\xF0\x9F\x98\x80\xE2\x80\xA8");
    CHECK(to_json(c) == "{\"id\":\"A/\xC3\xA9\xF0\x9F\x98\x80\xE2\x80\xA8\",\"name\":\"\\t\",\"price\":1,\"quantity\":1}");
}

// ---- Hostile and malformed input ---------------------------------------------------------------

namespace {

// parse_json's answer: the compact re-emission of the tree, or "error: <message>".
std::string parsed(std::string_view json) {
    try {
        std::string out;
        detail::append_compact(out, detail::parse_json(json, ErrorCode::validation).root());
        return out;
    } catch (const Error& e) {
        return std::string("error: ") + e.what();
    }
}

}  // namespace

TEST_CASE("The JSON reader: the RFC 8259 grammar, exactly, with what is wrong and where") {
    SUBCASE("values, whitespace, empty and nested containers, member order and duplicates") {
        CHECK(parsed(" \t\r\n[ ] ") == "[]");
        CHECK(parsed("{}") == "{}");
        CHECK(parsed(R"({ "b" : [ true , false , null , {} , [ [ ] ] ] , "a" : -0 , "a" : "x" })") ==
              R"({"b":[true,false,null,{},[[]]],"a":-0,"a":"x"})");
        CHECK(parsed("0") == "0");
        CHECK(parsed("\"\"") == "\"\"");
        const detail::JsonTree tree = detail::parse_json(R"({"k":[1,{"n":2}],"z":"s"})", ErrorCode::validation);
        const detail::JsonValue root = tree.root();
        CHECK(root.size() == 2);
        CHECK(root.first_child().key() == "k");
        CHECK(root.first_child().size() == 2);
        CHECK(root.first_child().first_child().next_sibling().first_child().key() == "n");
        CHECK(root.first_child().next_sibling().text() == "s");
        CHECK_FALSE(root.first_child().next_sibling().next_sibling().valid());
    }
    SUBCASE("numbers keep their exact text; the grammar is enforced") {
        CHECK(parsed("[-0.0e+00,1E-7,12345678901234567890123456789012345678901,0.5,1e308,0e999999]") ==
              "[-0.0e+00,1E-7,12345678901234567890123456789012345678901,0.5,1e308,0e999999]");
        CHECK(parsed("[9.99e308,0.01e310,1e-99999999999999999999]") == "[9.99e308,0.01e310,1e-99999999999999999999]");
        CHECK(parsed("[1e309]") == "error: not valid JSON at offset 1: a number is too large for a double");
        CHECK(parsed("[0.1e310]") == "error: not valid JSON at offset 1: a number is too large for a double");
        CHECK(parsed("[-]") == "error: not valid JSON at offset 2: a number needs digits");
        CHECK(parsed("[1.]") == "error: not valid JSON at offset 3: a number needs digits after '.'");
        CHECK(parsed("[1e+]") == "error: not valid JSON at offset 4: a number needs digits in its exponent");
        CHECK(parsed("[01]") == "error: not valid JSON at offset 2: expected ',' or ']' after an array element");
        CHECK(parsed("[+1]") == "error: not valid JSON at offset 1: expected a value");
        CHECK(parsed("[.5]") == "error: not valid JSON at offset 1: expected a value");
        CHECK(parsed("[0x1]") == "error: not valid JSON at offset 2: expected ',' or ']' after an array element");
    }
    SUBCASE("strings: escapes, surrogate pairs, raw UTF-8, and what is refused") {
        CHECK(parsed(R"(["\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"])") == "[\"\\\"\\\\/\\b\\f\\n\\r\\t\xC3\xA9\xF0\x9F\x98\x80\"]");
        CHECK(parsed("[\"\xE2\x82\xAC\xF0\x9F\x98\x80\"]") == "[\"\xE2\x82\xAC\xF0\x9F\x98\x80\"]");
        CHECK(parsed(R"(["\udc00"])") == R"(["\udc00"])");  // a lone low surrogate is kept
        CHECK(parsed(R"(["a\ud800"])") == "error: not valid JSON at offset 3: a \\u escape holds half a surrogate pair");
        CHECK(parsed(R"(["\ud800\u0041"])") == "error: not valid JSON at offset 2: a \\u escape holds half a surrogate pair");
        CHECK(parsed(R"(["\u12G4"])") == "error: not valid JSON at offset 6: a \\u escape needs four hex digits");
        CHECK(parsed(R"(["\u12)") == "error: not valid JSON at offset 6: a \\u escape needs four hex digits");
        CHECK(parsed(R"(["\x"])") == "error: not valid JSON at offset 2: unknown escape in a string");
        CHECK(parsed("[\"a\tb\"]") == "error: not valid JSON at offset 3: a control character in a string must be escaped");
        CHECK(parsed("[\"ab") == "error: not valid JSON at offset 1: a string has no closing quotation mark");
        for (const char* bad : {"\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82", "\x80", "\xFF"}) {
            CAPTURE(bad);
            CHECK(parsed(std::string("[\"x") + bad + "\"]") == "error: not valid JSON at offset 3: a string is not valid UTF-8");
        }
    }
    SUBCASE("structure") {
        CHECK(parsed("") == "error: not valid JSON at offset 0: the text ends where a value should be");
        CHECK(parsed("  ") == "error: not valid JSON at offset 2: the text ends where a value should be");
        CHECK(parsed("[1,]") == "error: not valid JSON at offset 3: expected a value");
        CHECK(parsed("[1 2]") == "error: not valid JSON at offset 3: expected ',' or ']' after an array element");
        CHECK(parsed(R"({"a":1,})") == "error: not valid JSON at offset 7: expected a member name in double quotes");
        CHECK(parsed(R"({"a" 1})") == "error: not valid JSON at offset 5: expected ':' after a member name");
        CHECK(parsed(R"({"a":1 "b":2})") == "error: not valid JSON at offset 7: expected ',' or '}' after an object member");
        CHECK(parsed(R"({"a":1])") == "error: not valid JSON at offset 6: expected ',' or '}' after an object member");
        CHECK(parsed("{1:2}") == "error: not valid JSON at offset 1: expected a member name in double quotes");
        CHECK(parsed("[tru]") == "error: not valid JSON at offset 1: expected a value");
        CHECK(parsed("[nulls]") == "error: not valid JSON at offset 5: expected ',' or ']' after an array element");
        CHECK(parsed("{} {}") == "error: not valid JSON at offset 3: the JSON value is followed by more text");
        CHECK(parsed("\xEF\xBB\xBF{}") == "error: not valid JSON at offset 0: expected a value");  // no BOM
        CHECK(parsed("[\f]") == "error: not valid JSON at offset 1: expected a value");          // not JSON whitespace
    }
    SUBCASE("depth: 64 levels are read, the 65th is refused where it opens") {
        CHECK(parsed(std::string(64, '[') + std::string(64, ']')) == std::string(64, '[') + std::string(64, ']'));
        CHECK(parsed(std::string(65, '[') + std::string(65, ']')) == "error: JSON nests deeper than 64 levels at offset 64");
        CHECK(parsed(std::string(32, '[') + R"({"a":)" + std::string(32, '[')) == "error: JSON nests deeper than 64 levels at offset 68");
    }
}

TEST_CASE("Malformed, oversized and deeply nested input is refused without harm") {
    SUBCASE("not JSON") {
        for (const char* bad : {"", " ", "{", "{\"id\":}", "{\"id\":\"x\",}", "{'id':'x'}", "{\"id\":\"x\"} x",
                                "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":01}", "{\"a\":.5}", "{\"a\":\"\x01\"}"}) {
            CAPTURE(bad);
            std::string message = error_message<ShopData>(bad);
            CHECK(starts_with(message, "not valid JSON at offset "));
            CHECK_THROWS_AS(from_json<ShippingAddress>(bad), Error);
        }
        try {
            from_json<ShippingAddress>("{");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::validation);  // a request
        }
        try {
            from_json<ShopData>("{");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::bad_response);  // a response
        }
    }
    SUBCASE("a NUL byte ends nothing early") {
        std::string with_nul("{\"id\":\"x\",\"status\":0}\0{", 23);
        CHECK(error_message<Transaction>(with_nul) == "not valid JSON: NUL byte at offset 21");
    }
    SUBCASE("over kMaxJsonBytes is refused before parsing") {
        std::string big = "{\"id\":\"x\",\"status\":0,\"pad\":\"" + std::string(kMaxJsonBytes, 'a') + "\"}";
        CHECK(error_message<Transaction>(big) == "JSON text is larger than 4194304 bytes");
        std::string just_fits = "{\"pad\":\"" + std::string(kMaxJsonBytes - 10, 'a') + "\"}";
        REQUIRE(just_fits.size() == kMaxJsonBytes);
        CHECK(from_json<ShopData>(just_fits).extra.size() == kMaxJsonBytes);
    }
    SUBCASE("nesting is limited to 64 levels") {
        auto nested = [](std::size_t depth) {
            // {"x": [[...[]...]]}: the object is level 1.
            return "{\"x\":" + std::string(depth - 1, '[') + std::string(depth - 1, ']') + "}";
        };
        CHECK(from_json<ShopData>(nested(detail::kMaxJsonDepth)).extra.size() == 4 + 2 * 63 + 2);
        CHECK(starts_with(error_message<ShopData>(nested(detail::kMaxJsonDepth + 1)),
                          "JSON nests deeper than 64 levels at offset "));
        std::string hostile(1000000, '[');
        CHECK(starts_with(error_message<Transaction>(hostile), "JSON nests deeper than 64 levels"));
    }
    SUBCASE("an array of models holds at most 10000 elements") {
        auto with_check = [](std::size_t n) {
            std::string json = R"({"id":"x","status":0,"check":[)";
            for (std::size_t i = 0; i < n; ++i) json += i ? ",{}" : "{}";
            return json + "]}";
        };
        CHECK(from_json<Transaction>(with_check(10000)).check.size() == 10000);
        check_response_error<Transaction>(with_check(10001), "check", "has more than 10000 elements");
        std::string cart = R"({"merchantAuth":"a","merchantId":"m","items":[)";
        for (int i = 0; i <= 10000; ++i) cart += i ? ",1" : "1";
        check_request_error<SubscriptionDebitRequest>(cart + "]}", "items", "has more than 10000 elements");
    }
    SUBCASE("a wide object is read in reasonable time") {
        std::string wide = "{\"id\":\"x\",\"status\":0";
        for (int i = 0; i < 20000; ++i) wide += ",\"k" + std::to_string(i) + "\":" + std::to_string(i);
        wide += "}";
        Transaction t = from_json<Transaction>(wide);
        CHECK(t.extra.size() > 200000);
    }
}

