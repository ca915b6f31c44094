// Fuzz target: the core's JSON reader (parse_json, src/core/codec_json.cpp), differentially against
// RapidJSON with the flags the core used before it had a reader of its own (iterative, UTF-8
// validated, numbers as text).
// Properties: parse_json fails only with the code it is given; where both accept, both trees are
// the same (same compact text: members in order, duplicates kept, numbers as written, strings
// decoded alike); they accept and refuse the same texts, except where the core's own limits speak
// (depth over kMaxJsonDepth, a NUL byte) and at the edge of a double's range, where the two
// measure differently (the core: below 10^309; RapidJSON: its exponent arithmetic).
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <string>

#include "core/json_tree.hpp"
#include "fuzz_common.hpp"

using namespace paywasm;

namespace {

// RapidJSON's SAX events written as compact JSON with the core's writer conventions.
struct Compact : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Compact> {
    std::string out;
    std::string commas = "0";  // per open container: '1' when a value was written in it

    void value_start() {
        if (commas.back() == '1') out += ',';
        commas.back() = '1';
    }
    bool Null() { value_start(); out += "null"; return true; }
    bool Bool(bool b) { value_start(); out += b ? "true" : "false"; return true; }
    bool RawNumber(const char* s, rapidjson::SizeType n, bool) { value_start(); out.append(s, n); return true; }
    bool String(const char* s, rapidjson::SizeType n, bool) {
        value_start();
        detail::append_quoted(out, std::string_view(s, n));
        return true;
    }
    bool Key(const char* s, rapidjson::SizeType n, bool) {
        value_start();
        detail::append_quoted(out, std::string_view(s, n));
        out += ':';
        commas.back() = '0';  // the value after the key takes no comma
        return true;
    }
    bool open(char c) { value_start(); out += c; commas += '0'; return true; }
    bool close(char c) { out += c; commas.pop_back(); commas.back() = '1'; return true; }
    bool StartObject() { return open('{'); }
    bool EndObject(rapidjson::SizeType) { return close('}'); }
    bool StartArray() { return open('['); }
    bool EndArray(rapidjson::SizeType) { return close(']'); }
};

bool too_large(const std::string& message) { return message.find("too large for a double") != std::string::npos; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    std::string ours;
    std::string ours_error;
    try {
        detail::append_compact(ours, detail::parse_json(text, ErrorCode::bad_response).root());
    } catch (const Error& e) {
        PAYWASM_FUZZ_CHECK(e.code() == ErrorCode::bad_response, e.what());
        ours_error = e.what();
    }
    if (text.find('\0') != std::string_view::npos) {
        PAYWASM_FUZZ_CHECK(!ours_error.empty(), "a NUL byte is refused");
        return 0;
    }
    if (ours_error.rfind("JSON nests deeper than", 0) == 0) return 0;

    Compact theirs;
    rapidjson::MemoryStream stream(text.data(), text.size());
    rapidjson::Reader reader;
    constexpr unsigned kFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag |
                                rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseFullPrecisionFlag;
    const rapidjson::ParseResult result = reader.Parse<kFlags>(stream, theirs);
    const bool their_too_large = result.Code() == rapidjson::kParseErrorNumberTooBig;

    if (ours_error.empty() && !result.IsError()) {
        PAYWASM_FUZZ_CHECK(ours == theirs.out, "same tree as RapidJSON:\n  ours:   " + ours + "\n  theirs: " + theirs.out);
    } else if (ours_error.empty() == result.IsError()) {
        // One accepts, the other refuses: only at the edge of a double's range.
        PAYWASM_FUZZ_CHECK(too_large(ours_error) || their_too_large,
                           "RapidJSON " + std::string(result.IsError() ? "refuses" : "accepts") +
                               " what the core " + (ours_error.empty() ? "accepts" : "refuses: " + ours_error));
    }
    return 0;
}
