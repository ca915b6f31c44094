// store.hpp — the sandbox's SQLite database on the shared SQL layer (src/server/sql.hpp: one
// connection, one mutex, one transaction idiom), with its schema. Every table lives in store.cpp so
// one file shows what survives a restart.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "server/sql.hpp"

namespace sandbox {

using paywasm::server::SqlRow;
using paywasm::server::SqlValue;

// NULL for nullopt.
inline SqlValue opt(const std::optional<std::string>& v) { return v ? SqlValue(*v) : SqlValue(); }
inline SqlValue opt(const std::optional<std::int64_t>& v) { return v ? SqlValue(*v) : SqlValue(); }

class Db {
public:
    // Opens (creating when missing) the database file and brings the schema up to date.
    explicit Db(const std::string& path);

    // One statement with `?` placeholders (sql.hpp): its rows, or the rows it changed.
    std::vector<SqlRow> query(std::string_view sql, const std::vector<SqlValue>& params = {}) { return sql_->query(sql, params); }
    std::int64_t execute(std::string_view sql, const std::vector<SqlValue>& params = {}) { return sql_->execute(sql, params); }
    // Runs `body` in one transaction (nested calls join it) and returns what it returns; rolled back
    // when it throws.
    template <class F>
    auto transaction(F&& body) {
        using R = std::invoke_result_t<F>;
        if constexpr (std::is_void_v<R>) {
            sql_->transaction(body);
        } else {
            std::optional<R> out;
            sql_->transaction([&] { out.emplace(body()); });
            return std::move(*out);
        }
    }

    // The key/value `settings` table (identity, shopper profile, webhook URL, ...).
    std::optional<std::string> setting(std::string_view key);
    void set_setting(std::string_view key, std::string_view value);

private:
    std::unique_ptr<paywasm::server::Sql> sql_;
};

}  // namespace sandbox
