// The one file that defines doctest's main(); every other tests/unit/test_<area>.cpp holds cases.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
