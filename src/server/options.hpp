// src/server/options.hpp — the command line of every server program (the sandbox, the gateway):
// `--name value`, `--name=value`, and value-less flags.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

namespace paywasm::server {

// Calls on_option(name, value) for each option of argv in order; a name in `flags` takes no value
// (value ""), and `-h` is the flag `help`. Throws std::invalid_argument, with a message for the
// program's usage text, for an argument that is not an option, an option without its value or a
// flag given one;
// unknown names are on_option's to refuse.
void for_each_option(int argc, char** argv, std::initializer_list<std::string_view> flags,
                     const std::function<void(const std::string& name, const std::string& value)>& on_option);

}  // namespace paywasm::server
