// src/server/sqlite.hpp — one SQLite connection, serialized by a mutex, WAL journal: the sandbox's
// storage, and the gateway's default one (under src/server/sql.hpp). The schema is the program's.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace paywasm::server {

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
    // Opens (creating when missing) the database file; WAL journal, synchronous=NORMAL, foreign keys.
    explicit Db(const std::string& path);
    virtual ~Db();
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    // Hold this while a sequence of statements must not interleave with another thread's.
    std::unique_lock<std::recursive_mutex> lock() { return std::unique_lock<std::recursive_mutex>(mutex_); }

    void exec(std::string_view sql);
    std::int64_t last_insert_id() const;
    int changes() const;

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

}  // namespace paywasm::server
