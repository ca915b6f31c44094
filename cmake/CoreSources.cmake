# The core's sources, listed once for the main build and the fuzz build (tests/fuzz), relative to
# the repository root. A new file of src/core goes here.
set(PAYWASM_CORE_SOURCE_NAMES
  src/core/bigint_modexp.cpp
  src/core/checkout.cpp
  src/core/codec_fields.cpp
  src/core/codec_json.cpp
  src/core/codec_read.cpp
  src/core/codec_write.cpp
  src/core/crypto_encoding.cpp
  src/core/crypto_encrypt.cpp
  src/core/crypto_keys.cpp
  src/core/crypto_private.cpp
  src/core/decimal.cpp
  src/core/error.cpp
  src/core/json_writer.cpp
  src/core/padding_random.cpp
  src/core/protocol.cpp
  src/core/qr.cpp
  src/core/sha.cpp
  src/core/status.cpp
  src/core/text.cpp
  src/core/validate.cpp
  # Last: the gateway's order rules, which no op of the widget calls. Listed after every file the
  # widget links, so that the archive's index names those files first for every inline function
  # they share and the widget's link never loads this one (its module stays byte for byte the same).
  src/core/order.cpp)
# The public headers (installed with PAYWASM_INSTALL).
set(PAYWASM_PUBLIC_HEADER_NAMES
  include/paywasm/checkout.hpp
  include/paywasm/codec.hpp
  include/paywasm/crypto.hpp
  include/paywasm/decimal.hpp
  include/paywasm/error.hpp
  include/paywasm/json.hpp
  include/paywasm/models.hpp
  include/paywasm/order.hpp
  include/paywasm/protocol.hpp
  include/paywasm/qr.hpp
  include/paywasm/status.hpp
  include/paywasm/text.hpp
  include/paywasm/validate.hpp)
