// `paywasm-merchant init` (init.cpp): a gateway set up in one command, from flags or, on a
// terminal, from answers to what is missing. It writes, under the configuration file's directory
// (default /etc/paywasm): the two public keys (copied, 0644), secrets/ (0700) with the merchant
// token and a generated app secret, event secret and metrics token (0600 files of the service's
// user), then the configuration file; it migrates the database and creates the first console user
// (a generated password shown once, or one line read from stdin with --password-stdin), checks the
// result with the gateway's own reader (settings.hpp), and prints the console's URL and the next
// step. It refuses a configuration file that already holds a setting unless --force is given.
#pragma once

#include <string>
#include <vector>

namespace merchant {

// `args`: the arguments after "init". Returns the process's exit code.
int init_command(const std::vector<std::string>& args);

}  // namespace merchant
