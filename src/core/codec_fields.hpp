// Internal: every model's members, listed once, in wire order, for both directions.
//
// A model's visit() names each member with its wire name, its JSON form and whether it must be
// there; a FieldVisitor does the rest: the reader (codec_read.cpp) fills the model from a JsonTree,
// the writer (codec_write.cpp) appends compact JSON. One list per model keeps the read and the write
// side from drifting apart, and one virtual call per member keeps the WASM module small (a reader
// and a writer template per model cost several times more). Names are C string literals: one
// argument instead of two per member, which matters at some 250 call sites.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "paywasm/models.hpp"

namespace paywasm::detail {

// Whether a member that is not a std::optional must be present. An optional one that is absent
// (or null) leaves the model's default and is still written.
enum class Need : unsigned char { required, optional };
// How the spec carries an amount. number_or_string is read in either form and written as a number.
enum class Wire : unsigned char { number, string, number_or_string };
// What the spec says of a value whose inner shape it does not show.
enum class Shape : unsigned char { any, object_or_null, array_or_null };

// Arrays of models may hold at most this many elements (each element becomes a struct; a hostile
// 4 MiB body of empty objects must not become a gigabyte of them).
constexpr std::size_t kMaxArrayElements = 10000;
// enter_array's answer for "nothing to visit" (absent, or null and not required, or not written).
constexpr std::size_t kNoArray = static_cast<std::size_t>(-1);

class FieldVisitor {
public:
    virtual ~FieldVisitor() = default;
    virtual bool reading() const = 0;

    // Members of the object entered last.
    virtual void text(const char* name, std::string& v, Need need) = 0;
    virtual void text(const char* name, std::optional<std::string>& v) = 0;
    virtual void flag(const char* name, bool& v, Need need) = 0;
    virtual void flag(const char* name, std::optional<bool>& v) = 0;
    virtual void integer(const char* name, long long& v, Need need) = 0;
    virtual void integer(const char* name, std::optional<long long>& v) = 0;
    virtual void amount(const char* name, Decimal& v, Wire wire, Need need) = 0;
    virtual void amount(const char* name, std::optional<Decimal>& v, Wire wire) = 0;
    virtual void raw(const char* name, RawJson& v, Shape shape) = 0;
    // Transaction.status (an integer or a status word) and its reference<processor> member.
    virtual void status(Transaction& t) = 0;
    virtual void reference(Transaction& t) = 0;

    // Objects. enter_object answers whether to visit the member's members: the reader when the
    // member is there (not null unless required), the writer when `present`. Each true answer is
    // closed by leave_object, which reads unknown members into, or writes them from, *extra; a
    // model without `extra` passes nullptr (a request then refuses unknown members, a response
    // drops them).
    virtual bool enter_object(const char* name, bool present, Need need) = 0;
    virtual void leave_object(std::string* extra) = 0;

    // Arrays: enter_array answers how many elements to visit, or kNoArray (then no leave_array).
    // The writer writes the array when `present`, with `size` elements.
    virtual std::size_t enter_array(const char* name, std::size_t size, bool present,
                                    Need need) = 0;
    virtual void enter_element_object(std::size_t i) = 0;  // closed by leave_object
    virtual void element(std::size_t i, std::string& v) = 0;
    virtual void element(std::size_t i, RawJson& v) = 0;
    virtual void leave_array() = 0;
};

// One per model of models.hpp (codec_fields.cpp).
#define PAYWASM_VISIT(T) void visit(FieldVisitor&, T&);
PAYWASM_VISIT(CartItem)
PAYWASM_VISIT(ShippingAddress)
PAYWASM_VISIT(CustomerInfo)
PAYWASM_VISIT(CustomParam)
PAYWASM_VISIT(CustomParameter)
PAYWASM_VISIT(Checkout)
PAYWASM_VISIT(ExchangePayment)
PAYWASM_VISIT(BankPayment)
PAYWASM_VISIT(QrGenerateRequest)
PAYWASM_VISIT(QrTransactionMeta)
PAYWASM_VISIT(QrTransactionResult)
PAYWASM_VISIT(QrGenerateResponse)
PAYWASM_VISIT(StatusRefund)
PAYWASM_VISIT(CheckItem)
PAYWASM_VISIT(ChainHash)
PAYWASM_VISIT(TransactionMeta)
PAYWASM_VISIT(ShopData)
PAYWASM_VISIT(MerchantInfo)
PAYWASM_VISIT(Customer)
PAYWASM_VISIT(CurrencyInfo)
PAYWASM_VISIT(TxMetadata)
PAYWASM_VISIT(Transaction)
PAYWASM_VISIT(ShopperProfileDetails)
PAYWASM_VISIT(ShopperProfile)
PAYWASM_VISIT(UsersMeResponse)
PAYWASM_VISIT(DebitItem)
PAYWASM_VISIT(SubscriptionDebitRequest)
PAYWASM_VISIT(DebitEntry)
PAYWASM_VISIT(SubscriptionDebitResult)
PAYWASM_VISIT(SubscriptionCancelRequest)
PAYWASM_VISIT(SubscriptionCancelResult)
#undef PAYWASM_VISIT

// The `extra` a model's own object keeps its unknown members in, or nullptr. For the two
// envelopes (status + result) the outer object's unknown members go to envelope_extra.
template <class T, class = void>
struct HasExtra : std::false_type {};
template <class T>
struct HasExtra<T, std::void_t<decltype(std::declval<T&>().extra)>> : std::true_type {};

template <class T>
std::string* own_extra(T& model) {
    if constexpr (std::is_same_v<T, SubscriptionDebitResult> ||
                  std::is_same_v<T, SubscriptionCancelResult>)
        return &model.envelope_extra;
    else if constexpr (HasExtra<T>::value)
        return &model.extra;
    else
        return nullptr;
}

// Requests are read strictly and fail with Error(validation); responses with Error(bad_response).
template <class T>
constexpr bool kIsRequest =
    std::is_same_v<T, Checkout> || std::is_same_v<T, ExchangePayment> || std::is_same_v<T, BankPayment> ||
    std::is_same_v<T, QrGenerateRequest> || std::is_same_v<T, SubscriptionDebitRequest> ||
    std::is_same_v<T, SubscriptionCancelRequest> || std::is_same_v<T, CartItem> ||
    std::is_same_v<T, ShippingAddress>;

}  // namespace paywasm::detail
