// store.hpp — the sandbox's SQLite database: one connection, serialized by a mutex, WAL journal.
// Every table lives here (schema in store.cpp) so one file shows what survives a restart.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace sandbox {

class Db;

// One prepared statement. bind() is 1-based like SQLite; step() returns true while there is a row.
class Stmt {
public:
    Stmt(Db& db, std::string_view sql);
    ~Stmt();
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    Stmt& bind(int i, std::string_view text);
    Stmt& bind(int i, const std::string& text) { return bind(i, std::string_view(text)); }
    Stmt& bind(int i, const char* text) { return bind(i, std::string_view(text)); }
    Stmt& bind(int i, std::int64_t value);
    Stmt& bind(int i, int value) { return bind(i, static_cast<std::int64_t>(value)); }
    Stmt& bind_null(int i);
    Stmt& bind(int i, const std::optional<std::string>& text);
    Stmt& bind(int i, const std::optional<std::int64_t>& value);

    bool step();  // throws std::runtime_error on an SQLite error
    void run() { while (step()) {} }

    std::string text(int col) const;
    std::int64_t integer(int col) const;
    bool is_null(int col) const;

private:
    Db& db_;
    sqlite3_stmt* stmt_ = nullptr;
};

class Db {
public:
    // Opens (creating when missing) the database file and brings the schema up to date.
    explicit Db(const std::string& path);
    ~Db();
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    // Hold this while a sequence of statements must not interleave with another thread's.
    std::unique_lock<std::recursive_mutex> lock() { return std::unique_lock<std::recursive_mutex>(mutex_); }

    void exec(std::string_view sql);
    std::int64_t last_insert_id() const;
    int changes() const;

    // The key/value `settings` table (identity, shopper profile, webhook URL, ...).
    std::optional<std::string> setting(std::string_view key);
    void set_setting(std::string_view key, std::string_view value);

    sqlite3* handle() const { return db_; }

private:
    sqlite3* db_ = nullptr;
    std::recursive_mutex mutex_;
};

// RAII transaction: BEGIN IMMEDIATE now, COMMIT on commit(), ROLLBACK if destroyed before.
class DbTransaction {
public:
    explicit DbTransaction(Db& db);
    ~DbTransaction();
    void commit();

private:
    Db& db_;
    std::unique_lock<std::recursive_mutex> lock_;
    bool done_ = false;
};

}  // namespace sandbox
