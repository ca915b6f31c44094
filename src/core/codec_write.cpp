// to_json: the models -> compact JSON, members in wire order (codec_fields.cpp), absent optionals
// left out, `extra` members after the known ones. The same model always gives the same bytes,
// natively and in WASM, and the same bytes as JSON.stringify of the equivalent JavaScript object.
#include <cassert>

#include "core/codec_fields.hpp"
#include "core/json_tree.hpp"
#include "paywasm/codec.hpp"

namespace paywasm::detail {
namespace {

// Appends JSON for the members visit() names. It only reads the model (visit() takes it by
// non-const reference because the reader shares the member lists).
class Writer final : public FieldVisitor {
public:
    Writer() {
        out_ += '{';
        push(JsonPath{});
    }
    std::string take() { return std::move(out_); }

    bool reading() const override { return false; }

    void text(const char* name, std::string& v, Need) override {
        member(name);
        append_quoted(out_, v);
    }
    void text(const char* name, std::optional<std::string>& v) override {
        if (v) text(name, *v, Need::optional);
    }
    void flag(const char* name, bool& v, Need) override {
        member(name);
        out_ += v ? "true" : "false";
    }
    void flag(const char* name, std::optional<bool>& v) override {
        if (v) flag(name, *v, Need::optional);
    }
    void integer(const char* name, long long& v, Need) override {
        member(name);
        out_ += std::to_string(v);
    }
    void integer(const char* name, std::optional<long long>& v) override {
        if (v) integer(name, *v, Need::optional);
    }
    // Numbers in Decimal's canonical text; a string amount is that text quoted.
    void amount(const char* name, Decimal& v, Wire wire, Need) override {
        member(name);
        if (wire == Wire::string)
            append_quoted(out_, v.to_string());
        else
            out_ += v.to_string();
    }
    void amount(const char* name, std::optional<Decimal>& v, Wire wire) override {
        if (v) amount(name, *v, wire, Need::optional);
    }
    // Left out when absent; "null" is written as null. Re-emitted compactly after a validity check.
    void raw(const char* name, RawJson& v, Shape) override {
        if (!v.present()) return;
        member(name);
        append_raw(out_, v.text, at(name));
    }

    void status(Transaction& t) override {
        if (t.status_word) {
            text("status", *t.status_word, Need::required);
        } else {
            long long code = t.status;
            integer("status", code, Need::required);
        }
    }
    void reference(Transaction& t) override {
        if (t.reference_field.empty()) return;
        member(t.reference_field);
        if (t.reference_value)
            append_quoted(out_, *t.reference_value);
        else
            out_ += "null";
    }

    bool enter_object(const char* name, bool present, Need) override {
        if (!present) return false;
        member(name);
        out_ += '{';
        push(at(name));
        return true;
    }
    void leave_object(std::string* extra) override {
        if (extra) append_extra_members(out_, *extra, top().first, top().path.member("extra"));
        out_ += '}';
        pop();
    }

    std::size_t enter_array(const char* name, std::size_t size, bool present, Need) override {
        if (!present) return kNoArray;
        member(name);
        out_ += '[';
        push(at(name));
        return size;
    }
    void enter_element_object(std::size_t i) override {
        comma();
        out_ += '{';
        push(top().path.element(i));
    }
    void element(std::size_t, std::string& v) override {
        comma();
        append_quoted(out_, v);
    }
    // An absent RawJson can only be written as null inside an array.
    void element(std::size_t i, RawJson& v) override {
        comma();
        if (v.present())
            append_raw(out_, v.text, top().path.element(i));
        else
            out_ += "null";
    }
    void leave_array() override {
        out_ += ']';
        pop();
    }

private:
    struct Frame {
        JsonPath path;  // names the field of an invalid RawJson or extra
        bool first = true;
    };
    static constexpr std::size_t kMaxFrames = 8;

    Frame& top() { return frames_[depth_ - 1]; }
    void push(const JsonPath& path) {
        assert(depth_ < kMaxFrames);
        frames_[depth_++] = Frame{path, true};
    }
    void pop() { --depth_; }
    JsonPath at(std::string_view name) { return top().path.member(name); }
    void comma() {
        if (!top().first) out_ += ',';
        top().first = false;
    }
    void member(std::string_view name) {
        comma();
        append_quoted(out_, name);
        out_ += ':';
    }

    std::string out_;
    Frame frames_[kMaxFrames];
    std::size_t depth_ = 0;
};

using VisitFn = void (*)(FieldVisitor&, void*);
std::string write_model(void* model, VisitFn visit_model, std::string* extra) {
    Writer writer;
    visit_model(writer, model);
    writer.leave_object(extra);
    return writer.take();
}

template <class T>
std::string write_document(const T& model) {
    T& m = const_cast<T&>(model);  // the writer only reads
    return write_model(&m, [](FieldVisitor& v, void* p) { visit(v, *static_cast<T*>(p)); }, own_extra(m));
}

}  // namespace
}  // namespace paywasm::detail

namespace paywasm {

std::string to_json(const CartItem& v) { return detail::write_document(v); }
std::string to_json(const ShippingAddress& v) { return detail::write_document(v); }
std::string to_json(const Checkout& v) { return detail::write_document(v); }
std::string to_json(const ExchangePayment& v) { return detail::write_document(v); }
std::string to_json(const BankPayment& v) { return detail::write_document(v); }
std::string to_json(const QrGenerateRequest& v) { return detail::write_document(v); }
std::string to_json(const QrGenerateResponse& v) { return detail::write_document(v); }
std::string to_json(const QrTransactionResult& v) { return detail::write_document(v); }
std::string to_json(const Transaction& v) { return detail::write_document(v); }
std::string to_json(const ShopperProfile& v) { return detail::write_document(v); }
std::string to_json(const UsersMeResponse& v) { return detail::write_document(v); }
std::string to_json(const SubscriptionDebitRequest& v) { return detail::write_document(v); }
std::string to_json(const SubscriptionDebitResult& v) { return detail::write_document(v); }
std::string to_json(const SubscriptionCancelRequest& v) { return detail::write_document(v); }
std::string to_json(const SubscriptionCancelResult& v) { return detail::write_document(v); }

}  // namespace paywasm
