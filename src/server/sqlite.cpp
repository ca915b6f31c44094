#include "server/sqlite.hpp"

#include <sqlite3.h>

#include <stdexcept>

namespace paywasm::server {

namespace {

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
    throw std::runtime_error("sqlite: " + what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

}  // namespace

// ---- Stmt -----------------------------------------------------------------------------------------

Stmt::Stmt(Db& db, std::string_view sql) : db_(db) {
    if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK) {
        fail(db.handle(), "prepare");
    }
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

Stmt& Stmt::bind(int i, std::string_view text) {
    if (sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT) != SQLITE_OK) {
        fail(db_.handle(), "bind");
    }
    return *this;
}

Stmt& Stmt::bind(int i, std::int64_t value) {
    if (sqlite3_bind_int64(stmt_, i, value) != SQLITE_OK) fail(db_.handle(), "bind");
    return *this;
}

Stmt& Stmt::bind_null(int i) {
    if (sqlite3_bind_null(stmt_, i) != SQLITE_OK) fail(db_.handle(), "bind");
    return *this;
}

Stmt& Stmt::bind(int i, const std::optional<std::string>& text) { return text ? bind(i, *text) : bind_null(i); }
Stmt& Stmt::bind(int i, const std::optional<std::int64_t>& value) { return value ? bind(i, *value) : bind_null(i); }

bool Stmt::step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_.handle(), "step");
}

std::string Stmt::text(int col) const {
    const unsigned char* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
}

std::int64_t Stmt::integer(int col) const { return sqlite3_column_int64(stmt_, col); }
bool Stmt::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

// ---- Db -------------------------------------------------------------------------------------------

Db::Db(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        throw std::runtime_error("sqlite: cannot open " + path + ": " + msg);
    }
    sqlite3_busy_timeout(db_, 5000);
    exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
}

Db::~Db() { sqlite3_close(db_); }

void Db::exec(std::string_view sql) {
    std::string text(sql);
    char* err = nullptr;
    if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        throw std::runtime_error("sqlite: " + msg);
    }
}

std::int64_t Db::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
int Db::changes() const { return sqlite3_changes(db_); }

// ---- DbTransaction --------------------------------------------------------------------------------

DbTransaction::DbTransaction(Db& db) : db_(db), lock_(db.lock()) { db_.exec("BEGIN IMMEDIATE"); }

DbTransaction::~DbTransaction() {
    if (!done_) {
        try { db_.exec("ROLLBACK"); } catch (...) {}
    }
}

void DbTransaction::commit() {
    db_.exec("COMMIT");
    done_ = true;
}

}  // namespace paywasm::server
