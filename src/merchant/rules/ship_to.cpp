// What the seller needs to ship (ship_to.hpp).
#include "rules/ship_to.hpp"

#include "server/http.hpp"

namespace merchant {

using paywasm::JsonKind;
using paywasm::JsonValue;
using paywasm::server::has_kind;

namespace {

// A member's text: a string as it is, a number as written, else "".
std::string text_of(JsonValue v) {
    if (has_kind(v, JsonKind::string) || has_kind(v, JsonKind::number)) return std::string(v.text());
    return {};
}

// `parts` joined with `sep`, the empty ones left out.
std::string joined(std::initializer_list<std::string> parts, const char* sep) {
    std::string out;
    for (const auto& p : parts) {
        if (p.empty()) continue;
        if (!out.empty()) out += sep;
        out += p;
    }
    return out;
}

}  // namespace

std::string ShipTo::products() const {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : "; ") + i.name + " \xC3\x97 " + i.quantity;  // ×
    return out;
}

ShipTo ship_to(const Session& s) {
    ShipTo t;
    t.link_id = s.link_id;
    const auto doc = paywasm::server::read_json(s.checkout_json);
    if (!doc || !doc->root().is_object()) return t;
    const JsonValue root = doc->root();
    if (JsonValue a = root.member("shippingAddress"); has_kind(a, JsonKind::object)) {
        t.name = joined({text_of(a.member("firstname")), text_of(a.member("lastname"))}, " ");
        t.email = text_of(a.member("email"));
        t.address = joined({text_of(a.member("address1")), text_of(a.member("address2")),
                            joined({text_of(a.member("zipcode")), text_of(a.member("city"))}, " "), text_of(a.member("state")),
                            text_of(a.member("country"))},
                           ", ");
    }
    if (JsonValue c = root.member("customerInfo"); has_kind(c, JsonKind::object)) {
        if (t.name.empty()) t.name = text_of(c.member("name"));
        if (t.email.empty()) t.email = text_of(c.member("email"));
    }
    if (JsonValue cart = root.member("cart"); has_kind(cart, JsonKind::array)) {
        for (JsonValue item : cart.children()) t.items.push_back({text_of(item.member("name")), text_of(item.member("quantity"))});
    }
    return t;
}

void write_ship_to(paywasm::JsonWriter& w, const ShipTo& t) {
    const auto opt = [&w](const char* name, const std::string& v) {
        w.key(name);
        v.empty() ? w.null() : w.string(v);
    };
    w.begin_object();
    opt("name", t.name);
    opt("email", t.email);
    opt("address", t.address);
    w.key("products").begin_array();
    for (const auto& i : t.items) w.begin_object().str("name", i.name).str("quantity", i.quantity).end_object();
    w.end_array();
    opt("linkId", t.link_id.value_or(""));
    w.end_object();
}

}  // namespace merchant
