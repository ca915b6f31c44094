// store.hpp — the sandbox's SQLite database (src/server/sqlite.hpp) with its schema. Every table
// lives in store.cpp so one file shows what survives a restart.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/sqlite.hpp"

namespace sandbox {

using paywasm::server::DbTransaction;
using paywasm::server::Stmt;

class Db : public paywasm::server::Db {
public:
    // Opens (creating when missing) the database file and brings the schema up to date.
    explicit Db(const std::string& path);

    // The key/value `settings` table (identity, shopper profile, webhook URL, ...).
    std::optional<std::string> setting(std::string_view key);
    void set_setting(std::string_view key, std::string_view value);
};

}  // namespace sandbox
