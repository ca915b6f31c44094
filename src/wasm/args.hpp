// src/wasm/args.hpp — reading the JSON argument object of one pw_call.
//
// Arguments arrive as one JSON object. Members that carry a whole document (an order, a cart, a
// response body) are JSON *text* inside a string member, so the core reads their numbers as exact
// decimal text; everything else is a plain string, integer or boolean. A missing or mistyped
// argument is Error(validation) naming the argument, like any other bad input.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "paywasm/error.hpp"

namespace paywasm::wasm {

class Args {
public:
    explicit Args(std::string_view json) {
        doc_.Parse(json.data(), json.size());
        if (doc_.HasParseError() || !doc_.IsObject()) {
            fail_validation("arguments", "must be a JSON object");
        }
    }

    bool has(const char* name) const {
        auto it = doc_.FindMember(name);
        return it != doc_.MemberEnd() && !it->value.IsNull();
    }

    std::string str(const char* name) const {
        auto v = opt_str(name);
        if (!v) fail_validation(name, "is required");
        return *v;
    }

    std::optional<std::string> opt_str(const char* name) const {
        const rapidjson::Value* v = find(name);
        if (!v) return std::nullopt;
        if (!v->IsString()) fail_validation(name, "must be a string");
        return std::string(v->GetString(), v->GetStringLength());
    }

    int integer(const char* name, int fallback) const {
        const rapidjson::Value* v = find(name);
        if (!v) return fallback;
        if (!v->IsInt()) fail_validation(name, "must be an integer");
        return v->GetInt();
    }

    // An array of strings, or nullopt when absent.
    std::optional<std::vector<std::string>> strings(const char* name) const {
        const rapidjson::Value* v = find(name);
        if (!v) return std::nullopt;
        if (!v->IsArray()) fail_validation(name, "must be an array of strings");
        std::vector<std::string> out;
        for (const auto& item : v->GetArray()) {
            if (!item.IsString()) fail_validation(name, "must be an array of strings");
            out.emplace_back(item.GetString(), item.GetStringLength());
        }
        return out;
    }

private:
    const rapidjson::Value* find(const char* name) const {
        auto it = doc_.FindMember(name);
        if (it == doc_.MemberEnd() || it->value.IsNull()) return nullptr;
        return &it->value;
    }

    rapidjson::Document doc_;
};

}  // namespace paywasm::wasm
