// Fuzz target: the servers' request framing (src/server/framing.cpp), what every byte a client sends
// goes through before any handler: head_length() finds the head, parse_head() applies the strict
// rules on top of Boost.Beast's parser.
//
// Input: the bytes a client sent on a fresh connection.
// Properties: nothing throws or crashes; head_length() is 0 or ends the head after a '\n' within the
// input; an accepted head is HTTP/1.0 or 1.1 with an origin-form target, exactly one Host on 1.1,
// never Content-Length beside Transfer-Encoding, no body on GET/HEAD/OPTIONS/DELETE/TRACE, and no
// field holding CR, LF or NUL (which could split the answer or the next request).
#include <string>

#include "fuzz_common.hpp"
#include "server/framing.hpp"

using namespace paywasm::server;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input = paywasm::fuzz::as_text(data, size);
    const std::size_t end = head_length(input);
    PAYWASM_FUZZ_CHECK(end <= input.size() && (end == 0 || input[end - 1] == '\n'), "head_length ends after a LF");
    if (end == 0) return 0;
    const auto parsed = parse_head(input.substr(0, end));
    const auto* head = std::get_if<RequestHead>(&parsed);
    if (!head) {
        PAYWASM_FUZZ_CHECK(!std::get<FramingError>(parsed).reason.empty(), "a refusal says why");
        return 0;
    }
    PAYWASM_FUZZ_CHECK(head->version == 10 || head->version == 11, "version");
    PAYWASM_FUZZ_CHECK(!head->target.empty() && (head->target[0] == '/' || head->target == "*"), "origin-form target");
    int hosts = 0, lengths = 0, encodings = 0;
    for (const auto& [name, value] : head->headers) {
        PAYWASM_FUZZ_CHECK(name.find_first_of(std::string("\r\n\0", 3)) == std::string::npos &&
                               value.find_first_of(std::string("\r\n\0", 3)) == std::string::npos,
                           "no CR, LF or NUL in a field");
        hosts += same_name(name, "Host");
        lengths += same_name(name, "Content-Length");
        encodings += same_name(name, "Transfer-Encoding");
    }
    PAYWASM_FUZZ_CHECK(head->version == 10 ? hosts <= 1 : hosts == 1, "one Host");
    PAYWASM_FUZZ_CHECK(lengths <= 1 && !(lengths && encodings), "unambiguous body length");
    const bool bodiless = head->method == "GET" || head->method == "HEAD" || head->method == "OPTIONS" ||
                          head->method == "DELETE" || head->method == "TRACE";
    PAYWASM_FUZZ_CHECK(!bodiless || head->body == RequestHead::Body::none, "no body on " + head->method);
    return 0;
}
