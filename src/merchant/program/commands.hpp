// The program (src/merchant/program): paywasm-merchant's command line, its settings, and its
// commands besides serving, declared here.
//   main.cpp               the command line: serve, init, config check, console-user; the listeners
//   settings.hpp           the long options read from the --config file, the environment and flags
//   init.cpp               `paywasm-merchant init` (init_command)
//   console_users_cli.cpp  `paywasm-merchant console-user` (console_user_command)
// `paywasm-merchant init` (init.cpp): a gateway set up in one command, from flags or, on a
// terminal, from answers to what is missing. It writes, under the configuration file's directory
// (default /etc/paywasm): the two public keys (copied, 0644), secrets/ (0700) with the merchant
// token and a generated app secret, event secret and metrics token (0600 files of the service's
// user), then the configuration file; it migrates the database and creates the first console user
// (a generated password shown once, or one line read from stdin with --password-stdin), checks the
// result with the gateway's own reader (settings.hpp), and prints the console's URL and the next
// step. It refuses a configuration file that already holds a setting unless --force is given.
// With --sandbox URL (trying it out: README's five commands) the service's URL, merchant id, keys
// and token come from a paywasm-sandbox's control API, and the sandbox's webhook URL is set to the
// gateway's /v1/webhooks (--public-url, else the listening address).
#pragma once

#include <string>
#include <vector>

namespace merchant {

// `args`: the arguments after "init". Returns the process's exit code.
int init_command(const std::vector<std::string>& args);

// `paywasm-merchant console-user add|remove|passwd|unlock|sessions|list [NAME] [--config FILE]
// [--db URL]` (argv after "console-user"; console_users_cli.cpp), beside a running gateway or not:
// add and passwd read the password from stdin (one line). Returns the process's exit code.
int console_user_command(int argc, char** argv);

}  // namespace merchant
