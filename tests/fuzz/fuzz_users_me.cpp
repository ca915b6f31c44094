// Fuzz target: the GET /users/me answer (UsersMeResponse, the shopper profile the widget greets).
// Properties: only Error(bad_response) refuses; the round trip is a fixed point; the name the widget
// shows comes back byte for byte (the codec never rewrites a string; escaping is the renderer's job).
#include "fuzz_codec.hpp"

using namespace paywasm;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto me = fuzz::read_and_round_trip<UsersMeResponse>(fuzz::as_text(data, size), ErrorCode::bad_response);
    if (!me) return 0;
    UsersMeResponse again = from_json<UsersMeResponse>(to_json(*me));
    PAYWASM_FUZZ_CHECK(again.result.fullname == me->result.fullname, "fullname survives the round trip");
    return 0;
}
