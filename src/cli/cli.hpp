// src/cli/cli.hpp — what every `paywasm` subcommand shares: its arguments (src/options), I/O helpers
// and the command registry. A command lives in its own cmd_<name>.cpp and registers itself with
// PAYWASM_COMMAND; main.cpp dispatches by name.
//
// Exit codes: 0 success, 1 a typed failure (printed as "error[<code>]: <message>" on stderr, or as
// JSON by `call`), 2 wrong usage (usage printed on stderr).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "options/options.hpp"

namespace paywasm::cli {

// A command's parsed command line (src/options: `--name value`, `--name=value`, switches,
// positionals; `--` ends options); which options take a value is declared by the command.
using Args = paywasm::options::Args;

struct Command {
    std::string_view name;
    std::string_view summary;  // one line, for `paywasm --help`
    std::string_view usage;    // full usage text, for `paywasm <name> --help` and usage errors
    std::vector<std::string> value_options;
    std::vector<std::string> switches;
    int (*run)(const Args&);
};

void register_command(const Command&);
const std::vector<Command>& commands();

struct Registrar {
    explicit Registrar(const Command& c) { register_command(c); }
};
#define PAYWASM_CONCAT_(a, b) a##b
#define PAYWASM_CONCAT(a, b) PAYWASM_CONCAT_(a, b)
#define PAYWASM_COMMAND(...) \
    static const ::paywasm::cli::Registrar PAYWASM_CONCAT(paywasm_registrar_, __LINE__){__VA_ARGS__};

// Reads a whole file, or standard input for "-" or an empty path. Throws Error(io) naming the
// file when it cannot be read.
std::string read_input(const std::string& path);
// Writes `data` to a new file with mode `mode` (0600 for private keys); refuses to overwrite
// (Error(io)).
void write_file(const std::string& path, std::string_view data, unsigned mode = 0644);

}  // namespace paywasm::cli
