// from_json: a JsonTree -> the models, with the type checks and nothing more (validate.hpp has the
// rules).
//
// Requests are read strictly: a member of the wrong type, a missing required member, an unknown
// member (likely a typo that would silently drop an optional field) and a repeated member are
// Error(validation). Responses are read leniently where the service may grow: unknown members go
// to `extra`, in their order and as they came, and of a repeated known member the last one wins,
// as in JSON.parse; wrong types and missing required members are Error(bad_response). Null reads
// as absent for an optional member (RawJson keeps it). Every message starts with the full path of
// the member ("result.meta.offerId: expected a string").
#include <algorithm>
#include <cassert>
#include <climits>

#include "core/codec_fields.hpp"
#include "core/json_tree.hpp"
#include "paywasm/codec.hpp"

namespace paywasm::detail {
namespace {

struct Mode {
    ErrorCode code;
    bool request;
};

// Out of line and cold: the path becomes text only here, when an error names it.
[[noreturn, gnu::noinline, gnu::cold]] void fail(const Mode& m, const JsonPath& path,
                                                 const char* reason) {
    std::string where = path.str();
    std::string message = where.empty() ? reason : where + ": " + reason;
    throw Error(m.code, std::move(message), std::move(where));
}

// ---- Scalars ----

// A string member as a request may hold it: parse_json has checked the raw UTF-8, but an escaped
// lone low surrogate ("\udc00") still decodes to the three bytes ED B0..BF xx, which are not UTF-8.
bool has_lone_surrogate(std::string_view s) {
    for (std::size_t i = 0; i + 1 < s.size(); ++i)
        if (static_cast<unsigned char>(s[i]) == 0xED && static_cast<unsigned char>(s[i + 1]) >= 0xA0)
            return true;
    return false;
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, std::string& out) {
    if (!v.is_string()) fail(m, path, "expected a string");
    if (m.request && has_lone_surrogate(v.text()))
        fail(m, path, "is not valid UTF-8 (it holds a lone surrogate)");
    out.assign(v.text());
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, bool& out) {
    if (!v.is_bool()) fail(m, path, "expected a boolean");
    out = v.boolean();
}

// Integers are plain JSON integers ("-12"): no fraction, no exponent, within 64 bits.
void read_value(const Mode& m, JsonValue v, const JsonPath& path, long long& out) {
    if (!v.is_number()) fail(m, path, "expected an integer");
    std::string_view t = v.text();
    bool negative = t.front() == '-';
    if (negative) t.remove_prefix(1);
    if (t.find_first_not_of("0123456789") != std::string_view::npos)
        fail(m, path, "expected an integer");
    unsigned long long limit = negative ? 0ULL - static_cast<unsigned long long>(LLONG_MIN)
                                        : static_cast<unsigned long long>(LLONG_MAX);
    unsigned long long magnitude = 0;
    for (char c : t) {
        auto digit = static_cast<unsigned long long>(c - '0');
        if (magnitude > (limit - digit) / 10) fail(m, path, "integer out of range");
        magnitude = magnitude * 10 + digit;
    }
    out = negative ? static_cast<long long>(0ULL - magnitude) : static_cast<long long>(magnitude);
}

// The exact value of a JSON number's text (parse_json has checked its grammar), exponent included:
// "1.5e3" is 1500. A request's number keeps Decimal's limits (30 integer and 18 fractional
// digits). A response's number may have more fractional digits (a double the service computed,
// such as 1.2345678901234567e-7): it is rounded half away from zero to 18, and this is the only
// place the codec rounds.
Decimal number_value(const Mode& m, std::string_view text, const JsonPath& path) {
    bool negative = text.front() == '-';
    if (negative) text.remove_prefix(1);
    long long exponent = 0;
    std::size_t e = text.find_first_of("eE");
    if (e != std::string_view::npos) {
        std::string_view exp_text = text.substr(e + 1);
        bool exp_negative = exp_text.front() == '-';
        if (exp_text.front() == '-' || exp_text.front() == '+') exp_text.remove_prefix(1);
        for (char c : exp_text) exponent = std::min(exponent * 10 + (c - '0'), 1000000000LL);
        if (exp_negative) exponent = -exponent;
        text = text.substr(0, e);
    }
    // value = digits x 10^exponent
    std::string digits(text.substr(0, text.find('.')));
    if (std::size_t dot = text.find('.'); dot != std::string_view::npos) {
        digits.append(text.substr(dot + 1));
        exponent -= static_cast<long long>(text.size() - dot - 1);
    }
    std::size_t first = digits.find_first_not_of('0');
    if (first == std::string::npos) return Decimal();
    digits.erase(0, first);
    std::size_t last = digits.find_last_not_of('0');
    exponent += static_cast<long long>(digits.size() - 1 - last);
    digits.erase(last + 1);

    auto length = static_cast<long long>(digits.size());
    if (length + exponent > Decimal::kMaxIntegerDigits)
        fail(m, path, "number has more than 30 integer digits");
    Decimal value;
    if (exponent >= 0) {
        digits.append(static_cast<std::size_t>(exponent), '0');
        Decimal::try_parse((negative ? "-" : "") + digits, value);  // within limits: cannot fail
        return value;
    }
    long long fraction = -exponent;
    bool round_up = false;
    if (fraction > Decimal::kMaxFractionDigits) {
        if (m.request) fail(m, path, "number has more than 18 fractional digits");
        long long drop = fraction - Decimal::kMaxFractionDigits;
        round_up = drop <= length && digits[static_cast<std::size_t>(length - drop)] >= '5';
        digits = drop < length ? digits.substr(0, static_cast<std::size_t>(length - drop)) : "0";
        length = static_cast<long long>(digits.size());
        fraction = Decimal::kMaxFractionDigits;
    }
    std::string plain = negative ? "-" : "";
    if (length > fraction) {
        plain.append(digits, 0, static_cast<std::size_t>(length - fraction));
        plain += '.';
        plain.append(digits, static_cast<std::size_t>(length - fraction), std::string::npos);
    } else {
        plain += "0.";
        plain.append(static_cast<std::size_t>(fraction - length), '0');
        plain += digits;
    }
    Decimal::try_parse(plain, value);  // within limits: cannot fail
    if (round_up) {
        Decimal step;
        Decimal::try_parse(negative ? "-0.000000000000000001" : "0.000000000000000001", step);
        value += step;
        // 999...9.9999999999999999995 rounds up to 31 integer digits, which could not be read back.
        std::string rounded = value.to_string();
        if (rounded.find('.') == std::string::npos && rounded.size() - (negative ? 1 : 0) > 30)
            fail(m, path, "number has more than 30 integer digits");
    }
    return value;
}

Decimal decimal_string_value(const Mode& m, std::string_view text, const JsonPath& path) {
    Decimal d;
    if (Decimal::try_parse(text, d)) return d;
    std::string where = path.str();
    try {
        Decimal::parse(text, where);
    } catch (const Error& e) {
        throw Error(m.code, e.what(), where);  // Decimal's reason, the mode's error code
    }
    return d;
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, Decimal& out, Wire wire) {
    if (v.is_number() && wire != Wire::string) {
        out = number_value(m, v.text(), path);
    } else if (v.is_string() && wire != Wire::number) {
        out = decimal_string_value(m, v.text(), path);
    } else {
        fail(m, path, wire == Wire::number   ? "expected a number"
                      : wire == Wire::string ? "expected a decimal string"
                                             : "expected a number or a decimal string");
    }
}

void read_value(const Mode& m, JsonValue v, const JsonPath& path, RawJson& out, Shape shape) {
    if (shape == Shape::object_or_null && !v.is_object() && !v.is_null())
        fail(m, path, "expected an object or null");
    if (shape == Shape::array_or_null && !v.is_array() && !v.is_null())
        fail(m, path, "expected an array or null");
    out.text.clear();
    append_compact(out.text, v);
}

// ---- The reader ----------------------------------------------------------------------------------

// The immediate status words of an exchange payment and the codes they map to (protocol.hpp).
bool status_word_code(std::string_view word, int& code) {
    if (word == "pending" || word == "processing") code = 0;
    else if (word == "completed") code = 1;
    else if (word == "canceled") code = -1;
    else return false;
    return true;
}

// Fills a model from the tree, one open object or array per frame. Member lookups scan the
// object: a model asks for a fixed number of names, so reading stays linear in the size of the
// object however many members a hostile body has.
class Reader final : public FieldVisitor {
public:
    // `base` names the root in error paths (an element of a cart array, say); it must outlive
    // the reader.
    Reader(Mode mode, JsonValue root, const JsonPath& base = JsonPath{}) : m_(mode) {
        if (!root.is_object()) fail(m_, base, "expected an object");
        push(root, base);
    }

    bool reading() const override { return true; }

    void text(const char* name, std::string& v, Need need) override {
        if (JsonValue m = take(name, need); m.valid()) read_value(m_, m, at(name), v);
    }
    void text(const char* name, std::optional<std::string>& v) override {
        v.reset();
        if (JsonValue m = take(name, Need::optional); m.valid()) read_value(m_, m, at(name), v.emplace());
    }
    void flag(const char* name, bool& v, Need need) override {
        if (JsonValue m = take(name, need); m.valid()) read_value(m_, m, at(name), v);
    }
    void flag(const char* name, std::optional<bool>& v) override {
        v.reset();
        if (JsonValue m = take(name, Need::optional); m.valid()) read_value(m_, m, at(name), v.emplace());
    }
    void integer(const char* name, long long& v, Need need) override {
        if (JsonValue m = take(name, need); m.valid()) read_value(m_, m, at(name), v);
    }
    void integer(const char* name, std::optional<long long>& v) override {
        v.reset();
        if (JsonValue m = take(name, Need::optional); m.valid()) read_value(m_, m, at(name), v.emplace());
    }
    void amount(const char* name, Decimal& v, Wire wire, Need need) override {
        if (JsonValue m = take(name, need); m.valid()) read_value(m_, m, at(name), v, wire);
    }
    void amount(const char* name, std::optional<Decimal>& v, Wire wire) override {
        v.reset();
        if (JsonValue m = take(name, Need::optional); m.valid())
            read_value(m_, m, at(name), v.emplace(), wire);
    }
    // Absent: empty; anything else (null too) kept as compact text.
    void raw(const char* name, RawJson& v, Shape shape) override {
        v.text.clear();
        if (JsonValue m = find(name); m.valid()) read_value(m_, m, at(name), v, shape);
    }

    void status(Transaction& t) override {
        JsonValue v = take("status", Need::required);
        JsonPath path = at("status");
        t.status_word.reset();
        if (v.is_string()) {
            if (!status_word_code(v.text(), t.status))
                fail(m_, path, "expected an integer or one of pending, processing, canceled, completed");
            t.status_word = std::string(v.text());
            return;
        }
        if (!v.is_number()) fail(m_, path, "expected an integer or a status word");
        long long code = 0;
        read_value(m_, v, path, code);
        if (code < INT_MIN || code > INT_MAX) fail(m_, path, "integer out of range");
        t.status = static_cast<int>(code);
    }

    // `reference<processor>`: the first member named "reference" plus at least one more character.
    void reference(Transaction& t) override {
        constexpr std::string_view kPrefix = "reference";
        t.reference_field.clear();
        t.reference_value.reset();
        for (JsonValue c = top().value.first_child(); c.valid(); c = c.next_sibling()) {
            std::string_view key = c.key();
            if (key.size() > kPrefix.size() && key.substr(0, kPrefix.size()) == kPrefix) {
                t.reference_field = std::string(key);
                break;
            }
        }
        if (t.reference_field.empty()) return;
        JsonValue v = find(t.reference_field);  // the one just seen, or a later repeat
        if (v.is_null()) return;
        if (!v.is_string()) fail(m_, at(t.reference_field), "expected a string or null");
        t.reference_value = std::string(v.text());
    }

    bool enter_object(const char* name, bool, Need need) override {
        JsonValue m = take(name, need);
        if (!m.valid()) return false;
        if (!m.is_object()) fail(m_, at(name), "expected an object");
        push(m, at(name));
        return true;
    }

    // The members nobody asked for. A request refuses the first one; a response keeps them in
    // *extra as the text of an object, in document order and as they came (a repeated unknown
    // name stays repeated, which means the same to JSON.parse), or drops them without an extra.
    void leave_object(std::string* extra) override {
        const Frame& f = top();
        std::string out = "{";
        std::size_t i = 0;
        for (JsonValue c = f.value.first_child(); c.valid(); c = c.next_sibling(), ++i) {
            if (f.used[i]) continue;
            if (m_.request) fail(m_, f.path.member(c.key()), "unknown member");
            if (out.size() > 1) out += ',';
            append_quoted(out, c.key());
            out += ':';
            append_compact(out, c);
        }
        if (extra) *extra = out + "}";
        pop();
    }

    std::size_t enter_array(const char* name, std::size_t, bool, Need need) override {
        JsonValue m = take(name, need);
        if (!m.valid()) return kNoArray;
        if (!m.is_array()) fail(m_, at(name), "expected an array");
        if (m.size() > kMaxArrayElements) fail(m_, at(name), "has more than 10000 elements");
        push(m, at(name));
        return m.size();
    }
    void enter_element_object(std::size_t i) override {
        JsonValue e = next_element();
        JsonPath path = top().path.element(i);
        if (!e.is_object()) fail(m_, path, "expected an object");
        push(e, path);
    }
    void element(std::size_t i, std::string& v) override {
        JsonValue e = next_element();
        read_value(m_, e, top().path.element(i), v);
    }
    void element(std::size_t i, RawJson& v) override {
        JsonValue e = next_element();
        read_value(m_, e, top().path.element(i), v, Shape::any);
    }
    void leave_array() override { pop(); }

private:
    struct Frame {
        JsonValue value;
        JsonPath path;               // its parent is the previous frame's path
        std::vector<char> used;      // object members asked for
        JsonValue cursor;            // next array element
    };
    static constexpr std::size_t kMaxFrames = 8;  // the models nest 4 deep at most

    Frame& top() { return frames_[depth_ - 1]; }
    const Frame& top() const { return frames_[depth_ - 1]; }
    void push(JsonValue v, const JsonPath& path) {
        assert(depth_ < kMaxFrames);
        Frame& f = frames_[depth_++];
        f.value = v;
        f.path = path;
        f.used.assign(v.is_object() ? v.size() : 0, 0);
        f.cursor = v.first_child();
    }
    void pop() { --depth_; }
    JsonValue next_element() {
        JsonValue e = top().cursor;
        top().cursor = e.next_sibling();
        return e;
    }
    JsonPath at(std::string_view name) const { return top().path.member(name); }

    // The member called `name`, now counted as known, or an invalid value when there is none. A
    // repeated name is an error in a request; in a response the last one wins, as in JSON.parse.
    JsonValue find(std::string_view name) {
        Frame& f = top();
        JsonValue found;
        std::size_t i = 0;
        for (JsonValue c = f.value.first_child(); c.valid(); c = c.next_sibling(), ++i) {
            if (c.key() != name) continue;
            if (found.valid() && m_.request) fail(m_, at(name), "member appears twice");
            found = c;
            f.used[i] = 1;
        }
        return found;
    }
    // The member to read, or an invalid value when there is nothing to read: absent (an error
    // if required) or null and not required. A required null is read, and fails its type check.
    JsonValue take(std::string_view name, Need need) {
        JsonValue m = find(name);
        if (!m.valid()) {
            if (need == Need::required) fail(m_, at(name), "missing required member");
            return {};
        }
        if (m.is_null() && need != Need::required) return {};
        return m;
    }

    Mode m_;
    Frame frames_[kMaxFrames];
    std::size_t depth_ = 0;
};

}  // namespace

namespace {

// The part of reading that does not depend on the model, out of line once.
using VisitFn = void (*)(FieldVisitor&, void*);
void read_model(std::string_view json, bool request, void* model, VisitFn visit_model,
                std::string* extra) {
    const Mode mode{request ? ErrorCode::validation : ErrorCode::bad_response, request};
    JsonTree tree = parse_json(json, mode.code);
    Reader reader(mode, tree.root());
    visit_model(reader, model);
    reader.leave_object(extra);
}

}  // namespace

template <class T>
T read_document(std::string_view json) {
    T out{};
    read_model(json, kIsRequest<T>, &out,
               [](FieldVisitor& v, void* model) { visit(v, *static_cast<T*>(model)); }, own_extra(out));
    return out;
}

}  // namespace paywasm::detail

namespace paywasm {

template <class T>
T from_json(std::string_view json) {
    return detail::read_document<T>(json);
}

std::vector<CartItem> cart_from_json(std::string_view json) {
    using namespace detail;
    const Mode mode{ErrorCode::validation, true};
    const JsonTree tree = parse_json(json, mode.code);
    const JsonPath document;
    const JsonPath cart = document.member("cart");
    if (!tree.root().is_array()) fail(mode, cart, "expected an array");
    if (tree.root().size() > kMaxArrayElements) fail(mode, cart, "has more than 10000 elements");
    std::vector<CartItem> items;
    std::size_t i = 0;
    for (JsonValue e : tree.root().children()) {
        const JsonPath at = cart.element(i++);
        Reader reader(mode, e, at);
        visit(reader, items.emplace_back());
        reader.leave_object(nullptr);
    }
    return items;
}

// Requests (Error(validation)).
template Checkout from_json<Checkout>(std::string_view);
template ExchangePayment from_json<ExchangePayment>(std::string_view);
template BankPayment from_json<BankPayment>(std::string_view);
template QrGenerateRequest from_json<QrGenerateRequest>(std::string_view);
template SubscriptionDebitRequest from_json<SubscriptionDebitRequest>(std::string_view);
template SubscriptionCancelRequest from_json<SubscriptionCancelRequest>(std::string_view);
template CartItem from_json<CartItem>(std::string_view);
template ShippingAddress from_json<ShippingAddress>(std::string_view);
// Responses and their parts (Error(bad_response)).
template QrGenerateResponse from_json<QrGenerateResponse>(std::string_view);
template QrTransactionResult from_json<QrTransactionResult>(std::string_view);
template QrTransactionMeta from_json<QrTransactionMeta>(std::string_view);
template Transaction from_json<Transaction>(std::string_view);
template StatusRefund from_json<StatusRefund>(std::string_view);
template CheckItem from_json<CheckItem>(std::string_view);
template ChainHash from_json<ChainHash>(std::string_view);
template TransactionMeta from_json<TransactionMeta>(std::string_view);
template ShopData from_json<ShopData>(std::string_view);
template MerchantInfo from_json<MerchantInfo>(std::string_view);
template Customer from_json<Customer>(std::string_view);
template CurrencyInfo from_json<CurrencyInfo>(std::string_view);
template TxMetadata from_json<TxMetadata>(std::string_view);
template ShopperProfileDetails from_json<ShopperProfileDetails>(std::string_view);
template ShopperProfile from_json<ShopperProfile>(std::string_view);
template UsersMeResponse from_json<UsersMeResponse>(std::string_view);
template DebitEntry from_json<DebitEntry>(std::string_view);
template SubscriptionDebitResult from_json<SubscriptionDebitResult>(std::string_view);
template SubscriptionCancelResult from_json<SubscriptionCancelResult>(std::string_view);

}  // namespace paywasm
