#include "options/options.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "paywasm/error.hpp"

namespace paywasm::options {

namespace {

[[noreturn]] void usage(const std::string& message) { throw Error(ErrorCode::usage, message); }

bool listed(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Args::Args(const std::vector<std::string>& argv, const Spec& spec) {
    bool options_done = false;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (!spec.positionals && a == "-h") {
            given_.emplace_back("help", "");
            continue;
        }
        const bool is_option = !options_done && a.size() >= 3 && a.compare(0, 2, "--") == 0;
        if (!is_option) {
            if (!spec.positionals) usage("unexpected argument '" + a + "'");
            if (a == "--") options_done = true;
            else positional_.push_back(a);
            continue;
        }
        std::string name = a.substr(2), value;
        const auto eq = name.find('=');
        const bool inline_value = eq != std::string::npos;
        if (inline_value) {
            value = name.substr(eq + 1);
            name.resize(eq);
        }
        if (listed(spec.values, name)) {
            if (!inline_value) {
                if (i + 1 >= argv.size()) usage("--" + name + " needs a value");
                value = argv[++i];
            }
        } else if (name == "help" || listed(spec.flags, name)) {
            if (inline_value) usage("--" + name + " takes no value");
        } else {
            usage("unknown option --" + name);
        }
        given_.emplace_back(std::move(name), std::move(value));
    }
}

bool Args::has(std::string_view name) const {
    return std::any_of(given_.begin(), given_.end(), [&](const auto& o) { return o.first == name; });
}

std::string Args::get(std::string_view name, std::string_view fallback) const {
    for (auto it = given_.rbegin(); it != given_.rend(); ++it) {
        if (it->first == name) return it->second;
    }
    return std::string(fallback);
}

std::string Args::require(std::string_view name) const {
    if (!has(name)) usage("--" + std::string(name) + " is required");
    return get(name);
}

long long whole_number(std::string_view name, const std::string& value, long long min, long long max) {
    char* end = nullptr;
    const long long v = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || v < min || v > max) {
        usage("--" + std::string(name) + " must be a whole number from " + std::to_string(min) + " to " +
              std::to_string(max));
    }
    return v;
}

double number(std::string_view name, const std::string& value, double min, double max) {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(v >= min && v <= max)) {
        usage("--" + std::string(name) + " must be a number from " + std::to_string(min) + " to " + std::to_string(max));
    }
    return v;
}

std::vector<std::string> split_commas(const std::string& value) {
    std::vector<std::string> out;
    for (std::size_t start = 0;;) {
        const std::size_t comma = value.find(',', start);
        out.push_back(value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) return out;
        start = comma + 1;
    }
}

namespace {

std::string trimmed(const std::string& s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string::npos) return "";
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

std::vector<Setting> read_config(const std::string& path, const Spec& spec,
                                 const std::vector<std::pair<std::string, std::string>>& refused) {
    std::ifstream in(path);
    if (!in) usage(path + ": cannot read the configuration file");
    std::vector<Setting> out;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        const std::string where = path + ":" + std::to_string(number);
        const std::string text = trimmed(line);
        if (text.empty() || text[0] == '#') continue;
        const auto eq = text.find('=');
        if (eq == std::string::npos || eq == 0) usage(where + ": expected `name = value` (a long option's name without --)");
        const std::string name = trimmed(text.substr(0, eq));
        std::string value = trimmed(text.substr(eq + 1));
        if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
        for (const auto& [key, why] : refused) {
            if (key == name) usage(where + ": " + name + ": " + why);
        }
        for (const auto& s : out) {
            if (s.name == name) usage(where + ": " + name + " is set again (first at " + s.origin + ")");
        }
        std::vector<std::string> argv;
        if (name == "help") usage(where + ": help is not a setting");
        if (listed(spec.flags, name)) {
            if (value != "true" && value != "false") usage(where + ": " + name + " is a flag: true or false");
            if (value == "false") continue;
            argv = {"--" + name};
            value.clear();
        } else {
            argv = {"--" + name + "=" + value};
        }
        try {
            const Args checked(argv, Spec{spec.values, spec.flags, false});
        } catch (const Error& e) {
            usage(where + ": " + e.what());
        }
        out.push_back(Setting{name, value, where});
    }
    return out;
}

}  // namespace paywasm::options
