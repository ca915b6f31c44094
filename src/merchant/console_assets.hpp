// The console's embedded assets (console_assets.cpp).
#pragma once

namespace merchant {

extern const char* const kConsoleCss;

}  // namespace merchant
