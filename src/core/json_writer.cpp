// JsonWriter (paywasm/json.hpp): compact JSON written front to back, commas placed by the writer.
#include "core/json_tree.hpp"
#include "paywasm/json.hpp"

namespace paywasm {

void JsonWriter::separate() {
    if (comma_) out_ += ',';
    comma_ = false;
}

JsonWriter& JsonWriter::open(char c) {
    separate();
    out_ += c;
    return *this;
}

JsonWriter& JsonWriter::close(char c) {
    out_ += c;
    comma_ = true;
    return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
    separate();
    detail::append_quoted(out_, name);
    out_ += ':';
    return *this;
}

JsonWriter& JsonWriter::string(std::string_view s) {
    separate();
    detail::append_quoted(out_, s);
    comma_ = true;
    return *this;
}

JsonWriter& JsonWriter::number(long long n) { return raw(std::to_string(n)); }
JsonWriter& JsonWriter::boolean(bool b) { return raw(b ? "true" : "false"); }
JsonWriter& JsonWriter::null() { return raw("null"); }

JsonWriter& JsonWriter::raw(std::string_view json) {
    separate();
    out_ += json;
    comma_ = true;
    return *this;
}

JsonWriter& JsonWriter::value(JsonValue v) {
    separate();
    detail::append_compact(out_, v);
    comma_ = true;
    return *this;
}

// Out of line: one call per member at the call sites (the widget's module counts every byte).
JsonWriter& JsonWriter::str(std::string_view name, std::string_view s) { return key(name).string(s); }
JsonWriter& JsonWriter::num(std::string_view name, long long n) { return key(name).number(n); }
JsonWriter& JsonWriter::flag(std::string_view name, bool b) { return key(name).boolean(b); }
JsonWriter& JsonWriter::raw(std::string_view name, std::string_view json) { return key(name).raw(json); }

}  // namespace paywasm
