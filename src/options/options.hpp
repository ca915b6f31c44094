// src/options/options.hpp — the command line of every program (the `paywasm` CLI, paywasm-sandbox,
// paywasm-merchant), read one way: `--name value`, `--name=value`, value-less flags, and (where a
// program takes them) positional arguments. Library paywasm_options: the core only, no server.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paywasm::options {

// What a program (or a CLI command) accepts.
struct Spec {
    std::vector<std::string> values;  // options that take a value
    std::vector<std::string> flags;   // options that take none; "help" always is one
    // true: an argument not starting with "--" (and every one after "--") is positional.
    // false: none is taken, and "-h" is the flag "help".
    bool positionals = false;
};

// A parsed command line. Throws paywasm::Error(ErrorCode::usage), its message fit for the program's
// usage text, for an unknown option ("unknown option --x"), an option without its value ("--x needs
// a value"), a flag given one ("--x takes no value"), and a positional argument where none is taken
// ("unexpected argument 'x'").
class Args {
public:
    Args(const std::vector<std::string>& argv, const Spec& spec);
    Args(int argc, char** argv, const Spec& spec) : Args(std::vector<std::string>(argv + 1, argv + argc), spec) {}

    bool has(std::string_view name) const;
    // The option's last value, or `fallback` when absent.
    std::string get(std::string_view name, std::string_view fallback = {}) const;
    // The option's last value; throws Error(usage) "--name is required" when absent.
    std::string require(std::string_view name) const;
    // Every option in the order given (a repeated option each time; a flag with value "").
    const std::vector<std::pair<std::string, std::string>>& given() const { return given_; }
    const std::vector<std::string>& positional() const { return positional_; }

private:
    std::vector<std::pair<std::string, std::string>> given_;
    std::vector<std::string> positional_;
};

// One option set in a configuration file: its long name, its value ("" for a flag), and where it
// was set ("PATH:LINE"), for the error a bad value gets.
struct Setting {
    std::string name, value, origin;
};

// Reads a configuration file whose keys are the long options of `spec`: one `name = value` a line
// (spaces around both trimmed; a value may be put in double quotes to keep its spaces; no
// escapes), a flag as `name = true` (`false`: not given), blank lines and lines starting with `#`
// skipped (a `#` after a value is part of it: `#1a56db` is a colour). Each line goes through Args,
// the command line's own checks. Throws Error(usage) "PATH:LINE: message" for a line that is not
// `name = value`, a name the program does not take (or one of `refused`: its message follows),
// a repeated name, a flag's value other than true/false, and "PATH: cannot read" when the file
// cannot be read.
std::vector<Setting> read_config(const std::string& path, const Spec& spec,
                                 const std::vector<std::pair<std::string, std::string>>& refused = {});

// An option's value as a whole number / a number within [min, max]; else Error(usage) "--name must
// be a whole number from MIN to MAX" (resp. "a number from").
long long whole_number(std::string_view name, const std::string& value, long long min, long long max);
double number(std::string_view name, const std::string& value, double min, double max);
// A comma-separated value, entry by entry ("" entries included: the caller refuses or skips them).
std::vector<std::string> split_commas(const std::string& value);

}  // namespace paywasm::options
