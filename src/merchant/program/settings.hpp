// paywasm-merchant's settings: the long options (--help lists them), read from three places, each
// option by the same parser (src/options) and the same checks:
//   1. the configuration file of --config FILE (`name = value` a line: options.hpp's read_config),
//   2. the environment: PAYWASM_DB, and the four secrets PAYWASM_MERCHANT_TOKEN, PAYWASM_APP_SECRET,
//      PAYWASM_EVENT_SECRET, PAYWASM_METRICS_TOKEN (each in place of the file's db /
//      merchant-token-file / app-secret-file / event-secret-file / metrics-token-file),
//   3. the command line,
// the later over the earlier. A secret is never a file's value: the file names the secret's file
// (mode 0600). A bad value stops the start with its origin ("PATH:LINE: message").
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "rules/config.hpp"
#include "options/options.hpp"

namespace merchant {

// Where the installed gateway's configuration lives (the package's conffile); init, config check
// and console-user read it when no --config is given. The gateway itself reads a file only when
// --config names one: a gateway started with options alone (make demo, the tests) is never
// changed by a file in /etc.
inline constexpr const char* kDefaultConfigPath = "/etc/paywasm/merchant.conf";

struct Settings {
    Config config;
    std::string config_path;                       // the file read, or empty
    std::vector<paywasm::options::Setting> given;  // the file's and the command line's options in effect
    struct FromEnvironment {
        const char* option;  // the file's option it stands for
        const char* variable;
        std::string Config::*field;
    };
    std::vector<FromEnvironment> environment;      // the variables in effect
    bool help = false;                             // --help was given: nothing else was read
};

const paywasm::options::Spec& gateway_options();
const char* gateway_usage();

// The settings of `argv` (the arguments after the program's name, or after a subcommand's words),
// the environment and the configuration file (--config, else `default_config`; empty: none).
// Throws paywasm::Error(usage) with the message (a file's line first) for every bad value, a
// missing required option, a secret of fewer than 16 characters, and the like.
Settings read_settings(const std::vector<std::string>& argv, const std::string& default_config);

// The file's settings alone, checked line by line (no key file read, nothing required).
std::vector<paywasm::options::Setting> read_config_file(const std::string& path);

// `config check`'s report: every option in effect with its origin, secrets masked.
void print_settings(const Settings& settings, std::FILE* out);

}  // namespace merchant
