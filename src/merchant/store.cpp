// The Store (store.hpp): the one Sql, brought to this binary's schema, and its table groups.
#include "store.hpp"

#include "schema.hpp"
#include "store_core.hpp"

namespace merchant {

namespace {

std::unique_ptr<Sql> migrated(std::unique_ptr<Sql> sql) {
    migrate(*sql);
    return sql;
}

std::unique_ptr<Sql> required(std::unique_ptr<Sql> sql) {
    require_current_schema(*sql);
    return sql;
}

}  // namespace

Store::Store(std::unique_ptr<Sql> sql)
    : sql_(migrated(std::move(sql))), core_(std::make_unique<StoreCore>(*sql_)), sessions(*core_), attempts(*core_),
      events(*core_), mail(*core_), console(*core_), orders(*core_), links(*core_), upkeep(*core_) {}

Store::Store(std::unique_ptr<Sql> sql, BesideGateway)
    : sql_(required(std::move(sql))), core_(std::make_unique<StoreCore>(*sql_)), sessions(*core_), attempts(*core_),
      events(*core_), mail(*core_), console(*core_), orders(*core_), links(*core_), upkeep(*core_) {}

Store::~Store() = default;

}  // namespace merchant
